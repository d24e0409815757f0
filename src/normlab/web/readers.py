"""What each system's reader page shows, as plain view rows built from a run's records.

The readers show what the papers' figures and appendices show (the brief's list): LoSoNA's
chat with its demonstrations and elicitor and every condition's replies with the judge's
verdict; SCENE's episode with the labels on the turns, precedent turns set apart, and the
fidelity verdict; HSII's history with who speaks to whom and the subject's pick beside the
golden; CRSEC's replay (``normlab.crsec.replay``). One chat row shape serves all three
chats, so one template renders them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from normlab.agents import MEMORY_KEY, MemoryLog, memory_trace
from normlab.core.logs import read_log, subject_of


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


def _score(sample: EvalSample) -> tuple[Any, str, dict[str, Any]]:
    score = next(iter((sample.scores or {}).values()), None)
    if score is None:
        return None, "", {}
    return score.value, str(score.explanation or ""), dict(score.metadata or {})


def sample_label(system: str, sample: EvalSample) -> tuple[str, str]:
    """(what the sample is, its outcome) for the run page's list."""
    value, _, _ = _score(sample)
    meta = sample.metadata or {}
    if system == "losona":
        return (
            f"{meta.get('scenario_id')} · {meta.get('condition')} · epoch {sample.epoch}",
            _verdict(value),
        )
    if system == "scene":
        outcome = (_score(sample)[2].get("outcome") or {}) if sample.scores else {}
        return str(meta.get("episode", {}).get("scenario_id", sample.id)), (
            f"breaches {outcome.get('breaches', '–')}, sanctions {outcome.get('sanctions', '–')}, "
            f"repaired {outcome.get('repaired', '–')}, {outcome.get('validity', '–')}"
        )
    if system == "hsii":
        stages = value if isinstance(value, dict) else {}
        shown = {k: v for k, v in stages.items() if isinstance(v, float) and not math.isnan(v)}
        return str(meta.get("case_id", sample.id)), ", ".join(
            f"{k} {v:g}" for k, v in shown.items()
        )
    return str(sample.id), str(value)


def _verdict(value: Any) -> str:
    if isinstance(value, float | int) and not (isinstance(value, float) and math.isnan(value)):
        return "complies" if value >= 0.5 else "breaches"
    return "no verdict (judge reply unusable)"


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
        value, explanation, _ = _score(sample)
        if MEMORY_KEY in meta:
            trace = memory_trace(MemoryLog.model_validate(meta[MEMORY_KEY]))
            explanation += f"\n\nnorm memory:\n{trace}"
        replies.append(
            Reply(
                f"{meta.get('condition')} · epoch {sample.epoch}",
                sample.output.completion if sample.output else "",
                _verdict(value),
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


def scene_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    episode = (sample.metadata or {}).get("episode", {})
    _, explanation, meta = _score(sample)
    labels = meta.get("labels") or {}
    marks: dict[int, list[str]] = {}
    for name, key in [
        ("demonstration", "demonstrations"),
        ("breach", "breaches"),
        ("sanction", "sanctions"),
        ("repair", "repairs"),
        ("persona breach", "persona_breaches"),
    ]:
        for turn_id in labels.get(key) or []:
            marks.setdefault(int(turn_id), []).append(name)
    for turn_id, form in (labels.get("sanction_modalities") or {}).items():
        marks.setdefault(int(turn_id), []).append(f"sanction form: {form}")
    chat = []
    for entry in episode.get("entries", []):
        turn_id = int(entry["turn_id"])
        staged = entry.get("phase") == "precedent"
        # The staged precedent's breaches and sanctions are evidence shown to the subject,
        # set apart from the outcome counts (only its demonstrations count, for d).
        turn_marks = [
            f"staged {mark} (not counted)" if staged and mark != "demonstration" else mark
            for mark in marks.get(turn_id, [])
        ]
        target = ""
        if entry.get("target_turn_id"):
            target = f"reacts to #{entry['target_turn_id']}"
        elif entry.get("addressees"):
            target = "to " + ", ".join(entry["addressees"])
        chat.append(
            ChatRow(
                str(turn_id),
                entry["actor"],
                entry.get("content", ""),
                entry.get("kind", "message"),
                target,
                turn_marks + (["elicitor"] if entry.get("is_elicitor") else []),
                "precedent (staged)" if staged else entry.get("phase") or "",
            )
        )
    fidelity = meta.get("fidelity") or {}
    outcome = meta.get("outcome") or {}
    tuple_ = episode.get("tuple", {})
    facts = [
        ("scenario", str(episode.get("scenario_id", ""))),
        ("tuple", ", ".join(f"{k} {v}" for k, v in tuple_.items())),
        ("subject", f"{episode.get('subject', '')} ({subject_of(log)})"),
        ("labeller", str(labels.get("labeller", ""))),
        (
            "fidelity",
            f"{fidelity.get('label', outcome.get('validity', 'UNKNOWN'))}: "
            f"{fidelity.get('justification', explanation)}",
        ),
        (
            "outcome",
            ", ".join(
                f"{k} {outcome.get(k)}"
                for k in ("breaches", "sanctions", "repaired")
                if k in outcome
            ),
        ),
        ("ended", str(episode.get("termination", ""))),
    ]
    if episode.get(MEMORY_KEY):
        trace = memory_trace(MemoryLog.model_validate(episode[MEMORY_KEY]))
        facts.append(("norm memory (reply by reply)", trace))
    return SampleView(f"SCENE: {episode.get('scenario_id', sample.id)}", facts, chat)


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
    value, explanation, score_meta = _score(sample)
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
    for stage in ("first", "long"):
        record = score_meta.get(stage)
        if record:
            replies.append(
                Reply(
                    f"judge, {stage} comparison vs {record.get('other')} (both orders)",
                    record.get("other_statement", ""),
                    ", ".join(str(v) for v in record.get("verdicts", [])),
                    " / ".join(record.get("reasons", [])),
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
    stages = value if isinstance(value, dict) else {}
    return SampleView(
        f"HSII: {case.get('case_id', sample.id)}",
        [
            ("scene", str(background.get("scene", ""))),
            ("characters", ", ".join(background.get("characters", []))),
            ("relationships", str(background.get("relationships", ""))),
            ("subject model", str(log.eval.model)),
            (
                "stages",
                ", ".join(
                    f"{k} {v:g}"
                    for k, v in stages.items()
                    if isinstance(v, float) and not math.isnan(v)
                ),
            ),
        ],
        chat,
        replies,
        extra,
    )


VIEWS = {"losona": losona_view, "scene": scene_view, "hsii": hsii_view}
