"""Compliance (§2.4, Figures 17–18): plans and 5-minute actions that follow qualified norms.

GenerateNormativePlans writes the day's plan (one activity per active hour) at the start
of each day; GenerateNormativeActions breaks the current hour's activity into subtasks,
each with a duration and a place, at the start of each hour. What the model returns is
fitted to the clock (durations to whole ticks summing to the hour, places to the
society's), and every adjustment is reported so that the event log shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from normlab.norms.calls import Caller
from normlab.norms.clock import Clock, clock_label
from normlab.norms.prompts import numbered, render
from normlab.norms.replies import DayPlan, Subtasks
from normlab.norms.schemas import Actor, Memory, PersonalNorm, Place, Subtask


@dataclass
class PlannedDay:
    plan: dict[int, str]
    filled: list[int] = field(default_factory=list)
    """Hours the reply left out: they repeat the hour before (or the daily requirement)."""
    failed: bool = False


def memory_parts(memory: Memory | None) -> tuple[tuple[str, ...], dict[str, str]]:
    """The memory block (``prompts/memory_ours.txt``) a remembering agent's plan and action
    prompts carry after the paper's text, and its values; none for an agent without one."""
    if memory is None:
        return (), {}
    return ("memory_ours",), {
        "remembered conversations": numbered(memory.conversations),
        "remembered observations": numbered(memory.observations),
    }


def agent_profile(agent: Actor) -> str:
    """Figure 18's AGENT DESCRIPTION: the description and the daily requirement."""
    if not agent.daily_requirement:
        return agent.description
    return f"{agent.description} Daily plan requirement: {agent.daily_requirement}"


async def plan_day(
    caller: Caller,
    agent: Actor,
    norms: list[PersonalNorm],
    clock: Clock,
    day: int,
    memory: Memory | None = None,
) -> PlannedDay:
    """L_plan ← GenerateNormativePlans(C, P): one activity per active hour of ``day`` (with
    ``memory``, what the agent remembers follows the paper's prompt)."""
    first, end = clock.active_hours
    remembered, values = memory_parts(memory)
    prompt = render(
        "plan",
        {
            "qualified personal norms": numbered([norm.content for norm in norms]),
            "current goal": agent.daily_requirement or agent.description,
            "current time": clock.date_label(day),
            "agent name": agent.name,
            "agent description": agent.description,
            "start hour": clock_label(first * 60),
            "end hour": clock_label(end * 60),
            "first hour": str(first),
            "last hour": str(end - 1),
            **values,
        },
        *remembered,
        "plan_ours",
    )
    reply = await caller.ask("plan", prompt, DayPlan, max_tokens=60 + 45 * (end - first))
    given = {item.hour: item.activity.strip() for item in reply.plan} if reply else {}
    plan: dict[int, str] = {}
    filled: list[int] = []
    previous = agent.daily_requirement or "go about the day"
    for hour in range(first, end):
        if given.get(hour):
            previous = given[hour]
        else:
            filled.append(hour)
        plan[hour] = previous
    return PlannedDay(plan, filled, failed=reply is None)


@dataclass
class PlannedHour:
    subtasks: list[Subtask]
    adjusted: list[str] = field(default_factory=list)
    failed: bool = False


def _place(name: str, places: list[Place], home: str) -> str | None:
    """The society's place ``name`` refers to, or None when it names none."""
    text = name.strip().lower()
    for place in places:
        if place.name.lower() == text:
            return place.name
    for place in sorted(places, key=lambda p: -len(p.name)):
        if place.name.lower() in text:
            return place.name
    return None


def fit_subtasks(
    replies: list[tuple[str, int, str]],
    minutes: int,
    tick_minutes: int,
    places: list[Place],
    home: str,
) -> tuple[list[Subtask], list[str]]:
    """Subtasks in whole ticks summing to ``minutes``, at the society's places; what changed."""
    adjusted: list[str] = []
    subtasks: list[Subtask] = []
    used = 0
    for action, length, place_name in replies:
        if used >= minutes:
            adjusted.append(f"dropped after the hour: {action!r}")
            continue
        ticks = max(1, -(-length // tick_minutes))
        length_fitted = min(ticks * tick_minutes, minutes - used)
        if length_fitted != length:
            adjusted.append(f"{action!r}: {length} → {length_fitted} min")
        place = _place(place_name, places, home)
        if place is None:
            place = _place(action, places, home) or home
            adjusted.append(f"{action!r}: place {place_name!r} → {place!r}")
        subtasks.append(Subtask(action=action, minutes=length_fitted, place=place))
        used += length_fitted
    if subtasks and used < minutes:
        last = subtasks[-1]
        adjusted.append(f"{last.action!r}: extended by {minutes - used} min to fill the hour")
        subtasks[-1] = last.model_copy(update={"minutes": last.minutes + minutes - used})
    return subtasks, adjusted


async def plan_actions(
    caller: Caller,
    agent: Actor,
    norms: list[PersonalNorm],
    activity: str,
    clock: Clock,
    day: int,
    hour: int,
    places: list[Place],
    home: str,
    memory: Memory | None = None,
    start: int = 0,
) -> PlannedHour:
    """L_action ← GenerateNormativeActions(l_i, P, G): the hour's activity in 5-minute steps,
    from ``start`` minutes into the hour (a re-plan after a conversation) to its end."""
    minutes = 60 - start
    span = f"{clock_label(hour * 60 + start)} to {clock_label(hour * 60 + 60)}"
    remembered, values = memory_parts(memory)
    prompt = render(
        "actions",
        {
            "qualified personal norms": numbered([norm.content for norm in norms]),
            "current plan": f"Today is {clock.date_label(day)}. From {span}, "
            f"{agent.first_name} plans to {activity}.",
            "agent description": agent_profile(agent),
            "agent name": agent.name,
            "agent first name": agent.first_name,
            "current action": activity,
            "current time range": span,
            "current action duration in min": str(minutes),
            "places": "; ".join(place.name for place in places),
            **values,
        },
        *remembered,
        "actions_format_ours",
    )
    reply = await caller.ask("actions", prompt, Subtasks, max_tokens=400)
    if reply is None:
        return PlannedHour([Subtask(action=activity, minutes=minutes, place=home)], failed=True)
    subtasks, adjusted = fit_subtasks(
        [(s.action.strip(), s.minutes, s.place) for s in reply.subtasks],
        minutes,
        clock.tick_minutes,
        places,
        home,
    )
    return PlannedHour(subtasks, adjusted)
