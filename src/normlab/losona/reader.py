"""LoSoNA's reader page: the scenario's chat with its demonstrations and elicitor, and every
condition's replies on it with the judge's verdict (``normlab.runs.reader``)."""

from __future__ import annotations

from inspect_ai.log import EvalLog, EvalSample

from normlab.agents import memory_trace
from normlab.core.logs import subject_of
from normlab.losona.analysis import record_of
from normlab.losona.meta import SampleMeta
from normlab.runs.reader import ChatRow, Reader, Reply, SampleView, log_sample


def sample_label(log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(scenario, condition and epoch; the judge's verdict) for the run page's list."""
    meta = SampleMeta.of(sample)
    trial = record_of(log_sample(log, sample))
    shown = f"{meta.scenario_id} · {meta.condition}" if meta is not None else str(sample.id)
    return (
        f"{shown} · epoch {sample.epoch}",
        _verdict(trial.complies if trial is not None else None),
    )


def _verdict(complies: bool | None) -> str:
    if complies is None:
        return "no verdict (judge reply unusable)"
    return "complies" if complies else "breaches"


def losona_view(log: EvalLog, index: int) -> SampleView:
    """The scenario of sample ``index``, with every sample of the log on the same scenario."""
    samples = log.samples or []
    meta = SampleMeta.of(samples[index])
    if meta is None:
        return SampleView(f"LoSoNA: {samples[index].id}", [("subject model", subject_of(log))], [])
    scenario = meta.scenario
    demonstrations = set(scenario.demonstration_turn_ids)
    chat = [
        ChatRow(
            str(turn.turn_id),
            turn.actor,
            turn.content,
            turn.kind,
            f"reacts to #{turn.target_turn_id}" if turn.target_turn_id else "",
            (["demonstration"] if turn.turn_id in demonstrations else [])
            + (["elicitor"] if turn.turn_id == scenario.elicitor_turn_id else []),
        )
        for turn in scenario.transcript
    ]
    replies = []
    for sample in samples:
        other = SampleMeta.of(sample)
        if other is None or other.scenario_id != meta.scenario_id:
            continue
        trial = record_of(log_sample(log, sample))
        explanation = trial.judge_reasoning if trial is not None else ""
        if other.norm_memory is not None:
            explanation += f"\n\nnorm memory:\n{memory_trace(other.norm_memory)}"
        replies.append(
            Reply(
                f"{other.condition} · epoch {sample.epoch}",
                sample.output.completion if sample.output else "",
                _verdict(trial.complies if trial is not None else None),
                explanation,
            )
        )
    return SampleView(
        f"LoSoNA: {meta.scenario_id}",
        [
            ("norm (hidden from the subject)", scenario.norm_statement),
            ("subject", scenario.subject),
            ("venue", f"{scenario.venue}: {scenario.channel_description}"),
            ("subject model", subject_of(log)),
        ],
        chat,
        replies,
    )


READER = Reader(view=losona_view, label=sample_label)
