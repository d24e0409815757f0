"""What a CRSEC run holds about a norm that emerged: the evidence ``crsec export`` turns into
scenarios (``normlab.crsec.export.emerged`` selects the norms).

The evidence is read from ``events.jsonl`` with the trace's test of what is about a norm
(the society file's keywords, or the words of a norm-database entry the judge matched to it):
the conversations that spread it (and what the receiver identified in each), the conflicts
members observed (their own evaluation of a breach), the behaviour the judge found
compliant, the thoughts about it, and the society's own words for it (created, accepted or
synthesized entries). A conversation's demonstration turn is the judge's call, not the
keywords': the keywords are word starts ("sing" finds "A single espresso", "tip" finds "Any
tips for the crossword?"), so they only pick the candidate lines, and the judge
(``prompts/judge_demonstration.txt``, cached in the run's judge cache) is asked of each in
turn whether it demonstrates the norm; the first it ties to the norm is marked, and a
conversation with none marks nothing. A tied line that copies the norm's statement
(``normlab.core.leaks.SHARED_RUN_WORDS`` words in a row) states the norm rather than shows it,
and no benchmark may show it to a subject: it is recorded in ``Conversation.stated`` and the
judge is asked on past it. Nothing else here depends on the benchmark the norm is exported to.
"""

from __future__ import annotations

from collections.abc import Callable

from pydantic import BaseModel, Field

from normlab.core.leaks import shared_run
from normlab.crsec.analysis.figure2 import LoadedRun, Matches, Verdicts
from normlab.crsec.analysis.judge import NOT_SHOWN, Judge, gather_all
from normlab.crsec.analysis.trace import about_target, keyword_pattern
from normlab.crsec.sim.events import Event, Finding
from normlab.crsec.sim.schemas import TargetNorm
from normlab.norms.records import AssessedItem


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
    candidates: list[int] = Field(default_factory=list)
    """The utterances the trace's test finds about the norm (the society file's keywords as
    word starts, or the words of a norm the judge matched to it): the lines the judge is
    asked about, in order."""
    marked: int | None = None
    """The first candidate the judge ties to the norm (it follows, asks for or states it)
    that does not copy its statement: the turn that demonstrates it. None: the judge tied no
    such line to it (the receiver drew the norm from talk about something else, a keyword
    matched a line about something else, or every tied line copies the statement), so no turn
    of it demonstrates the norm."""
    stated: list[int] = Field(default_factory=list)
    """Candidates the judge tied to the norm that copy its statement (a shared run of
    ``SHARED_RUN_WORDS`` words): passed over for ``marked``, and a leak wherever a subject
    would read them."""
    about_conflict: bool = False
    """Whether the observation or topic it was raised over is about the norm: only then is
    the receiver's behaviour a breach of it to replay."""


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
    lines_asked: int = 0
    """Candidate lines the judge was asked about (from its cache or by a call)."""

    def breaches(self) -> list[str]:
        """The observations members found in conflict, each once, first seen first."""
        return list(dict.fromkeys(conflict.observation for conflict in self.conflicts))

    def compliant(self) -> list[str]:
        return list(dict.fromkeys(example.text for example in self.compliance))

    def demonstrating(self) -> list[Conversation]:
        """The conversations with a line about the norm: the only ones that demonstrate it."""
        return [talk for talk in self.conversations if talk.marked is not None]


async def mark_demonstrations(
    evidence: Evidence,
    target: TargetNorm,
    judge: Judge,
    progress: Callable[[], None] | None = None,
) -> None:
    """Mark each conversation's demonstration turn: its candidate lines asked of the judge
    one after another until it ties one to ``target`` that does not copy its statement (at
    most one call per candidate, none after that one; conversations at once). Counts the
    lines asked in ``Evidence.lines_asked``."""

    async def mark(talk: Conversation) -> int:
        occasion = talk.observation or talk.topic
        for asked, index in enumerate(talk.candidates, start=1):
            speaker, said = talk.transcript[index]
            if await judge.demonstrates(target, speaker, said, occasion):
                if shared_run(said, [target.statement]) is None:
                    talk.marked = index
                    return asked
                talk.stated.append(index)
        return len(talk.candidates)

    jobs = [lambda talk=talk: mark(talk) for talk in evidence.conversations]
    evidence.lines_asked = sum(await gather_all(jobs, progress))


def gather_evidence(
    events: list[Event],
    loaded: LoadedRun,
    target: TargetNorm,
    matched: Matches,
    verdicts: Verdicts,
) -> Evidence:
    """What the run holds about ``target``, in simulated time (``matched``: every qualified
    norm's words → the norms at stake the judge matched them to; ``verdicts``: the judge's
    compliance verdicts on ``target``)."""
    pattern = keyword_pattern(target)

    def about(text: str) -> bool:
        return about_target(text, target, pattern, matched)

    evidence = Evidence()
    listening: dict[str, Conversation] = {}
    """Each receiver's last conversation: its identification follows it."""
    for event in events:
        if event.kind == "conversation":
            chat = event.data
            talk = Conversation(
                time=event.time,
                sender=event.agent,
                **chat.model_dump(
                    include={"receiver", "place", "observation", "topic", "transcript"}
                ),
                about_conflict=about(chat.observation) or about(chat.topic),
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
        # The judge decides which of these demonstrates the norm (mark_demonstrations); no
        # fallback to the opening line: a conversation with no such line shows no one doing
        # what the norm asks.
        talk.candidates = [i for i, (_, said) in enumerate(talk.transcript) if about(said)]
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
    verdicts: Verdicts,
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
