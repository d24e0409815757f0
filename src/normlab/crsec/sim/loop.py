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
   and evaluates it; an agent that keeps a memory (a newcomer) then plans its day and the
   rest of its hour again;
7. at an hour's end, every agent thinks about what it saw and heard, identifies normative
   information in its thoughts and evaluates it; an agent whose norms call for it
   synthesizes; the hour's snapshot and metrics are written.

Within a phase the agents' calls run concurrently on the state as it was when the phase
began; the results are applied, and their events written, in the society's agent order.
Every call's seed comes from the run's seed, the tick, the phase, the agent and the
operation, and every random choice from a generator seeded the same way, so a scripted
model (or a provider that honours seeds) gives the same event log on every run, resumed or
not. After each tick the events, the metrics and then the checkpoint reach the disk.

This module is the tick loop and the phases that move the world (creation, plans, actions,
movement, perception, the hour's close); the talk pipeline (phases 5–6) is
``normlab.crsec.sim.talk``, the hour's-end reflection (phase 7) ``normlab.crsec.sim.reflection``,
and what they share ``normlab.crsec.sim.world``.
"""

from __future__ import annotations

import re
from typing import Literal

from normlab.core.errors import InputError, NormlabError, RunIncompleteError
from normlab.crsec.sim.events import (
    ActionsData,
    AgentSnapshot,
    CreateNormData,
    HeldNorm,
    HourData,
    PerceiveData,
    PlanData,
)
from normlab.crsec.sim.reflection import reflect_phase
from normlab.crsec.sim.rundir import CHECKPOINT
from normlab.crsec.sim.schemas import AgentSpec, HourMetrics, Usage
from normlab.crsec.sim.talk import Talk, detect_phase, pair, talk_phase
from normlab.crsec.sim.world import World
from normlab.norms.calls import CallLog
from normlab.norms.normdb import add_norm
from normlab.norms.operations.compliance import PlannedDay, PlannedHour, plan_actions, plan_day
from normlab.norms.operations.creation import create_norms
from normlab.norms.replies import CreatedNorm

Outcome = Literal["finished", "budget", "cost unknown"]


def budget_outcome(usage: Usage, max_calls: int | None, max_cost: float | None) -> Outcome | None:
    """Whether ``usage`` (what the run used since its budget started counting) reached its
    budget: the run stops there, and a report reads why an unfinished run stopped the same way."""
    if max_calls is not None and usage.calls >= max_calls:
        return "budget"
    if max_cost is not None:
        if usage.unpriced_calls:
            return "cost unknown"
        if usage.cost >= max_cost:
            return "budget"
    return None


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


class Simulation(World):
    """One run: its config, its state, its model client and its run directory
    (``World``), run tick by tick."""

    # --- the run -------------------------------------------------------------------

    def over_budget(self, max_calls: int | None, max_cost: float | None) -> Outcome | None:
        return budget_outcome(self.state.usage.since(self.budget_from), max_calls, max_cost)

    async def run(self, max_calls: int | None = None, max_cost: float | None = None) -> Outcome:
        """Run ticks until the end (``end_tick``) or a budget; each tick ends at a
        checkpoint. A checkpoint past the run's end is no state this run wrote (a tick of
        10^30 once read as finished and exited 0 saying nothing): one line naming it."""
        if self.state.tick > self.end_tick:
            raise InputError(
                self.run_dir.file(CHECKPOINT),
                f"tick {self.state.tick} is past the run's end (tick {self.end_tick}): the "
                "checkpoint is not this run's",
                field="tick",
            )
        while self.state.tick < self.end_tick:
            stop = self.over_budget(max_calls, max_cost)
            if stop is not None:
                return stop
            tick = self.state.tick
            await self.step(tick)
            self.state.tick += 1
            self.state.finished = self.state.tick >= self.end_tick
            self.run_dir.save(self.state, self.events, self.metrics)
            if self.progress is not None and self.metrics:
                self.progress(self.progress_line(self.metrics[-1]))
            elif self.progress is not None and self.tick_lines:
                self.progress(
                    f"{self.clock.label(tick)}: tick {tick + 1}/{self.end_tick} done · "
                    f"{self.state.usage.calls} calls so far"
                )
            if self.on_tick is not None:
                self.on_tick(1)
            self.events, self.metrics = [], []
            # The tick's calls are in the event log; the client's own records would otherwise
            # grow with every call of the run (tens of thousands in a large society's day).
            self.client.records.clear()
        return "finished"

    async def run_or_stop(
        self, go_on: str, max_calls: int | None = None, max_cost: float | None = None
    ) -> Outcome:
        """[`run`][normlab.crsec.Simulation.run], where any failure but a normlab error (bad input,
        a budget) stops it with one line: the folder, the tick it stopped at (the ticks before are
        checkpointed), the cause, and ``go_on``, how to continue."""
        try:
            return await self.run(max_calls, max_cost)
        except NormlabError:
            raise
        except Exception as error:
            raise RunIncompleteError(
                f"{self.run_dir.path}: stopped at {self.clock.label(self.state.tick)} by "
                f"{type(error).__name__}: {error}; the last finished tick is checkpointed: "
                f"{go_on}"
            ) from error

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
        conflicts = await detect_phase(self, tick, observations)
        talks = pair(self, tick, conflicts)
        await talk_phase(self, tick, talks)
        await self.replan_phase(tick, talks)
        if self.clock.ends_hour(tick):
            await reflect_phase(self, tick)
            self.close_hour(tick)

    # --- creation and compliance -----------------------------------------------------

    async def create(self, tick: int) -> None:
        """Before the first tick, the norm entrepreneurs create their personal norms."""
        names = [name for name in self.order if self.identity(name) == "a norm entrepreneur"]
        count = self.society.initial_norms_per_entrepreneur

        async def unit(name: str) -> tuple[list[CreatedNorm], CallLog]:
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
                name,
                CreateNormData(norms=[n.model_copy() for n in database.norms], failed=not norms),
            )
        self.state.created = True

    async def plan_phase(self, tick: int) -> None:
        day = self.clock.day(tick)

        async def unit(name: str) -> tuple[PlannedDay, CallLog]:
            caller = self.caller(name, tick, "plan")
            state = self.agent(name)
            planned = await plan_day(
                caller, self.specs[name], state.norms.qualified(), self.clock, day, state.memory
            )
            return planned, caller.log

        for name, (planned, log) in await self.each(self.order, unit):
            self.emit_calls(tick, log)
            self.agent(name).plan = planned.plan
            self.emit(tick, name, self.plan_data(name, day, planned))

    def plan_data(self, name: str, day: int, planned: PlannedDay) -> PlanData:
        return PlanData(
            norms=self.qualified_contents(name),
            day=day,
            plan=planned.plan,
            filled=planned.filled,
            failed=planned.failed,
        )

    async def actions_phase(self, tick: int) -> None:
        day, hour = self.clock.day(tick), self.clock.hour(tick)

        async def unit(name: str) -> tuple[PlannedHour, CallLog]:
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
                state.memory,
            )
            return planned, caller.log

        for name, (planned, log) in await self.each(self.order, unit):
            self.emit_calls(tick, log)
            self.take_up(tick, name, planned)

    def take_up(self, tick: int, name: str, planned: PlannedHour) -> None:
        """``name``'s new subtasks for the hour, started at its next move; their event."""
        state = self.agent(name)
        state.subtasks = [
            subtask.model_copy(update={"action": action_text(self.specs[name], subtask.action)})
            for subtask in planned.subtasks
        ]
        state.minutes_left = 0
        self.emit(
            tick,
            name,
            ActionsData(
                norms=self.qualified_contents(name),
                hour=self.clock.hour(tick),
                activity=state.plan.get(self.clock.hour(tick), ""),
                subtasks=[subtask.model_copy() for subtask in state.subtasks],
                adjusted=planned.adjusted,
                failed=planned.failed,
            ),
        )

    def talk_ends(self, tick: int, name: str) -> int:
        """Minutes into ``tick``'s hour at which ``name``'s conversation of this tick is over
        (its last busy tick's end; 60 or more: it runs to the hour's end or past it)."""
        ticks = self.agent(name).busy_until - tick + 1
        return self.clock.minute(tick) % 60 + max(1, ticks) * self.clock.tick_minutes

    async def replan_phase(self, tick: int, talks: list[Talk]) -> None:
        """After a conversation, an agent that keeps a memory (a newcomer, either arm) plans its
        day again and the rest of the hour, both with the conversation in mind: the hour's
        remaining minutes after the talk (Figure 18's duration placeholder; a talk at 9:00 in
        5-minute ticks leaves 55, not 60), whose first subtask starts when the talk is over. A
        talk that runs to the hour's end leaves no minutes to plan: the next hour's subtasks
        are planned as every hour's are. Smallville's agents, too, rewrite their schedule
        around a chat; the paper's plan (Figure 17) is made once a day."""
        talked = {name for talk in talks for name in (talk.sender, talk.receiver)}
        names = [n for n in self.order if n in talked and self.agent(n).memory is not None]
        day, hour = self.clock.day(tick), self.clock.hour(tick)

        async def unit(name: str) -> tuple[PlannedDay, PlannedHour | None, CallLog]:
            caller = self.caller(name, tick, "replan")
            state, spec = self.agent(name), self.specs[name]
            norms = state.norms.qualified()
            day_plan = await plan_day(caller, spec, norms, self.clock, day, state.memory)
            start = self.talk_ends(tick, name)
            if start >= 60:
                return day_plan, None, caller.log
            activity = day_plan.plan.get(hour, spec.daily_requirement)
            places, home = self.society.places, self.society.home
            hour_plan = await plan_actions(
                caller,
                spec,
                norms,
                activity,
                self.clock,
                day,
                hour,
                places,
                home,
                state.memory,
                start,
            )
            return day_plan, hour_plan, caller.log

        for name, (day_plan, hour_plan, log) in await self.each(names, unit):
            self.emit_calls(tick, log)
            self.agent(name).plan = day_plan.plan
            self.emit(tick, name, self.plan_data(name, day, day_plan))
            if hour_plan is None:
                continue
            self.take_up(tick, name, hour_plan)
            # The talk's ticks still to come pass before the first new subtask starts.
            self.agent(name).minutes_left = (
                self.talk_ends(tick, name) - self.clock.minute(tick) % 60 - self.clock.tick_minutes
            )

    def start_subtask(self, name: str) -> None:
        """``name`` starts its next subtask, if the one under way is over: place and action."""
        state = self.agent(name)
        if state.minutes_left <= 0 and state.subtasks:
            subtask = state.subtasks.pop(0)
            state.minutes_left = subtask.minutes
            state.place = subtask.place
            state.doing = subtask.action
            state.actions_this_hour.append((subtask.place, subtask.action))

    def move(self, tick: int) -> None:
        """Agents start their next subtask (place and action); talkers are seen talking."""
        for name in self.order:
            state = self.agent(name)
            self.start_subtask(name)
            busy = self.busy(name, tick)
            state.action = f"{name} is talking with {state.talking_with}" if busy else state.doing
            state.minutes_left -= self.clock.tick_minutes

    # --- spreading: perception (the talk itself is normlab.crsec.sim.talk) --------------------

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
                self.remember(name, tick, observations=[text for _, text in new])
                self.emit(tick, name, PerceiveData(observations=[text for _, text in new]))
        return seen

    def close_hour(self, tick: int) -> None:
        """The hour's snapshot (what the metrics judge) and its metrics line: the hour's
        counts from its events (the analysis's own counter), with usage and held norms."""
        hour_index = self.clock.hour_index(tick)
        hour = self.clock.hour(tick)
        snapshot = {
            name: AgentSnapshot(
                qualified=[
                    HeldNorm(id=n.id, content=n.content, utility=n.utility, origin=n.origin)
                    for n in self.agent(name).norms.qualified()
                ],
                plan=self.agent(name).plan.get(hour, ""),
                actions=list(self.agent(name).actions_this_hour),
            )
            for name in self.order
        }
        label = self.clock.hour_label(hour_index)
        counted = self.emit(tick, "", HourData(hour=hour_index, label=label, agents=snapshot))
        assert counted is not None, "an hour event closes the hour"
        usage = self.state.usage
        self.metrics.append(
            counted.model_copy(
                update={
                    "usage": usage.since(self.state.hour_usage),
                    "qualified": {n: len(self.agent(n).norms.qualified()) for n in self.order},
                    "qualified_utility": {
                        n: self.agent(n).norms.qualified_utility() for n in self.order
                    },
                }
            )
        )
        self.state.hour_usage = usage.model_copy()
        for name in self.order:
            state = self.agent(name)
            state.hour_observations = []
            state.hour_conversations = []
            state.actions_this_hour = []
