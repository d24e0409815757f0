"""A run replayed to any moment: where each agent is, what it does, its norm database.

The web app's CRSEC reader puts a clock slider over the run; each position asks for
[`moment`][normlab.crsec.moment]. Everything is rebuilt from ``events.jsonl`` alone, so a replay
needs no checkpoint per tick and works on a run that is still going: the norm database from the
events that change it (initial norms, immediate evaluations, syntheses, which deactivate
the norms an abstract replaces, as ``normlab.norms.normdb.apply_abstract`` does),
and the agent's activity from its latest hour of actions, played forward in minutes.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from normlab.core.fields import taken_from
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.events import AbstractData, ActionsEvent, Event
from normlab.crsec.sim.schemas import RunConfig
from normlab.norms.clock import Clock
from normlab.norms.records import AssessedItem
from normlab.norms.schemas import Origin, PersonalNorm


class AgentMoment(BaseModel):
    name: str
    place: str
    doing: str
    norms: list[PersonalNorm]


class Conversation(BaseModel):
    sender: str
    receiver: str
    place: str
    topic: str
    transcript: list[list[str]]


class Moment(BaseModel):
    tick: int
    time: str
    hour_index: int
    last_tick: int
    """The latest tick the run has reached (the slider's end)."""
    agents: list[AgentMoment]
    conversations: list[Conversation]
    observations: list[tuple[str, str]]
    """(agent, what it perceived) at this tick."""


def _entered(
    item: AssessedItem | AbstractData, origin: Origin, time: str, members: list[int]
) -> PersonalNorm:
    """The database entry an evaluated item or an abstract norm became (qualified: activated
    and valid; rejected: neither, with its reason)."""
    return PersonalNorm(
        **item.model_dump(include={"id", "content", "utility", "type", "rejection"}),
        activated=item.qualified,
        valid=item.qualified,
        origin=origin,
        time=time,
        members=list(members),
    )


def _apply(databases: dict[str, dict[int, PersonalNorm]], event: Event) -> None:
    """Change the agent's database as the simulation did when it emitted ``event``."""
    database = databases.setdefault(event.agent, {})
    if event.kind == "create_norm":
        for norm in event.data.norms:
            database[norm.id] = norm.model_copy()
    elif event.kind == "evaluate" and isinstance(event.data, AssessedItem):
        database[event.data.id] = _entered(event.data, event.data.origin, event.time, [])
    elif event.kind == "synthesis":
        for abstract in event.data.abstracts:
            if abstract.qualified:
                for member in abstract.members:
                    if member in database:
                        database[member].activated = False
            database[abstract.id] = _entered(abstract, "synthesis", event.time, abstract.members)


def _doing(actions: ActionsEvent | None, tick: int, clock: Clock) -> tuple[str, str]:
    """(place, action) at ``tick`` from the agent's latest hour of actions."""
    if actions is None:
        return "", "(not started)"
    elapsed = (tick - actions.tick) * clock.tick_minutes
    place, doing = "", actions.data.activity
    for subtask in actions.data.subtasks:
        place, doing = subtask.place, subtask.action
        elapsed -= subtask.minutes
        if elapsed < 0:
            break
    return place, doing


def moment(events: Iterable[Event], config: RunConfig, tick: int) -> Moment:
    """The run at the start of ``tick`` plus what happened during it (clamped to the run)."""
    clock = clock_of(config)
    everything = list(events)
    last_tick = max((event.tick for event in everything), default=0)
    tick = max(0, min(tick, last_tick))
    names = [agent.name for agent in config.society.agents]
    databases: dict[str, dict[int, PersonalNorm]] = {name: {} for name in names}
    latest_actions: dict[str, ActionsEvent] = {}
    conversations: list[Conversation] = []
    observations: list[tuple[str, str]] = []
    for event in everything:
        if event.tick > tick:
            break
        _apply(databases, event)
        if event.kind == "actions":
            latest_actions[event.agent] = event
        if event.tick == tick and event.kind == "conversation":
            conversations.append(taken_from(Conversation, event.data, sender=event.agent))
        if event.tick == tick and event.kind == "perceive":
            observations.extend((event.agent, seen) for seen in event.data.observations)
    agents = []
    for name in names:
        place, doing = _doing(latest_actions.get(name), tick, clock)
        norms = sorted(databases[name].values(), key=lambda norm: norm.id)
        agents.append(AgentMoment(name=name, place=place, doing=doing, norms=norms))
    return Moment(
        tick=tick,
        time=clock.label(tick),
        hour_index=clock.hour_index(tick),
        last_tick=last_tick,
        agents=agents,
        conversations=conversations,
        observations=observations,
    )
