"""What each system's reader page shows, as plain view rows built from a run's records.

The readers show what the papers' figures and appendices show (the brief's list): LoSoNA's
chat with its demonstrations and elicitor and every condition's replies with the judge's
verdict; SCENE's episode with the labels on the turns, precedent turns set apart, and the
fidelity verdict; HSII's history with who speaks to whom and the subject's pick beside the
golden; CRSEC's replay (``normlab.crsec.analysis.replay``). One chat row shape serves all three
chats, so one template renders them.

What a sample's score means is read through its system's loader (``record_of``), the one reader
of its logs that the analysis and the report use too: a SCENE outcome is recomputed from the
episode and its labels, an HSII stage from the reply, so the viewer never shows an old log's
stored number where the report shows today's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from normlab import hsii, losona, scene
from normlab.agents import MEMORY_KEY, MemoryLog, memory_trace
from normlab.core.logs import LogSample, local_path, read_log, subject_of


@dataclass
class ChatRow:
    turn_id: str
    actor: str
    content: str
    kind: str = "message"
    target: str = ""
    marks: list[str] = field(default_factory=list)
    section: str = ""


@dataclass
class Reply:
    """One reply of the subject, with the judge's verdict and reasons."""

    label: str
    text: str
    verdict: str
    reasons: str


@dataclass
class SampleView:
    title: str
    facts: list[tuple[str, str]]
    chat: list[ChatRow]
    replies: list[Reply] = field(default_factory=list)
    extra_chats: list[tuple[str, list[ChatRow]]] = field(default_factory=list)


@lru_cache(maxsize=16)
def _cached(path: str, mtime: float) -> EvalLog:
    return read_log(Path(path))


def load(path: Path) -> EvalLog:
    """A whole log, re-read only when the file changes."""
    return _cached(str(path), path.stat().st_mtime)


def system_of(log: EvalLog) -> str:
    """``losona``, ``scene`` or ``hsii`` from the task name (``normlab/losona`` or ``losona``)."""
    return log.eval.task.split("/")[-1]


def _item(log: EvalLog, sample: EvalSample) -> LogSample:
    return LogSample(log, sample, local_path(log.location))


def _explanation(sample: EvalSample) -> str:
    """The score's explanation: the judge's reasons, or why the auditor's verdict is missing."""
    score = next(iter((sample.scores or {}).values()), None)
    return str(score.explanation or "") if score is not None else ""


def _counted(stages: dict[str, float]) -> str:
    return ", ".join(f"{k} {v:g}" for k, v in stages.items() if not math.isnan(v))


def sample_label(system: str, log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(what the sample is, its outcome) for the run page's list."""
    meta = sample.metadata or {}
    item = _item(log, sample)
    if system == "losona":
        trial = losona.record_of(item)
        return (
            f"{meta.get('scenario_id')} · {meta.get('condition')} · epoch {sample.epoch}",
            _verdict(trial.complies if trial is not None else None),
        )
    if system == "scene":
        episode = scene.record_of(item)
        if episode is None:
            return str(sample.id), "breaches –, sanctions –, repaired –, –"
        outcome = episode.outcome
        return outcome.scenario_id, (
            f"breaches {outcome.breaches}, sanctions {outcome.sanctions}, "
            f"repaired {outcome.repaired}, {outcome.validity}"
        )
    if system == "hsii":
        case = hsii.record_of(item)
        return str(meta.get("case_id", sample.id)), (
            _counted(hsii.stages_of(case)) if case is not None else ""
        )
    return str(sample.id), str(next(iter((sample.scores or {}).values()), ""))


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
        trial = losona.record_of(_item(log, sample))
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


READER_MARKS = {"SP BREACH": "persona breach"}
"""How the reader names a label mark where it differs from the mark in lower case."""


def _turn_marks(record: scene.EpisodeRecord) -> dict[int, list[str]]:
    """Every label of each turn as the labeller gave it, then each sanction's observed form."""
    marks: dict[int, list[str]] = {}
    for mark, turns in scene.label_lists(record.labels):
        for turn_id in turns:
            marks.setdefault(turn_id, []).append(READER_MARKS.get(mark, mark.lower()))
    for turn_id, form in (record.labels.sanction_modalities or {}).items():
        marks.setdefault(turn_id, []).append(f"sanction form: {form}")
    return marks


def scene_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    record = scene.record_of(_item(log, sample))
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
            f"{outcome.validity}: {fidelity.justification if fidelity else _explanation(sample)}",
        ),
        (
            "outcome",
            f"breaches {outcome.breaches}, sanctions {outcome.sanctions}, "
            f"repaired {outcome.repaired}",
        ),
        ("ended", episode.termination),
    ]
    if episode.norm_memory is not None:
        facts.append(("norm memory (reply by reply)", memory_trace(episode.norm_memory)))
    return SampleView(f"SCENE: {episode.scenario_id}", facts, chat)


def _hsii_row(n: int, message: dict[str, Any], marks: list[str] | None = None) -> ChatRow:
    return ChatRow(
        str(message.get("index", n)),
        str(message.get("role_from", message.get("speaker", ""))),
        str(message.get("content", "")),
        "message",
        f"to {message.get('role_to', message.get('addressee', ''))}",
        marks or [],
    )


def _statement(statement: dict[str, Any] | None, raw: str) -> str:
    if not statement:
        return f"(unparsed) {raw}"
    return f"to {', '.join(statement.get('targets', []))}: {statement.get('content', '')}"


def hsii_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    meta = sample.metadata or {}
    case = meta.get("case", {})
    result = meta.get("hsii", {})
    record = hsii.record_of(_item(log, sample))
    comparisons = hsii.comparisons_of(_item(log, sample))
    explanation = _explanation(sample)
    chat = [_hsii_row(n, m) for n, m in enumerate(case.get("messages", []), start=1)]
    golden = case.get("golden", {})
    replies = [
        Reply(
            "subject's pick and statement",
            _statement(result.get("parsed"), sample.output.completion if sample.output else ""),
            "right addressee" if result.get("target_ok") else "wrong addressee or unparsed",
            explanation,
        ),
        Reply("golden", f"to {golden.get('role_to', '')}: {golden.get('content', '')}", "", ""),
    ]
    for stage, comparison in comparisons.items():
        replies.append(
            Reply(
                f"judge, {stage} comparison vs {comparison.other} (both orders)",
                comparison.other_statement,
                ", ".join(str(v) for v in comparison.verdicts),
                " / ".join(comparison.reasons),
            )
        )
    extra = []
    run = result.get("long_run")
    if run:
        extra.append(
            (
                "Long run (r4): the subject with the target",
                [_hsii_row(n, turn) for n, turn in enumerate(run.get("turns", []), start=1)],
            )
        )
    background = case.get("background", {})
    return SampleView(
        f"HSII: {case.get('case_id', sample.id)}",
        [
            ("scene", str(background.get("scene", ""))),
            ("characters", ", ".join(background.get("characters", []))),
            ("relationships", str(background.get("relationships", ""))),
            ("subject model", str(log.eval.model)),
            ("stages", _counted(hsii.stages_of(record)) if record is not None else ""),
        ],
        chat,
        replies,
        extra,
    )


VIEWS = {"losona": losona_view, "scene": scene_view, "hsii": hsii_view}
