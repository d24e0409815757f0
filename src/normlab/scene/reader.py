"""SCENE's reader page: the episode with the labels on its turns, the staged precedent set
apart, and the fidelity verdict (``normlab.runs.reader``)."""

from __future__ import annotations

from inspect_ai.log import EvalLog, EvalSample

from normlab.agents import memory_trace
from normlab.core.logs import subject_of
from normlab.runs.reader import ChatRow, Reader, SampleView, explanation, log_sample
from normlab.scene.analysis import EpisodeRecord, record_of
from normlab.scene.rules import EpisodeOutcome, label_lists


def sample_label(log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(scenario; breaches, sanctions, repaired and validity) for the run page's list."""
    episode = record_of(log_sample(log, sample))
    if episode is None:
        return str(sample.id), "breaches –, sanctions –, repaired –, –"
    outcome = episode.outcome
    return outcome.scenario_id, f"{_counts(outcome)}, {outcome.validity}"


def _counts(outcome: EpisodeOutcome) -> str:
    """The episode's breaches, sanctions and repairs, as the list and the page both say them."""
    return (
        f"breaches {outcome.breaches}, sanctions {outcome.sanctions}, repaired {outcome.repaired}"
    )


READER_MARKS = {"SP BREACH": "persona breach"}
"""How the reader names a label mark where it differs from the mark in lower case."""


def _turn_marks(record: EpisodeRecord) -> dict[int, list[str]]:
    """Every label of each turn as the labeller gave it, then each sanction's observed form."""
    marks: dict[int, list[str]] = {}
    for mark, turns in label_lists(record.labels):
        for turn_id in turns:
            marks.setdefault(turn_id, []).append(READER_MARKS.get(mark, mark.lower()))
    for turn_id, form in (record.labels.sanction_modalities or {}).items():
        marks.setdefault(turn_id, []).append(f"sanction form: {form}")
    return marks


def scene_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    record = record_of(log_sample(log, sample))
    if record is None:
        return SampleView(
            f"SCENE: {sample.id}", [("subject", subject_of(log)), ("labels", "not scored")], []
        )
    episode, outcome, fidelity = record.episode, record.outcome, record.fidelity
    marks = _turn_marks(record)
    chat = []
    for entry in episode.entries:
        staged = entry.phase == "precedent"
        # The staged precedent's breaches and sanctions are evidence shown to the subject,
        # set apart from the outcome counts (only its demonstrations count, for d).
        turn_marks = [
            f"staged {mark} (not counted)" if staged and mark != "demonstration" else mark
            for mark in marks.get(entry.turn_id, [])
        ]
        target = ""
        if entry.target_turn_id:
            target = f"reacts to #{entry.target_turn_id}"
        elif entry.addressees:
            target = "to " + ", ".join(entry.addressees)
        chat.append(
            ChatRow(
                str(entry.turn_id),
                entry.actor,
                entry.content,
                entry.kind,
                target,
                turn_marks + (["elicitor"] if entry.is_elicitor else []),
                "precedent (staged)" if staged else entry.phase or "",
            )
        )
    facts = [
        ("scenario", episode.scenario_id),
        ("tuple", ", ".join(f"{k} {v}" for k, v in episode.tuple.model_dump().items())),
        ("subject", f"{episode.subject} ({subject_of(log)})"),
        ("labeller", record.labels.labeller),
        (
            "fidelity",
            f"{outcome.validity}: {fidelity.justification if fidelity else explanation(sample)}",
        ),
        ("outcome", _counts(outcome)),
        ("ended", episode.termination),
    ]
    if episode.norm_memory is not None:
        facts.append(("norm memory (reply by reply)", memory_trace(episode.norm_memory)))
    return SampleView(f"SCENE: {episode.scenario_id}", facts, chat)


READER = Reader(view=scene_view, label=sample_label)
