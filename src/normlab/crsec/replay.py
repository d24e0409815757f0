"""A run replayed to any moment: where each agent is, what it does, its norm database.

The web app's CRSEC reader puts a clock slider over the run; each position asks for
:func:`moment`. Everything is rebuilt from ``events.jsonl`` alone, so a replay needs no
checkpoint per tick and works on a run that is still going: the norm database from the
events that change it (initial norms, immediate evaluations, syntheses, which deactivate
the norms an abstract replaces, as :func:`normlab.crsec.normdb.apply_abstract` does),
and the agent's activity from its latest hour of actions, played forward in minutes.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel

from normlab.crsec.clock import Clock
from normlab.crsec.schemas import Event, PersonalNorm, RunConfig
from normlab.crsec.sim import clock_of


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


def _norm(raw: dict[str, object], **changes: object) -> PersonalNorm:
    return PersonalNorm.model_validate({**raw, **changes})


def _apply(databases: dict[str, dict[int, PersonalNorm]], event: Event) -> None:
    """Change the agent's database as the simulation did when it emitted ``event``."""
    data, database = event.data, databases.setdefault(event.agent, {})
    if event.kind == "create_norm":
        for raw in data["norms"]:
            database[int(raw["id"])] = _norm(raw)
    elif event.kind == "evaluate" and data.get("id") is not None and not data.get("skipped"):
        qualified = bool(data.get("qualified"))
        database[int(data["id"])] = PersonalNorm(
            id=int(data["id"]),
            content=str(data["content"]),
            utility=int(data.get("utility") or 0),
            type=data["type"],
            activated=qualified,
            valid=qualified,
            origin=data.get("origin", "thought"),
            time=event.time,
            rejection=data.get("rejection"),
        )
    elif event.kind == "synthesis":
        for abstract in data.get("abstracts", []):
            qualified = bool(abstract.get("qualified"))
            if qualified:
                for member in abstract.get("members", []):
                    if member in database:
                        database[member].activated = False
            database[int(abstract["id"])] = PersonalNorm(
                id=int(abstract["id"]),
                content=str(abstract["content"]),
                utility=int(abstract.get("utility") or 0),
                type=abstract.get("type", "injunctive"),
                activated=qualified,
                valid=qualified,
                origin="synthesis",
                time=event.time,
                rejection=abstract.get("rejection"),
                members=list(abstract.get("members", [])),
            )


def _doing(actions: Event | None, tick: int, clock: Clock) -> tuple[str, str]:
    """(place, action) at ``tick`` from the agent's latest hour of actions."""
    if actions is None:
        return "", "(not started)"
    elapsed = (tick - actions.tick) * clock.tick_minutes
    place, doing = "", str(actions.data.get("activity", ""))
    for subtask in actions.data.get("subtasks", []):
        place, doing = str(subtask["place"]), str(subtask["action"])
        elapsed -= int(subtask["minutes"])
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
    latest_actions: dict[str, Event] = {}
    conversations: list[Conversation] = []
    observations: list[tuple[str, str]] = []
    for event in everything:
        if event.tick > tick:
            break
        _apply(databases, event)
        if event.kind == "actions":
            latest_actions[event.agent] = event
        if event.tick == tick and event.kind == "conversation":
            data = event.data
            conversations.append(
                Conversation(
                    sender=event.agent,
                    receiver=str(data.get("receiver", "")),
                    place=str(data.get("place", "")),
                    topic=str(data.get("topic", "")),
                    transcript=[list(map(str, row)) for row in data.get("transcript", [])],
                )
            )
        if event.tick == tick and event.kind == "perceive":
            observations.extend((event.agent, str(o)) for o in event.data.get("observations", []))
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
