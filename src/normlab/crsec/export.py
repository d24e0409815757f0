"""The norms a CRSEC society converged on, with what spread them: what ``crsec export`` turns
into LoSoNA and SCENE scenarios (``export_losona.py``, ``export_scene.py``).

A norm at stake *emerged* when the share of agents adhering to it (the emergence metrics'
``adhering``: explicitly compliant in the hour's plan or actions, violating in neither, as
the metrics' judge decides) reached ``--min-adherence`` at the end of some simulated hour.
Adherence, not holding, because a test case asks a newcomer to *act* as the society acts:
an agent whose database words the norm in a way the judge does not match still smokes
outside, and one that holds the words but smokes indoors is no example to follow.

The evidence is read from ``events.jsonl`` with the trace's test of what is about a norm
(the society file's keywords, or the judge's match of a norm-database entry): the
conversations that spread it (and what the receiver identified in each), the conflicts
members observed (their own evaluation of a breach), the behaviour the judge found
compliant, the thoughts about it, and the society's own words for it (created, accepted or
synthesized entries). Nothing here depends on the benchmark the norm is exported to.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.provenance import ScenarioProvenance
from normlab.crsec.analysis import LoadedRun, _complied, analyze_run, load_run
from normlab.crsec.events import AgentSnapshot, AssessedItem, Event, Finding
from normlab.crsec.judge import NOT_SHOWN, Judge, Verdict, cached_matches
from normlab.crsec.rundir import RunDir
from normlab.crsec.schemas import Society, TargetNorm
from normlab.crsec.trace import _about, _pattern
from normlab.models import DEFAULT_MODEL, ModelClient

DEFAULT_MIN_ADHERENCE = 0.7
"""The paper's 70%; reached *at or above* it here, where the emergence table asks for more
than 70% (7 of 10 agents is an emerged norm to export, not yet one the table counts)."""


class Conversation(BaseModel):
    """A conversation that spread the norm: raised over a conflict, or in which the receiver
    identified normative information about it."""

    time: str
    sender: str
    receiver: str
    place: str
    observation: str
    topic: str
    transcript: list[tuple[str, str]]
    identified: list[str] = Field(default_factory=list)
    """What the receiver identified in it that is about the norm."""
    marked: int = 0
    """The first utterance about the norm (by the keywords or the judge's matches), else the
    opening one: the turn that demonstrates it."""


class Conflict(BaseModel):
    """An observation a member found in conflict with its qualified norms: a breach, in the
    society's own judgement."""

    time: str
    observer: str
    observed: str
    observation: str
    talked: bool


class Said(BaseModel):
    """A line of the run about the norm: a behaviour, a thought, or the norm in someone's
    words (``origin``: created, chat, thought or synthesis)."""

    time: str
    agent: str
    text: str
    origin: str = ""


class Evidence(BaseModel):
    conversations: list[Conversation] = Field(default_factory=list)
    conflicts: list[Conflict] = Field(default_factory=list)
    compliance: list[Said] = Field(default_factory=list)
    """Behaviour the metrics' judge found explicitly compliant, as ``action (at place)``."""
    thoughts: list[Said] = Field(default_factory=list)
    wordings: list[Said] = Field(default_factory=list)

    def breaches(self) -> list[str]:
        """The observations members found in conflict, each once, first seen first."""
        return list(dict.fromkeys(conflict.observation for conflict in self.conflicts))

    def compliant(self) -> list[str]:
        return list(dict.fromkeys(example.text for example in self.compliance))


class EmergedNorm(BaseModel):
    target: TargetNorm
    provenance: ScenarioProvenance
    adherents: list[str]
    """The agents adhering at the end of the hour the norm emerged, in society order."""
    evidence: Evidence


class Missed(BaseModel):
    """A norm at stake that never reached the threshold: its highest share, and when."""

    norm_id: str
    share: float
    hour_label: str


class Selection(BaseModel):
    run: str
    society: Society
    threshold: float
    emerged: list[EmergedNorm]
    missed: list[Missed]

    def missed_line(self) -> str:
        """``no_smoking_indoors 67% (day 1 10:00–11:00), …``: how close the others came."""
        return ", ".join(
            f"{item.norm_id} {item.share:.0%}"
            + (f" ({item.hour_label})" if item.hour_label else "")
            for item in self.missed
        )


def check_threshold(min_adherence: float) -> None:
    if not 0.0 < min_adherence <= 1.0:
        raise InputError(
            "--min-adherence",
            f"must be a share above 0 and at most 1, got {min_adherence}",
            field="min_adherence",
        )


def finished_run(folder: Path) -> RunDir:
    """``folder`` as a finished run; a folder that is not one is a one-line error."""
    run = RunDir(folder)
    run.config()  # "not a CRSEC run directory (no config.json)", or the bad field
    state = run.checkpoint()
    if state is None or not state.finished:
        raise InputError(
            folder, f"the run has not finished: resume it first (normlab crsec resume {folder})"
        )
    return run


def judge_model(folder: Path, judge: str | None) -> str:
    """The judge the emergence metrics use: ``--judge``, else the run's, else the default."""
    return judge or RunDir(folder).config().models.get("judge", DEFAULT_MODEL)


async def select_emerged(
    folder: Path,
    min_adherence: float,
    client: ModelClient,
    model: str,
    progress: Callable[[], None] | None = None,
) -> Selection:
    """The norms of the run at ``folder`` whose adherence share reached ``min_adherence``, each
    with its provenance and evidence; the judge's verdicts come from the run's cache where
    the analysis already made them."""
    check_threshold(min_adherence)
    finished_run(folder)
    loaded = load_run(folder)
    society = loaded.config.society
    judge = Judge(client, model, folder, society.norms)
    result = await analyze_run(loaded, judge, progress)
    names = [agent.name for agent in society.agents]
    verdicts = await _verdicts(loaded, judge, names)
    events = list(RunDir(folder).events())
    matched = cached_matches(folder, model)
    emerged: list[EmergedNorm] = []
    missed: list[Missed] = []
    for target in society.norms:
        shares = [hour.adhering[target.id] for hour in result.hours]
        reached = next((i for i, share in enumerate(shares) if share >= min_adherence), None)
        if reached is None:
            best = max(range(len(shares)), key=lambda i: shares[i])
            missed.append(
                Missed(norm_id=target.id, share=shares[best], hour_label=result.hours[best].label)
            )
            continue
        hour = loaded.hours[reached]
        adherents = [
            name
            for name in names
            if _complied(verdicts[(hour.hour, name)].get(target.id, NOT_SHOWN))[2]
        ]
        provenance = ScenarioProvenance(
            run=folder.resolve().name,
            society=society.name,
            norm_id=target.id,
            statement=target.statement,
            adherent=len(adherents),
            agents=len(names),
            adherence=shares[reached],
            hour=reached + 1,
            hour_label=hour.label,
            threshold=min_adherence,
            agent_model=loaded.config.models.get("agent", ""),
            judge_model=model,
        )
        evidence = gather_evidence(events, loaded, target, matched, verdicts)
        emerged.append(
            EmergedNorm(
                target=target, provenance=provenance, adherents=adherents, evidence=evidence
            )
        )
    return Selection(
        run=folder.resolve().name,
        society=society,
        threshold=min_adherence,
        emerged=emerged,
        missed=missed,
    )


async def _verdicts(
    loaded: LoadedRun, judge: Judge, names: list[str]
) -> dict[tuple[int, str], dict[str, Verdict]]:
    """Every agent-hour's compliance verdicts, per norm: the analysis just asked the same
    questions, so they come from the judge's cache."""
    cells = [(hour.hour, name) for hour in loaded.hours for name in names]
    snapshot = {hour.hour: hour.agents for hour in loaded.hours}
    answers = await asyncio.gather(
        *(
            judge.compliance(name, state.plan, list(state.actions))
            for hour, name in cells
            for state in [snapshot[hour].get(name, AgentSnapshot())]
        )
    )
    return dict(zip(cells, answers, strict=True))


def gather_evidence(
    events: list[Event],
    loaded: LoadedRun,
    target: TargetNorm,
    matched: dict[str, list[str]],
    verdicts: dict[tuple[int, str], dict[str, Verdict]],
) -> Evidence:
    """What the run holds about ``target``, in simulated time."""
    pattern = _pattern(target)

    def about(text: str) -> bool:
        return _about(text, target, pattern, matched)

    evidence = Evidence()
    listening: dict[str, Conversation] = {}
    """Each receiver's last conversation: its identification follows it."""
    for event in events:
        if event.kind == "conversation":
            chat = event.data
            talk = Conversation(
                time=event.time,
                sender=event.agent,
                receiver=chat.receiver,
                place=chat.place,
                observation=chat.observation,
                topic=chat.topic,
                transcript=chat.transcript,
            )
            listening[chat.receiver] = talk
            texts = [chat.observation, chat.topic, *(said for _, said in chat.transcript)]
            if any(about(text) for text in texts):
                evidence.conversations.append(talk)
        elif event.kind == "identify" and event.data.source == "chat":
            talk_or_none = listening.pop(event.agent, None)
            found = [item.content for item in event.data.norms if about(item.content)]
            if talk_or_none is not None and found:
                talk_or_none.identified = found
                if talk_or_none not in evidence.conversations:
                    evidence.conversations.append(talk_or_none)
        elif event.kind == "detect":
            evidence.conflicts += [
                Conflict(
                    time=event.time,
                    observer=event.agent,
                    observed=finding.observed,
                    observation=finding.observation,
                    talked=finding.talk,
                )
                for finding in event.data.findings
                if isinstance(finding, Finding)
                and finding.conflict
                and (about(finding.observation) or about(finding.topic))
            ]
        elif event.kind == "thought":
            evidence.thoughts += [
                Said(time=event.time, agent=event.agent, text=thought)
                for thought in event.data.thoughts
                if about(thought)
            ]
        elif event.kind == "create_norm":
            evidence.wordings += [
                Said(time=event.time, agent=event.agent, text=norm.content, origin="created")
                for norm in event.data.norms
                if about(norm.content)
            ]
        elif event.kind == "evaluate" and isinstance(event.data, AssessedItem):
            item = event.data
            if item.qualified and about(item.content):
                evidence.wordings.append(
                    Said(time=event.time, agent=event.agent, text=item.content, origin=item.origin)
                )
        elif event.kind == "synthesis":
            evidence.wordings += [
                Said(time=event.time, agent=event.agent, text=norm.content, origin="synthesis")
                for norm in event.data.abstracts
                if norm.qualified and about(norm.content)
            ]
    for talk in evidence.conversations:
        talk.marked = next((i for i, (_, said) in enumerate(talk.transcript) if about(said)), 0)
    breached = {_what(c.observation, c.observed) for c in evidence.conflicts}
    evidence.compliance = [
        example
        for example in _compliance(loaded, target, verdicts, about)
        # The judge rates an hour, not an action: an action a member found in conflict was
        # no example of compliance, whatever else the hour showed.
        if _what(example.text, example.agent) not in breached
    ]
    return evidence


def _what(text: str, agent: str) -> str:
    """An observation or action without its agent's name: what was done, by anyone."""
    return text.removeprefix(f"{agent} ")


def _compliance(
    loaded: LoadedRun,
    target: TargetNorm,
    verdicts: dict[tuple[int, str], dict[str, Verdict]],
    about: Callable[[str], bool],
) -> list[Said]:
    """The actions about ``target`` in agent-hours whose actions the judge found compliant."""
    examples: list[Said] = []
    for hour in loaded.hours:
        for name, state in hour.agents.items():
            _, actions = verdicts.get((hour.hour, name), {}).get(target.id, NOT_SHOWN)
            if actions != "complied":
                continue
            examples += [
                Said(time=hour.label, agent=name, text=f"{action} (at {place})")
                for place, action in state.actions
                if about(action)
            ]
    return examples
