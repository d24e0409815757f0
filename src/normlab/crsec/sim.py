"""The simulation loop: a society of agents over simulated days, tick by tick.

Each tick (5 simulated minutes by default) runs these phases:

1. at a day's start, every agent plans the day (GenerateNormativePlans);
2. at an hour's start, every agent breaks the hour's activity into subtasks with places
   (GenerateNormativeActions);
3. agents start their next subtask; an agent in a conversation is seen talking;
4. each agent perceives the co-located agents whose visible action changed (at most
   ``max_observations``, the nearest first: the society's order is a ring of seats);
5. every free agent that holds qualified norms and saw something new runs
   DetectConflict + DecideToTalk;
6. senders who decided to talk are paired with free receivers (one conflict each, drawn
   with the run's seed; the re-chat buffer keeps pairs apart); each pair talks for a
   bounded number of turns; the receiver identifies normative information in the talk
   and evaluates it;
7. at an hour's end, every agent thinks about what it saw and heard, identifies normative
   information in its thoughts and evaluates it; an agent whose norms call for it
   synthesizes; the hour's snapshot and metrics are written.

Within a phase the agents' calls run concurrently on the state as it was when the phase
began; the results are applied, and their events written, in the society's agent order.
Every call's seed comes from the run's seed, the tick, the phase, the agent and the
operation, and every random choice from a generator seeded the same way, so a scripted
model (or a provider that honours seeds) gives the same event log on every run, resumed or
not. After each tick the events, the metrics and then the checkpoint reach the disk.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, TypeVar

from normlab.crsec.calls import Caller, CallLog, call_seed
from normlab.crsec.clock import Clock
from normlab.crsec.normdb import (
    add_norm,
    apply_abstract,
    exact_duplicate,
    mark_synthesis_attempt,
    synthesis_due,
)
from normlab.crsec.operations.compliance import plan_actions, plan_day
from normlab.crsec.operations.creation import create_norms
from normlab.crsec.operations.evaluation import EvaluationMode, evaluate, synthesize
from normlab.crsec.operations.spreading import (
    detect_conflicts,
    generate_thoughts,
    identify_from_chat,
    identify_from_thoughts,
    utterance,
)
from normlab.crsec.prompts import numbered, render
from normlab.crsec.rundir import RunDir
from normlab.crsec.schemas import (
    AgentSpec,
    AgentState,
    ConflictFinding,
    Event,
    EventKind,
    HourMetrics,
    NormDatabase,
    NormType,
    Origin,
    RunConfig,
    WorldState,
)
from normlab.models import ModelClient

T = TypeVar("T")

Outcome = Literal["finished", "budget", "cost unknown"]

CLASSIFY_HINT = (
    "(norms are expected to be grouped into categories: smoking-related, noise-related, "
    "tip-related and others)"
)
"""The authors' code's steer for ClassifySpecificNorms (off unless ``classify_hint``)."""

CHARS_PER_MINUTE = 8 * 30
"""The authors' code: a conversation lasts ⌈characters / 8 / 30⌉ minutes."""

THOUGHT_INPUT_LINES = 20
"""At most this many of the hour's latest observations and conversations feed GenerateThought."""


def clock_of(config: RunConfig) -> Clock:
    society = config.society
    return Clock(
        date.fromisoformat(society.start),
        society.days,
        society.active_hours,
        society.tick_minutes,
    )


def initial_state(config: RunConfig) -> WorldState:
    society = config.society
    return WorldState(
        agents={
            agent.name: AgentState(
                name=agent.name,
                place=society.home,
                action=f"{agent.name} is idle",
                doing=f"{agent.name} is idle",
            )
            for agent in society.agents
        }
    )


LEADING_NAME = re.compile(r"^[A-Z][a-z]+(?: [A-Z][a-z]+)? (?=is |was )")
"""A subtask written about someone else (weak models copy Figure 18's "Kelly is …")."""


