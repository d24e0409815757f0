"""Spreading by talk (§2.2, Figures 8–9): conflicts found, senders paired, conversations held.

One tick's talk pipeline, after the agents have perceived what changed around them:

1. every free agent that holds qualified norms and saw something new runs DetectConflict +
   DecideToTalk (``detect_phase``);
2. senders who decided to talk are paired with free receivers, one conflict each, drawn with
   the run's seed; the re-chat buffer keeps a pair apart for a while (``pair``);
3. each pair talks for a bounded number of utterances; the receiver identifies normative
   information in the conversation and evaluates each item against its database as the item
   before left it (``converse``);
4. the conversations are applied, and logged, in the society's order (``talk_phase``).

It is a module of its own because it is the longest chain of the tick (the conversations of
a phase advance in lockstep), and the tick loop reads better as a list of phases.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field

from normlab.core.fields import taken_from
from normlab.crsec.sim.events import ConversationData, DetectData, Finding, IdentifyData, Unanswered
from normlab.crsec.sim.world import World
from normlab.norms.calls import CallLog, call_seed
from normlab.norms.operations.spreading import detect_conflicts, identify_from_chat, utterance
from normlab.norms.records import EvaluateData
from normlab.norms.replies import ConflictFinding, IdentifiedNorm
from normlab.norms.schemas import NormDatabase

CHARS_PER_MINUTE = 8 * 30
"""The authors' code: a conversation lasts ⌈characters / 8 / 30⌉ minutes."""

Conflict = tuple[str, str, ConflictFinding]
"""(the observed agent, the observation, the observer's finding on it)."""


@dataclass
class Talk:
    """One conversation: who, where, about what, and what the receiver made of it."""

    sender: str
    receiver: str
    place: str
    observation: str
    topic: str
    transcript: list[tuple[str, str]] = field(default_factory=list)
    ended: str = "turn limit"
    identified: list[IdentifiedNorm] = field(default_factory=list)
    assessments: list[EvaluateData] = field(default_factory=list)
    database: NormDatabase = field(default_factory=NormDatabase)
    log: CallLog = field(default_factory=CallLog)


async def detect_phase(
    world: World, tick: int, observations: dict[str, list[tuple[str, str]]]
) -> dict[str, list[Conflict]]:
    """DetectConflict + DecideToTalk for every observer with qualified norms: its conflicts."""
    observers = [
        name for name in world.order if name in observations and world.agent(name).norms.qualified()
    ]

    async def unit(name: str) -> tuple[list[ConflictFinding], CallLog]:
        caller = world.caller(name, tick, "detect")
        findings = await detect_conflicts(
            caller,
            world.specs[name],
            world.identity(name),
            world.agent(name).norms.qualified(),
            [text for _, text in observations[name]],
            batched=not world.config.faithful,
        )
        return findings, caller.log

    conflicts: dict[str, list[Conflict]] = {}
    for name, (findings, log) in await world.each(observers, unit):
        world.emit_calls(tick, log)
        answered: dict[int, ConflictFinding] = {}
        for reply in findings:
            answered.setdefault(reply.observation, reply)
        rows: list[Finding | Unanswered] = []
        for index, (other, text) in enumerate(observations[name], start=1):
            found = answered.get(index)
            if found is None:
                rows.append(Unanswered(observed=other, observation=text))
                continue
            talk = found.conflict and found.talk
            rows.append(
                Finding(
                    observed=other,
                    observation=text,
                    conflict=found.conflict,
                    talk=talk,
                    topic=found.topic,
                )
            )
            if found.conflict:
                conflicts.setdefault(name, []).append((other, text, found))
        world.emit(
            tick,
            name,
            DetectData(
                norms=world.qualified_contents(name), identity=world.identity(name), findings=rows
            ),
        )
    return conflicts


def pair(world: World, tick: int, conflicts: dict[str, list[Conflict]]) -> list[Talk]:
    """Senders who decided to talk, each with one free receiver (a seeded draw)."""
    if world.ablated("no_communication"):
        return []
    draw = random.Random(call_seed(world.config.seed, tick, "pairing"))
    buffer = world.config.pair_buffer_minutes // world.clock.tick_minutes
    taken: set[str] = set()
    talks: list[Talk] = []
    for sender in world.order:
        if sender in taken or sender not in conflicts:
            continue
        last = world.agent(sender).last_chat
        options = [
            (other, text, finding)
            for other, text, finding in conflicts[sender]
            if finding.talk
            and other not in taken
            and not world.busy(other, tick)
            and (other not in last or tick - last[other] >= buffer)
        ]
        if not options:
            continue
        receiver, text, finding = draw.choice(options)
        taken.update((sender, receiver))
        talks.append(Talk(sender, receiver, world.agent(sender).place, text, finding.topic or ""))
    return talks


async def converse(world: World, tick: int, talk: Talk) -> Talk:
    """The conversation, then the receiver's identification and evaluation."""
    callers = {
        talk.sender: world.caller(talk.sender, tick, "talk", talk.log),
        talk.receiver: world.caller(talk.receiver, tick, "talk", talk.log),
    }
    contexts = {
        talk.sender: f"You noticed: {talk.observation}. It conflicts with your norms"
        f" ({talk.topic or 'a norm of yours'}), so you went over to talk about it.",
        talk.receiver: f"{talk.sender} came over to talk with you.",
    }
    for turn in range(world.config.max_utterances):
        speaker = talk.sender if turn % 2 == 0 else talk.receiver
        partner = talk.receiver if speaker == talk.sender else talk.sender
        said = await utterance(
            callers[speaker], partner, talk.place, contexts[speaker], talk.transcript
        )
        if said is None:
            talk.ended = "a reply never parsed"
            break
        talk.transcript.append((speaker, said.utterance.strip()))
        if said.end and turn >= 1:
            talk.ended = f"{speaker} ended it"
            break
    talk.database = world.agent(talk.receiver).norms.model_copy(deep=True)
    if not talk.transcript or not world.keeps_norms(talk.receiver):
        return talk
    receiver = callers[talk.receiver]
    items = await identify_from_chat(receiver, talk.transcript)
    text = "\n".join(f"{who}: {said}" for who, said in talk.transcript)
    for item in items:
        talk.identified.append(item)
        talk.assessments.append(
            await world.assess(receiver, talk.database, item, "chat", text, tick)
        )
    return talk


async def talk_phase(world: World, tick: int, talks: list[Talk]) -> None:
    """Every pair's conversation at once; applied and logged in the society's order."""
    results = await asyncio.gather(*(converse(world, tick, talk) for talk in talks))
    for talk in results:
        world.emit_calls(tick, talk.log)
        characters = sum(len(said) for _, said in talk.transcript)
        minutes = max(1, -(-characters // CHARS_PER_MINUTE))
        ticks = max(1, -(-minutes // world.clock.tick_minutes))
        for me, other in ((talk.sender, talk.receiver), (talk.receiver, talk.sender)):
            state = world.agent(me)
            state.busy_until = tick + ticks - 1
            state.talking_with = other
            state.last_chat[other] = tick
            line = (
                f"You talked with {other} about {talk.topic or 'what they were doing'}: "
                + " / ".join(f"{who}: {said}" for who, said in talk.transcript)
            )
            state.hour_conversations.append(line)
            world.remember(me, tick, conversation=line)
        world.agent(talk.receiver).norms = talk.database
        world.emit(tick, talk.sender, taken_from(ConversationData, talk, minutes=minutes))
        world.emit(tick, talk.receiver, IdentifyData(source="chat", norms=talk.identified))
        for assessment in talk.assessments:
            world.emit(tick, talk.receiver, assessment)
