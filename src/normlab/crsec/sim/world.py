"""What every phase of a tick works on: the run's config, the world state, the event log.

The tick loop (``normlab.crsec.sim.loop``), the talk pipeline (``normlab.crsec.sim.talk``)
and the hour's-end reflection (``normlab.crsec.sim.reflection``) are separate modules, each
a function of a ``World``; this is the bookkeeping they share, so none of them needs
the others: who the agents are and what they hold, each agent's model access (its seeded
[`Caller`][normlab.norms.Caller] behind its stable system message), running a phase's
agents at once, and emitting events. Every emitted event is also counted by the run's
``HourCounter``, the one that ``analyze`` reads a finished run
with, so the hour's metrics line and the analysis agree by construction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import TypeVar

from normlab.crsec.prompts import PROMPTS
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.counts import HourCounter
from normlab.crsec.sim.events import Event, make_event
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import AgentState, HourMetrics, RunConfig, Usage, WorldState
from normlab.models import ModelClient
from normlab.norms.calls import AGENT_ROLE, Caller, CallLog
from normlab.norms.operations.evaluation import assess
from normlab.norms.prompts import numbered
from normlab.norms.records import EvaluateData, Payload
from normlab.norms.replies import IdentifiedNorm
from normlab.norms.schemas import EvaluationMode, NormDatabase, Origin

T = TypeVar("T")

MEMORY_CONVERSATIONS = 5
"""A remembering agent's plan and action prompts carry its latest this many conversations…"""
MEMORY_OBSERVATIONS = 10
"""…and this many observations (a busy hour brings dozens; the sanctions stay among them)."""


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


class World:
    """One run's config, state, model client and run directory, and the tick's events."""

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
        self.on_tick: Callable[[int], None] | None = None
        """Told of each finished tick (a progress bar's ``advance``)."""
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
        self.counter = HourCounter(self.state.hour_counts)
        # Hooks for a run that continues another with one agent more (a newcomer joining a
        # finished society, normlab.crsec.newcomer.setup); a plain run leaves them as they are.
        self.end_tick = self.clock.total_ticks
        """The tick the run stops before: the clock's end, or later for a continuation."""
        self.roles: dict[str, str] = {}
        """Agent → the model role its calls use, where not ``agent`` (a newcomer's subject)."""
        self.without_norms: set[str] = set()
        """Agents that keep no norm database (a plain newcomer): they identify nothing in
        their talks or thoughts, so their qualified norms stay NONE; they still plan, act and
        talk."""
        self.budget_from = Usage()
        """What the budget (``--max-calls``, ``--max-cost``) does not count: for a continuation,
        its source run's usage, so a newcomer run's budget is its own."""

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

    def keeps_norms(self, name: str) -> bool:
        """Whether ``name`` identifies and evaluates normative information (every agent of
        the paper does; a plain newcomer does not)."""
        return name not in self.without_norms

    def qualified_contents(self, name: str) -> list[str]:
        return [norm.content for norm in self.agent(name).norms.qualified()]

    def remember(
        self,
        name: str,
        tick: int,
        *,
        conversation: str | None = None,
        observations: Sequence[str] = (),
    ) -> None:
        """Add to ``name``'s memory (``Memory``), if it keeps one,
        with the time, keeping the latest few of each kind."""
        memory = self.agent(name).memory
        if memory is None:
            return
        when = self.clock.label(tick)
        if conversation is not None:
            kept = [*memory.conversations, f"{when}: {conversation}"]
            memory.conversations = kept[-MEMORY_CONVERSATIONS:]
        if observations:
            seen = [*memory.observations, *(f"{when}: {text}" for text in observations)]
            memory.observations = seen[-MEMORY_OBSERVATIONS:]

    def emit(self, tick: int, agent: str, data: Payload) -> HourMetrics | None:
        """Log ``data`` as an event of ``agent`` at ``tick`` and count it; an hour's snapshot
        closes the hour and returns its counts."""
        event = make_event(
            seq=self.state.events_written + len(self.events) + 1,
            tick=tick,
            time=self.clock.label(tick),
            agent=agent,
            data=data,
        )
        self.events.append(event)
        closed = self.counter.add(event)
        # The checkpoint keeps the unfinished hour's counts, so a resumed run goes on counting.
        self.state.hour_counts = self.counter.counts
        return closed

    def emit_calls(self, tick: int, log: CallLog) -> None:
        usage = self.state.usage
        for call in log.entries:
            data = call.data
            usage.calls += 1
            usage.input_tokens += data.input_tokens
            usage.cached_input_tokens += data.cached_input_tokens
            usage.output_tokens += data.output_tokens
            if data.cost is None:
                usage.unpriced_calls += 1
            else:
                usage.cost += data.cost
            usage.parse_failures += data.parse_failed
            usage.truncations += data.truncated
            usage.retries += data.retries
            self.emit(tick, call.agent, data)

    def prefix(self, name: str) -> str:
        """The agent's stable system message: description first, then its qualified norms."""
        spec = self.specs[name]
        return PROMPTS.render(
            "agent_ours",
            {
                "agent name": name,
                "identity": self.identity(name),
                "society": self.society.name,
                "agent description": spec.description,
                "qualified personal norms": numbered(self.qualified_contents(name)),
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
            role=self.roles.get(name, AGENT_ROLE),
            temperature=self.config.temperature,
            cap=self.config.max_tokens,
            prefix=self.prefix(name),
        )

    async def assess(
        self,
        caller: Caller,
        database: NormDatabase,
        item: IdentifiedNorm,
        origin: Origin,
        related: str,
        tick: int,
    ) -> EvaluateData:
        """An identified item through the run's immediate evaluation into ``database``
        (``assess``): its ``evaluate`` event."""
        return await assess(
            caller,
            database,
            item.content,
            item.type,
            origin,
            related,
            self.mode,
            self.clock.label(tick),
        )

    async def each(
        self, names: Iterable[str], unit: Callable[[str], Awaitable[T]]
    ) -> list[tuple[str, T]]:
        """Run ``unit`` for every agent concurrently; results in the given (fixed) order."""
        chosen = list(names)
        results = await asyncio.gather(*(unit(name) for name in chosen))
        return list(zip(chosen, results, strict=True))