def action_text(agent: AgentSpec, action: str) -> str:
    """What others see: ``<Name> is <action>``, whoever the model wrote the subtask about."""
    text = action.strip().rstrip(".")
    if text.startswith(agent.name):
        return text
    if text.startswith(agent.first_name + " "):
        return agent.name + text[len(agent.first_name) :]
    text = LEADING_NAME.sub("", text)
    if text.startswith(("is ", "was ")):
        return f"{agent.name} {text}"
    return f"{agent.name} is {text[:1].lower()}{text[1:]}"


def nearest_first(order: list[str], name: str) -> list[str]:
    """The others in ``order`` by their distance from ``name`` on a ring of seats: the next,
    the previous, the one after next… With a cap on what an agent notices, the cap then keeps
    its neighbours; taking the others in the society's order would have every agent of a large
    society watch the same first few."""
    count, index = len(order), order.index(name)
    return [
        order[(index + (step + 1) // 2 * (1 if step % 2 else -1)) % count]
        for step in range(1, count)
    ]


@dataclass
class Assessment:
    """One identified item through the duplicate pre-check and the immediate evaluation."""

    data: dict[str, Any]
    qualified: bool
    skipped: bool


@dataclass
class Talk:
    sender: str
    receiver: str
    place: str
    observation: str
    topic: str
    transcript: list[tuple[str, str]] = field(default_factory=list)
    ended: str = "turn limit"
    identified: list[dict[str, Any]] = field(default_factory=list)
    assessments: list[Assessment] = field(default_factory=list)
    database: NormDatabase = field(default_factory=NormDatabase)
    log: CallLog = field(default_factory=CallLog)


@dataclass
class Reflection:
    thoughts: list[str] = field(default_factory=list)
    identified: list[dict[str, Any]] = field(default_factory=list)
    norm_thoughts: int = 0
    assessments: list[Assessment] = field(default_factory=list)
    synthesis: dict[str, Any] | None = None
    database: NormDatabase = field(default_factory=NormDatabase)
    log: CallLog = field(default_factory=CallLog)


class Simulation:
    """One run: its config, its state, its model client and its run directory."""

    def __init__(
        self,
        run: RunDir,
        client: ModelClient,
        progress: Callable[[str], None] | None = None,
        tick_lines: bool = False,
    ) -> None:
        """``progress`` gets a line per simulated hour, and with ``tick_lines`` one per tick
        as well (output that is not a terminal shows no other sign of life)."""
        self.run_dir = run
        self.config = run.config()
        self.society = self.config.society
        self.clock = clock_of(self.config)
        self.client = client
        self.progress = progress
        self.tick_lines = tick_lines
        self.specs = {agent.name: agent for agent in self.society.agents}
        self.order = [agent.name for agent in self.society.agents]
        self.neighbours = {name: nearest_first(self.order, name) for name in self.order}
        checkpoint = run.checkpoint()
        self.state = initial_state(self.config) if checkpoint is None else checkpoint
        repaired = run.restore(self.state)
        if repaired and progress is not None:
            progress(repaired)
        self.events: list[Event] = []
        self.metrics: list[HourMetrics] = []

    # --- bookkeeping ---------------------------------------------------------------

    @property
    def mode(self) -> EvaluationMode:
        return self.config.evaluation_mode

    def ablated(self, name: str) -> bool:
        return name in self.config.ablations

    def agent(self, name: str) -> AgentState:
        return self.state.agents[name]

    def busy(self, name: str, tick: int) -> bool:
        return self.agent(name).busy_until >= tick

    def identity(self, name: str) -> str:
        entrepreneur = self.specs[name].role == "entrepreneur"
        if entrepreneur and not self.ablated("no_entrepreneurs"):
            return "a norm entrepreneur"
        return "an ordinary agent"

    def qualified_contents(self, name: str) -> list[str]:
        return [norm.content for norm in self.agent(name).norms.qualified()]

    def count(self, key: str, amount: int = 1) -> None:
        self.state.hour_counts[key] = self.state.hour_counts.get(key, 0) + amount

    def emit(self, tick: int, kind: EventKind, agent: str = "", **data: Any) -> None:
        self.events.append(
            Event(
                seq=self.state.events_written + len(self.events) + 1,
                tick=tick,
                time=self.clock.label(tick),
                kind=kind,
                agent=agent,
                data=data,
            )
        )

    def emit_calls(self, tick: int, log: CallLog) -> None:
        usage = self.state.usage
        for entry in log.entries:
            usage.calls += 1
            usage.input_tokens += entry["input_tokens"]
            usage.cached_input_tokens += entry["cached_input_tokens"]
            usage.output_tokens += entry["output_tokens"]
            if entry["cost"] is None:
                usage.unpriced_calls += 1
            else:
                usage.cost += entry["cost"]
            usage.parse_failures += entry["parse_failed"]
            usage.truncations += entry["truncated"]
            usage.retries += entry["retries"]
            self.emit(
                tick, "call", entry["agent"], **{k: v for k, v in entry.items() if k != "agent"}
            )

    def prefix(self, name: str) -> str:
        """The agent's stable system message: description first, then its qualified norms."""
        spec = self.specs[name]
        return render(
            "agent_ours",
            {
                "agent name": name,
                "identity": self.identity(name),
                "society": self.society.name,
                "agent description": spec.description,
                "qualified personal norms": numbered(
                    [norm.content for norm in self.agent(name).norms.qualified()]
                ),
            },
        )

    def caller(self, name: str, tick: int, phase: str, log: CallLog | None = None) -> Caller:
        return Caller(
            self.client,
            name,
            self.config.seed,
            tick,
            phase,
            log=log if log is not None else CallLog(),
            temperature=self.config.temperature,
            cap=self.config.max_tokens,
            prefix=self.prefix(name),
        )

    async def each(
        self, names: Iterable[str], unit: Callable[[str], Awaitable[T]]
    ) -> list[tuple[str, T]]:
        """Run ``unit`` for every agent concurrently; results in the given (fixed) order."""
        chosen = list(names)
        results = await asyncio.gather(*(unit(name) for name in chosen))
        return list(zip(chosen, results, strict=True))

    # --- the run -------------------------------------------------------------------

    def over_budget(self, max_calls: int | None, max_cost: float | None) -> Outcome | None:
        usage = self.state.usage
        if max_calls is not None and usage.calls >= max_calls:
            return "budget"
        if max_cost is not None:
            if usage.unpriced_calls:
                return "cost unknown"
            if usage.cost >= max_cost:
                return "budget"
        return None

    async def run(self, max_calls: int | None = None, max_cost: float | None = None) -> Outcome:
        """Run ticks until the end or a budget; each tick ends at a checkpoint."""
        while self.state.tick < self.clock.total_ticks:
            stop = self.over_budget(max_calls, max_cost)
            if stop is not None:
                return stop
            tick = self.state.tick
            await self.step(tick)
            self.state.tick += 1
            self.state.finished = self.state.tick >= self.clock.total_ticks
            self.run_dir.save(self.state, self.events, self.metrics)
            if self.progress is not None and self.metrics:
                self.progress(self.progress_line(self.metrics[-1]))
            elif self.progress is not None and self.tick_lines:
                self.progress(
                    f"{self.clock.label(tick)}: tick {tick + 1}/{self.clock.total_ticks} done · "
                    f"{self.state.usage.calls} calls so far"
                )
            self.events, self.metrics = [], []
            # The tick's calls are in the event log; the client's own records would otherwise
            # grow with every call of the run (tens of thousands in a large society's day).
            self.client.records.clear()
        return "finished"

    def progress_line(self, metrics: HourMetrics) -> str:
        usage = self.state.usage
        cost = f"${usage.cost:.2f}" if not usage.unpriced_calls else "cost unknown"
        return (
            f"{metrics.label}: {metrics.conflicts} conflicts, {metrics.chats} chats, "
            f"{metrics.accepted} norms accepted · {usage.calls} calls so far, {cost}"
        )

    async def step(self, tick: int) -> None:
        if not self.state.created:
            await self.create(tick)
        if self.clock.starts_day(tick):
            await self.plan_phase(tick)
        if self.clock.starts_hour(tick):
            await self.actions_phase(tick)
        self.move(tick)
        observations = self.perceive(tick)
        conflicts = await self.detect_phase(tick, observations)
        await self.talk_phase(tick, self.pair(tick, conflicts))
        if self.clock.ends_hour(tick):
            await self.reflect_phase(tick)
            self.close_hour(tick)

    # --- creation and compliance -----------------------------------------------------

    async def create(self, tick: int) -> None:
        """Before the first tick, the norm entrepreneurs create their personal norms."""
        names = [name for name in self.order if self.identity(name) == "a norm entrepreneur"]
        count = self.society.initial_norms_per_entrepreneur

        async def unit(name: str) -> tuple[Any, CallLog]:
            caller = self.caller(name, tick, "create")
            return await create_norms(caller, self.specs[name], count), caller.log

        for name, (norms, log) in await self.each(names, unit):
            self.emit_calls(tick, log)
            database = self.agent(name).norms
            for norm in norms:
                add_norm(
                    database,
                    content=norm.content.strip(),
                    type=norm.type,
                    utility=norm.utility,
                    origin="created",
                    source_text=self.specs[name].description,
                    time=self.clock.label(tick),
                    qualified=True,
                )
            self.emit(
                tick,
                "create_norm",
                name,
                norms=[norm.model_dump() for norm in database.norms],
                failed=not norms,
            )
        self.state.created = True

    async def plan_phase(self, tick: int) -> None:
        day = self.clock.day(tick)

        async def unit(name: str) -> tuple[Any, CallLog]:
            caller = self.caller(name, tick, "plan")
            norms = self.agent(name).norms.qualified()
            return await plan_day(caller, self.specs[name], norms, self.clock, day), caller.log

        for name, (planned, log) in await self.each(self.order, unit):
            self.emit_calls(tick, log)
            self.agent(name).plan = planned.plan
            self.emit(
                tick,
                "plan",
                name,
                norms=self.qualified_contents(name),
                day=day,
                plan={str(hour): text for hour, text in planned.plan.items()},
                filled=planned.filled,
                failed=planned.failed,
            )

    async def actions_phase(self, tick: int) -> None:
        day, hour = self.clock.day(tick), self.clock.hour(tick)

        async def unit(name: str) -> tuple[Any, CallLog]:
            caller = self.caller(name, tick, "actions")
            state = self.agent(name)
            planned = await plan_actions(
                caller,
                self.specs[name],
                state.norms.qualified(),
                state.plan.get(hour, self.specs[name].daily_requirement),
                self.clock,
                day,
                hour,
                self.society.places,
                self.society.home,
            )
            return planned, caller.log

        for name, (planned, log) in await self.each(self.order, unit):
            self.emit_calls(tick, log)
            state = self.agent(name)
            state.subtasks = [
                subtask.model_copy(update={"action": action_text(self.specs[name], subtask.action)})
                for subtask in planned.subtasks
            ]
            state.minutes_left = 0
            self.emit(
                tick,
                "actions",
                name,
                norms=self.qualified_contents(name),
                hour=hour,
                activity=state.plan.get(hour, ""),
                subtasks=[subtask.model_dump() for subtask in state.subtasks],
                adjusted=planned.adjusted,
                failed=planned.failed,
            )

    def move(self, tick: int) -> None:
        """Agents start their next subtask (place and action); talkers are seen talking."""
        for name in self.order:
            state = self.agent(name)
            if state.minutes_left <= 0 and state.subtasks:
                subtask = state.subtasks.pop(0)
                state.minutes_left = subtask.minutes
                state.place = subtask.place
                state.doing = subtask.action
                state.actions_this_hour.append((subtask.place, subtask.action))
            busy = self.busy(name, tick)
            state.action = f"{name} is talking with {state.talking_with}" if busy else state.doing
            state.minutes_left -= self.clock.tick_minutes

    # --- spreading ---------------------------------------------------------------------

    def perceive(self, tick: int) -> dict[str, list[tuple[str, str]]]:
        """Each free agent notices co-located agents whose visible action changed, the nearest
        first."""
        seen: dict[str, list[tuple[str, str]]] = {}
        for name in self.order:
            me = self.agent(name)
            if self.busy(name, tick):
                continue
            new: list[tuple[str, str]] = []
            for other in self.neighbours[name]:
                them = self.agent(other)
                if them.place != me.place or me.seen.get(other) == them.action:
                    continue
                if len(new) >= self.config.max_observations:
                    break
                me.seen[other] = them.action
                new.append((other, f"{them.action} (at {them.place})"))
            if new:
                seen[name] = new
                me.hour_observations.extend(text for _, text in new)
                self.emit(tick, "perceive", name, observations=[text for _, text in new])
        return seen

    async def detect_phase(
        self, tick: int, observations: dict[str, list[tuple[str, str]]]
    ) -> dict[str, list[tuple[str, str, ConflictFinding]]]:
        observers = [
            name
            for name in self.order
            if name in observations and self.agent(name).norms.qualified()
        ]

        async def unit(name: str) -> tuple[list[ConflictFinding], CallLog]:
            caller = self.caller(name, tick, "detect")
            findings = await detect_conflicts(
                caller,
                self.specs[name],
                self.identity(name),
                self.agent(name).norms.qualified(),
                [text for _, text in observations[name]],
                batched=not self.config.faithful,
            )
            return findings, caller.log

        conflicts: dict[str, list[tuple[str, str, ConflictFinding]]] = {}
        for name, (findings, log) in await self.each(observers, unit):
            self.emit_calls(tick, log)
            answered: dict[int, ConflictFinding] = {}
            for reply in findings:
                answered.setdefault(reply.observation, reply)
            rows = []
            for index, (other, text) in enumerate(observations[name], start=1):
                found = answered.get(index)
                row: dict[str, Any] = {"observed": other, "observation": text}
                if found is None:
                    row["answered"] = False
                else:
                    talk = found.conflict and found.talk
                    row.update(conflict=found.conflict, talk=talk, topic=found.topic)
                    if found.conflict:
                        conflicts.setdefault(name, []).append((other, text, found))
                        self.count("conflicts")
                        self.count("talk_decisions", talk)
                rows.append(row)
            self.emit(
                tick,
                "detect",
                name,
                norms=self.qualified_contents(name),
                identity=self.identity(name),
                findings=rows,
            )
        return conflicts

    def pair(
        self, tick: int, conflicts: dict[str, list[tuple[str, str, ConflictFinding]]]
    ) -> list[Talk]:
        """Senders who decided to talk, each with one free receiver (a seeded draw)."""
        if self.ablated("no_communication"):
            return []
        draw = random.Random(call_seed(self.config.seed, tick, "pairing"))
        buffer = self.config.pair_buffer_minutes // self.clock.tick_minutes
        taken: set[str] = set()
        talks: list[Talk] = []
        for sender in self.order:
            if sender in taken or sender not in conflicts:
                continue
            last = self.agent(sender).last_chat
            options = [
                (other, text, finding)
                for other, text, finding in conflicts[sender]
                if finding.talk
                and other not in taken
                and not self.busy(other, tick)
                and (other not in last or tick - last[other] >= buffer)
            ]
            if not options:
                continue
            receiver, text, finding = draw.choice(options)
            taken.update((sender, receiver))
            talks.append(
                Talk(sender, receiver, self.agent(sender).place, text, finding.topic or "")
            )
        return talks

    async def assess(
        self,
        caller: Caller,
        database: NormDatabase,
        content: str,
        type: NormType,
        origin: Origin,
        related: str,
        tick: int,
    ) -> Assessment:
        """The exact-duplicate pre-check, then the immediate evaluation; the item is stored."""
        content = content.strip()
        data: dict[str, Any] = {
            "content": content,
            "type": type,
            "origin": origin,
            "related": related,
            "norms": [norm.content for norm in database.qualified()],
        }
        duplicate = exact_duplicate(database, content)
        if duplicate is not None:
            data["skipped"] = f"same words as #{duplicate.id}"
            return Assessment(data, qualified=False, skipped=True)
        verdict = await evaluate(caller, content, type, related, database.qualified(), self.mode)
        norm = add_norm(
            database,
            content=content,
            type=type,
            utility=verdict.utility,
            origin=origin,
            source_text=related,
            time=self.clock.label(tick),
            qualified=verdict.qualified,
            rejection=verdict.rejection,
        )
        data.update(
            id=norm.id,
            mode=self.mode,
            checks=verdict.checks,
            qualified=verdict.qualified,
            utility=verdict.utility,
            rejection=verdict.rejection,
        )
        return Assessment(data, qualified=verdict.qualified, skipped=False)

    async def converse(self, tick: int, talk: Talk) -> Talk:
        """The conversation, then the receiver's identification and evaluation."""
        callers = {
            talk.sender: self.caller(talk.sender, tick, "talk", talk.log),
            talk.receiver: self.caller(talk.receiver, tick, "talk", talk.log),
        }
        contexts = {
            talk.sender: f"You noticed: {talk.observation}. It conflicts with your norms"
            f" ({talk.topic or 'a norm of yours'}), so you went over to talk about it.",
            talk.receiver: f"{talk.sender} came over to talk with you.",
        }
        for turn in range(self.config.max_utterances):
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
        talk.database = self.agent(talk.receiver).norms.model_copy(deep=True)
        if not talk.transcript:
            return talk
        receiver = callers[talk.receiver]
        items = await identify_from_chat(receiver, talk.transcript)
        text = "\n".join(f"{who}: {said}" for who, said in talk.transcript)
        for item in items:
            talk.identified.append(item.model_dump())
            assessment = await self.assess(
                receiver, talk.database, item.content, item.type, "chat", text, tick
            )
            talk.assessments.append(assessment)
        return talk

    async def talk_phase(self, tick: int, talks: list[Talk]) -> None:
        results = await asyncio.gather(*(self.converse(tick, talk) for talk in talks))
        for talk in results:
            self.emit_calls(tick, talk.log)
            characters = sum(len(said) for _, said in talk.transcript)
            minutes = max(1, -(-characters // CHARS_PER_MINUTE))
            ticks = max(1, -(-minutes // self.clock.tick_minutes))
            for me, other in ((talk.sender, talk.receiver), (talk.receiver, talk.sender)):
                state = self.agent(me)
                state.busy_until = tick + ticks - 1
                state.talking_with = other
                state.last_chat[other] = tick
                state.hour_conversations.append(
                    f"You talked with {other} about {talk.topic or 'what they were doing'}: "
                    + " / ".join(f"{who}: {said}" for who, said in talk.transcript)
                )
            self.agent(talk.receiver).norms = talk.database
            self.count("chats")
            self.count("norm_chats", bool(talk.identified))
            self.emit(
                tick,
                "conversation",
                talk.sender,
                receiver=talk.receiver,
                place=talk.place,
                observation=talk.observation,
                topic=talk.topic,
                transcript=[[who, said] for who, said in talk.transcript],
                ended=talk.ended,
                minutes=minutes,
            )
            self.emit(tick, "identify", talk.receiver, source="chat", norms=talk.identified)
            self.apply_assessments(tick, talk.receiver, talk.assessments)

    def apply_assessments(self, tick: int, name: str, assessments: list[Assessment]) -> None:
        for assessment in assessments:
            self.count("identified")
            if assessment.skipped:
                self.count("duplicates_skipped")
            else:
                self.count("accepted" if assessment.qualified else "rejected")
            self.emit(tick, "evaluate", name, **assessment.data)

    # --- hour's end: thoughts, observation channel, synthesis ---------------------------

    async def reflect(self, tick: int, name: str) -> Reflection:
        result = Reflection()
        state = self.agent(name)
        caller = self.caller(name, tick, "reflect", result.log)
        result.database = state.norms.model_copy(deep=True)
        heard = (state.hour_observations + state.hour_conversations)[-THOUGHT_INPUT_LINES:]
        if heard and not self.ablated("no_observation"):
            result.thoughts = await generate_thoughts(caller, state.place, heard)
        if result.thoughts:
            items = await identify_from_thoughts(caller, result.thoughts)
            sources = set()
            for item in items:
                index = item.source if 1 <= item.source <= len(result.thoughts) else 1
                sources.add(index)
                result.identified.append(item.model_dump())
                related = result.thoughts[index - 1]
                result.assessments.append(
                    await self.assess(
                        caller, result.database, item.content, item.type, "thought", related, tick
                    )
                )
            result.norm_thoughts = len(sources)
        database = result.database
        due = synthesis_due(
            database, self.config.synthesis_trigger, self.society.synthesis_threshold
        )
        if due and not self.ablated("no_synthesis"):
            result.synthesis = await self.synthesize(caller, database, tick)
        return result

    async def synthesize(self, caller: Caller, database: NormDatabase, tick: int) -> dict[str, Any]:
        before = database.qualified()
        hint = CLASSIFY_HINT if self.config.classify_hint else ""
        outcome = await synthesize(caller, before, self.mode, hint)
        abstracts: list[dict[str, Any]] = []
        for abstract in outcome.abstracts:
            if abstract.verdict.qualified:
                norm = apply_abstract(
                    database,
                    content=abstract.content,
                    type=abstract.type,
                    utility=abstract.utility,
                    members=abstract.members,
                    theme=abstract.theme,
                    time=self.clock.label(tick),
                )
            else:
                norm = add_norm(
                    database,
                    content=abstract.content,
                    type=abstract.type,
                    utility=abstract.utility,
                    origin="synthesis",
                    source_text=abstract.theme,
                    time=self.clock.label(tick),
                    qualified=False,
                    rejection=abstract.verdict.rejection,
                    members=abstract.members,
                )
            abstracts.append(
                {
                    "id": norm.id,
                    "theme": abstract.theme,
                    "content": abstract.content,
                    "type": abstract.type,
                    "members": abstract.members,
                    "member_contents": [n.content for n in before if n.id in abstract.members],
                    "utility": abstract.utility,
                    "weights_used": abstract.weights_used,
                    "qualified": abstract.verdict.qualified,
                    "checks": abstract.verdict.checks,
                    "rejection": abstract.verdict.rejection,
                }
            )
        mark_synthesis_attempt(database)
        return {
            "trigger": self.config.synthesis_trigger,
            "qualified_utility_before": sum(norm.utility for norm in before),
            "categories": [[theme, members] for theme, members in outcome.categories],
            "abstracts": abstracts,
            "failed": outcome.failed,
        }

    async def reflect_phase(self, tick: int) -> None:
        for name, result in await self.each(self.order, lambda name: self.reflect(tick, name)):
            self.emit_calls(tick, result.log)
            if result.thoughts:
                self.count("thoughts", len(result.thoughts))
                self.count("norm_thoughts", result.norm_thoughts)
                self.emit(tick, "thought", name, thoughts=result.thoughts)
                self.emit(tick, "identify", name, source="thought", norms=result.identified)
            self.apply_assessments(tick, name, result.assessments)
            if result.synthesis is not None:
                self.count("syntheses")
                self.emit(tick, "synthesis", name, **result.synthesis)
            self.agent(name).norms = result.database

    def close_hour(self, tick: int) -> None:
        """The hour's snapshot (what the metrics judge) and its metrics line."""
        hour_index = self.clock.hour_index(tick)
        hour = self.clock.hour(tick)
        snapshot: dict[str, Any] = {}
        for name in self.order:
            state = self.agent(name)
            snapshot[name] = {
                "qualified": [
                    {"id": n.id, "content": n.content, "utility": n.utility, "origin": n.origin}
                    for n in state.norms.qualified()
                ],
                "plan": state.plan.get(hour, ""),
                "actions": [[place, action] for place, action in state.actions_this_hour],
            }
        label = self.clock.hour_label(hour_index)
        self.emit(tick, "hour", hour=hour_index, label=label, agents=snapshot)
        usage = self.state.usage
        before = self.state.hour_usage
        counts = self.state.hour_counts
        self.metrics.append(
            HourMetrics(
                hour=hour_index,
                label=label,
                usage=usage.since(before),
                qualified={n: len(self.agent(n).norms.qualified()) for n in self.order},
                qualified_utility={n: self.agent(n).norms.qualified_utility() for n in self.order},
                **counts,
            )
        )
        self.state.hour_usage = usage.model_copy()
        self.state.hour_counts = {}
        for name in self.order:
            state = self.agent(name)
            state.hour_observations = []
            state.hour_conversations = []
            state.actions_this_hour = []
