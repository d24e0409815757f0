"""LoSoNA's reader page: the scenario's chat with its demonstrations and elicitor, and every
condition's replies on it with the judge's verdict (``normlab.runs.reader``)."""

from __future__ import annotations

from inspect_ai.log import EvalLog, EvalSample

from normlab.agents import MEMORY_KEY, MemoryLog, memory_trace
from normlab.core.logs import subject_of
from normlab.losona.analysis import record_of
from normlab.runs.reader import ChatRow, Reader, Reply, SampleView, log_sample


def sample_label(log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(scenario, condition and epoch; the judge's verdict) for the run page's list."""
    meta = sample.metadata or {}
    trial = record_of(log_sample(log, sample))
    return (
        f"{meta.get('scenario_id')} · {meta.get('condition')} · epoch {sample.epoch}",
        _verdict(trial.complies if trial is not None else None),
    )


def _verdict(complies: bool | None) -> str:
    if complies is None:
        return "no verdict (judge reply unusable)"
    return "complies" if complies else "breaches"


def losona_view(log: EvalLog, index: int) -> SampleView:
    """The scenario of sample ``index``, with every sample of the log on the same scenario."""
    samples = log.samples or []
    scenario_id = (samples[index].metadata or {}).get("scenario_id")
    scenario = (samples[index].metadata or {}).get("scenario") or {}
    demonstrations = set(scenario.get("demonstration_turn_ids", []))
    elicitor = scenario.get("elicitor_turn_id")
    chat = [
        ChatRow(
            str(turn["turn_id"]),
            turn["actor"],
            turn.get("content", ""),
            turn.get("kind", "message"),
            f"reacts to #{turn['target_turn_id']}" if turn.get("target_turn_id") else "",
            (["demonstration"] if turn["turn_id"] in demonstrations else [])
            + (["elicitor"] if turn["turn_id"] == elicitor else []),
        )
        for turn in scenario.get("transcript", [])
    ]
    replies = []
    for sample in samples:
        meta = sample.metadata or {}
        if meta.get("scenario_id") != scenario_id:
            continue
        trial = record_of(log_sample(log, sample))
        explanation = trial.judge_reasoning if trial is not None else ""
        if MEMORY_KEY in meta:
            trace = memory_trace(MemoryLog.model_validate(meta[MEMORY_KEY]))
            explanation += f"\n\nnorm memory:\n{trace}"
        replies.append(
            Reply(
                f"{meta.get('condition')} · epoch {sample.epoch}",
                sample.output.completion if sample.output else "",
                _verdict(trial.complies if trial is not None else None),
                explanation,
            )
        )
    return SampleView(
        f"LoSoNA: {scenario_id}",
        [
            ("norm (hidden from the subject)", scenario.get("norm_statement", "")),
            ("subject", scenario.get("subject", "")),
            ("venue", f"{scenario.get('venue', '')}: {scenario.get('channel_description', '')}"),
            ("subject model", subject_of(log)),
        ],
        chat,
        replies,
    )


READER = Reader(view=losona_view, label=sample_label)
