"""The Figure 3 case study as a timeline: one agent and one norm through a run.

``normlab crsec trace RUN --agent "Carlos Gomez" --norm no_smoking_indoors`` lists, in
simulated time: what the agent saw and thought, the conflicts it detected or caused, its
conversations, the normative information it identified, which checks of the immediate
evaluation each item passed, when an item became qualified, syntheses, and the plans and
actions that followed. An event is about the norm when it contains one of the norm's
keywords (from the society file) or, for norm-database items, when the metrics' judge
matched the item to the norm (read from the run's judge cache, if it was analyzed).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.crsec.analysis.judge import cached_matches
from normlab.crsec.sim.events import Event, Finding
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import TargetNorm
from normlab.norms.normdb import normalized
from normlab.norms.records import SkippedItem


class TraceEntry(BaseModel):
    time: str
    kind: str
    text: str


def keyword_pattern(target: TargetNorm | None) -> re.Pattern[str] | None:
    """The target's keywords as word beginnings (``smok`` finds "smoking"), or None when it
    has none: what marks a line as a candidate for being about the norm."""
    if target is None or not target.keywords:
        return None
    words = "|".join(re.escape(word) for word in target.keywords)
    return re.compile(rf"\b(?:{words})", re.IGNORECASE)


def _checks(checks: dict[str, bool]) -> str:
    passed = [name for name, ok in checks.items() if ok]
    failed = [name for name, ok in checks.items() if not ok]
    text = f"passed {', '.join(passed) or 'no check'}"
    if failed:
        text += f"; failed {', '.join(failed)}"
    return text


def _describe(event: Event, agent: str) -> Iterable[tuple[str, str]]:
    """(kind, text) lines an event contributes to ``agent``'s timeline."""
    if event.kind == "perceive" and event.agent == agent:
        for observation in event.data.observations:
            yield "saw", observation
    elif event.kind == "detect":
        for finding in event.data.findings:
            if not isinstance(finding, Finding) or not finding.conflict:
                continue
            topic = f" ({finding.topic})" if finding.topic else ""
            talk = "; decided to talk" if finding.talk else ""
            if event.agent == agent:
                yield "conflict", f"found a conflict with {finding.observation}{topic}{talk}"
            elif finding.observed == agent:
                yield "conflict", f"{event.agent} found {agent} in conflict{topic}{talk}"
    elif event.kind == "conversation" and agent in (event.agent, event.data.receiver):
        chat = event.data
        partner = chat.receiver if event.agent == agent else event.agent
        lines = " / ".join(f"{who}: {said}" for who, said in chat.transcript)
        yield "conversation", f"with {partner} about {chat.topic or '?'}: {lines}"
    elif event.agent != agent:
        return
    elif event.kind == "thought":
        for thought in event.data.thoughts:
            yield "thought", thought
    elif event.kind == "identify":
        for found in event.data.norms:
            yield "identified", f"from a {event.data.source}: {found.content} ({found.type})"
    elif event.kind == "evaluate":
        item = event.data
        if isinstance(item, SkippedItem):
            yield "evaluation", f"{item.content!r}: not evaluated again ({item.skipped})"
        elif item.qualified:
            yield (
                "qualified",
                f"#{item.id} {item.content!r}, utility {item.utility}: " + _checks(item.checks),
            )
        else:
            yield (
                "rejected",
                f"#{item.id} {item.content!r}: {item.rejection} ({_checks(item.checks)})",
            )
    elif event.kind == "synthesis":
        for abstract in event.data.abstracts:
            verdict = "qualified" if abstract.qualified else f"rejected: {abstract.rejection}"
            yield (
                "synthesis",
                (
                    f"#{abstract.id} {abstract.content!r} from {abstract.members} "
                    f"[{abstract.theme}], utility {abstract.utility}: {verdict}"
                ),
            )
    elif event.kind == "create_norm":
        for norm in event.data.norms:
            yield (
                "created",
                f"#{norm.id} {norm.content!r} ({norm.type}, utility {norm.utility})",
            )
    elif event.kind == "plan":
        for hour, activity in event.data.plan.items():
            yield "plan", f"{hour}:00 {activity}"
    elif event.kind == "actions":
        for subtask in event.data.subtasks:
            yield "action", f"{subtask.action} at {subtask.place} ({subtask.minutes} min)"


def trace(folder: Path, agent: str, norm: str | None = None) -> list[TraceEntry]:
    """The agent's timeline, restricted to events about ``norm`` (a target norm id) if given."""
    run = RunDir(folder)
    config = run.config()
    names = [spec.name for spec in config.society.agents]
    if agent not in names:
        raise InputError(folder, f"--agent {agent!r} is not in the society: {', '.join(names)}")
    target = None
    if norm is not None:
        ids = [item.id for item in config.society.norms]
        if norm not in ids:
            raise InputError(folder, f"--norm {norm!r} is not a norm at stake: {', '.join(ids)}")
        target = next(item for item in config.society.norms if item.id == norm)
    pattern = keyword_pattern(target)
    matched = cached_matches(folder)
    entries: list[TraceEntry] = []
    for event in run.events():
        if event.kind in ("call", "hour"):
            continue
        for kind, text in _describe(event, agent):
            if target is not None and not about_target(text, target, pattern, matched):
                continue
            entries.append(TraceEntry(time=event.time, kind=kind, text=text))
    return entries


def about_target(
    text: str, target: TargetNorm, pattern: re.Pattern[str] | None, matched: dict[str, list[str]]
) -> bool:
    """Whether ``text`` is about ``target``: one of its keywords starts a word in it, or it
    holds the words of a personal norm the judge matched to it (``matched``: norm → target
    ids), compared as norm identity compares them (``normalized``: letter case, Unicode form,
    accents, punctuation aside), whole words: "NO SMOKING INDOORS, please" holds "No smoking
    indoors." (issue 41, item 14: a case-sensitive test missed it)."""
    if pattern is not None and pattern.search(text):
        return True
    line = f" {normalized(text)} "
    return any(
        target.id in ids and (words := normalized(content)) and f" {words} " in line
        for content, ids in matched.items()
    )
