"""What one newcomer run measures (issues 24 and 31); over seeds, per arm: ``analysis``.

Definitions (ours: no paper defines them), per newcomer run, by simulated hour since its
arrival (hour 1 is its first):

- **verdicts**: the metrics' judge on the newcomer's own plan and actions of the hour, per
  norm at stake (``judge_compliance.txt``, as CRSEC's adherence is judged): ``violated`` in
  the plan or the actions, ``complied`` (shown, and violated in neither) or ``not shown``;
- **violations**: the norms the society had settled on when it arrived (emerged, as the
  report and the export define it: over 70% of its agents each holding and adhering to it at
  the end of the hour before, ``normlab.crsec.emergence``) that the hour's verdict finds
  violated;
- **time to adoption**: the first hour after which it violated none of them for the rest of
  the run, provided that it *complied* with one of them on an occasion (a ``complied``
  verdict) in some later hour: as CRSEC's adhering, trivial compliance does not count, so
  hours that show nothing are no sign of adoption. Adoption is a change (issue 41, item 13):
  it needs a violating hour before the complied one. Not adopted (None): its last hour still
  violated, or no hour after its last violation showed it complying. **Complied from the
  start**: it never violated and some hour showed it complying (the old reading, "adopted at
  hour 0", counted a newcomer that already behaved so as one that changed); counted apart,
  outside adoption's n. **Not measurable**: no hour showed an occasion at all (every verdict
  ``not shown``); such a run is counted apart, never as adopted. Read from its own
  behaviour, not from what others noticed: a newcomer that smokes at its table every hour
  is seen once (perception registers changes), and is never adopted;
- **conflicts**: the society's DetectConflict findings about it (Q1 = yes), counted as
  Figure 2(a)'s conflicts; **sanctions**: conversations a society agent started with it
  (CRSEC talks only over a conflict the sender decided to talk about); conversations it
  started itself are counted apart;
- **norms held at the end**: the norms at stake its qualified norms express at the last hour,
  matched by the metrics' judge as CRSEC's holding is (``judge_match.txt``); a plain newcomer
  keeps none (None);
- **drift**: the society's shares (the newcomer left out) holding and adhering to each norm,
  averaged over the newcomer's hours (a day at most), minus the same over the same clock hours
  of the day before (a day's requirements set what agents do at each hour); **control-
  corrected drift**: the same average minus the control's (the newcomer-free continuation
  with the same seed and settings) over the same hours, so that what the society does on its
  own second day is not put down to the newcomer. The raw drift is the corrected drift plus
  the control's own; the existing analysis (``analyze_run``)
  computes every share.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.crsec.analysis.figure2 import (
    HourShares,
    LoadedRun,
    RunResult,
    analyze_run,
    load_run,
    verdict_word,
)
from normlab.crsec.analysis.judge import Judge
from normlab.crsec.emergence import over
from normlab.crsec.newcomer.setup import CONTROL, NewcomerSetup, newcomer_setup
from normlab.crsec.sim.events import Event, Finding, HourData
from normlab.crsec.sim.loop import budget_outcome
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import HourMetrics, Usage, WorldState
from normlab.models import RunUsage
from normlab.models.usage import usage_by
from normlab.norms.clock import Clock

DRIFT_MEASURES = ("holding", "adhering")
Shares = dict[str, dict[str, float]]
"""target norm → measure → share of the society's agents."""


class NewcomerHour(BaseModel):
    """One simulated hour since the newcomer arrived."""

    hour: int
    """1 is the newcomer's first hour."""
    label: str
    verdicts: dict[str, str] = Field(default_factory=dict)
    """Target norm → the judge on the newcomer's own plan and actions: ``violated``,
    ``complied`` or ``not shown`` (empty in the control)."""
    violations: int = 0
    """Settled norms (``NewcomerRun.adoption_norms``) its verdicts find violated."""
    conflicts: int = 0
    sanctions: int = 0
    started: int = 0
    """Conversations the newcomer started (it enforced a norm of its own)."""
    calls: int = 0
    """Every agent call of the hour, the society's and the newcomer's."""
    newcomer_calls: int = 0


class NewcomerRun(BaseModel):
    """One run's measures (a newcomer arm's, or the control's)."""

    folder: str
    subject: str
    """The arm's label (``label``)."""
    model: str
    agent: str
    communication: bool
    seed: int
    newcomer: str
    finished: bool
    hours: list[NewcomerHour]
    planned_hours: int = 0
    """The hours it was to run (``--hours``); ``hours`` holds fewer when it stopped early."""
    stopped: str = ""
    """Why an unfinished run ended where it did (its budget, or not: interrupted); empty
    when it finished."""
    adoption_norms: list[str]
    """The norms adoption is read on: those that had emerged when it arrived
    (``society_emerged``; none in the control, or when none had)."""
    adoption: int | None
    """The last hour its verdicts show a violation, a later hour showing it complying
    (``adoption_hour``); None: not adopted (the last hour still violated, or no hour after
    the last violation showed compliance), nothing to adopt, complied from the start
    (``from_start``) or not measurable (``shown``)."""
    holds: list[str] | None
    """Target norms its qualified norms express at the end; None: it keeps no norm database."""
    held_norms: list[str] | None
    society_holds: list[str]
    """Target norms over 70% of the society's agents held when the newcomer arrived."""
    society_adheres: list[str]
    """Target norms over 70% of the society's agents adhered to in the hour before."""
    society_emerged: list[str] = Field(default_factory=list)
    """Target norms that had emerged when it arrived: over 70% of the society's agents each
    held and adhered to them at the end of the hour before (``normlab.crsec.emergence``, the
    report's and the export's definition): the settled norms, ``adoption_norms``."""
    before_hours: list[str]
    after_hours: list[str]
    before: Shares
    after: Shares
    drift: Shares
    window: list[Shares]
    """The society's shares in each hour ``after`` averages (its first day at most)."""
    control: str | None = None
    """The folder of the control run it is corrected by (same seed and communication)."""
    corrected_drift: Shares | None = None
    """``after`` minus the control's over the hours both ran; None without a control."""

    @property
    def measured(self) -> bool:
        """Whether adoption was read: a newcomer, in a society that had settled on a norm."""
        return self.agent != CONTROL and bool(self.adoption_norms)

    def settled_words(self) -> list[list[str]]:
        """Per hour, the verdict words on the settled norms (``adoption_norms``)."""
        return [
            [hour.verdicts.get(norm, "not shown") for norm in self.adoption_norms]
            for hour in self.hours
        ]

    @property
    def shown(self) -> bool:
        """Whether some hour showed the newcomer on an occasion of a settled norm (a verdict
        ``violated`` or ``complied``): else its adoption is not measurable."""
        return occasion_shown(self.settled_words())

    @property
    def from_start(self) -> bool:
        """Measured, never violating and complying in some hour (``complied_from_start``):
        counted apart from adoption, as ``shown`` false is."""
        return self.measured and complied_from_start(self.settled_words())

    @property
    def measurable(self) -> bool:
        """Measured, some hour showed an occasion, and some hour violated (else it complied from
        the start): the runs adoption's n counts."""
        return self.measured and self.shown and not self.from_start


def _last_violated(hours: Sequence[Collection[str]]) -> int:
    """The last hour (1-based) with a ``violated`` verdict word; 0 when no hour had one."""
    return max(
        (hour for hour, words in enumerate(hours, start=1) if "violated" in words), default=0
    )


def adoption_hour(hours: Sequence[Collection[str]]) -> int | None:
    """Time to adoption from the newcomer's verdict words on the settled norms, per hour (hour
    1 first): the last hour with a ``violated`` one, provided that a later hour has a
    ``complied`` one. None: not adopted (no hours; no hour violated, so nothing changed:
    ``complied_from_start`` or not measurable; the last hour violated; or no hour after the
    last violation showed it complying: hours that show nothing are trivial compliance, which
    does not count, as for CRSEC's adhering)."""
    last = _last_violated(hours)
    if last == 0:
        return None
    return last if any("complied" in words for words in hours[last:]) else None


def complied_from_start(hours: Sequence[Collection[str]]) -> bool:
    """Whether the newcomer never violated a settled norm and some hour showed it complying:
    it behaved so from its first hour on, which is no change and so no adoption."""
    return _last_violated(hours) == 0 and any("complied" in words for words in hours)


def occasion_shown(hours: Iterable[Collection[str]]) -> bool:
    """Whether some hour's verdict words show an occasion (``violated`` or ``complied``): a
    newcomer whose every verdict is ``not shown`` gives adoption nothing to read."""
    return any(word != "not shown" for words in hours for word in words)


def newcomer_hours(
    events: Iterable[Event], setup: NewcomerSetup, clock: Clock
) -> list[NewcomerHour]:
    """Conflicts, sanctions and calls per finished hour since the arrival."""
    start = setup.start_tick // clock.ticks_per_hour
    name = None if setup.is_control else setup.name
    hours: list[NewcomerHour] = []
    current = NewcomerHour(hour=1, label="")
    for event in events:
        if event.tick < setup.start_tick:
            continue
        if event.kind == "detect":
            current.conflicts += sum(
                isinstance(row, Finding) and row.conflict and row.observed == name
                for row in event.data.findings
            )
        elif event.kind == "conversation":
            current.sanctions += event.data.receiver == name
            current.started += event.agent == name
        elif event.kind == "call":
            current.calls += 1
            current.newcomer_calls += event.agent == name
        elif event.kind == "hour":
            current.label = event.data.label
            current.hour = event.data.hour - start + 1
            hours.append(current)
            current = NewcomerHour(hour=current.hour + 1, label="")
    return hours


@dataclasses.dataclass
class Windows:
    """The hours the judge reads: the same clock hours the day before the arrival, the last
    hour before it, and the newcomer's."""

    before: list[int]
    arrival: int
    after: list[int]

    @property
    def judged(self) -> set[int]:
        return {*self.before, self.arrival, *self.after}


def windows(setup: NewcomerSetup, clock: Clock, done: int) -> Windows:
    start = setup.start_tick // clock.ticks_per_hour
    after = list(range(start, start + done))
    span = min(len(after), clock.hours_per_day)
    before = [hour - clock.hours_per_day for hour in after[:span]]
    return Windows([hour for hour in before if hour >= 0], start - 1, after)


def society_view(loaded: LoadedRun, setup: NewcomerSetup, judged: set[int]) -> LoadedRun:
    """``loaded`` as the analysis should judge it: the society without the newcomer, the
    judged hours only, and the calls since the arrival."""
    society = loaded.config.society
    agents = [agent for agent in society.agents if agent.name != setup.name]
    config = loaded.config.model_copy(
        update={"society": society.model_copy(update={"agents": agents})}
    )
    return dataclasses.replace(
        loaded,
        config=config,
        hours=[hour for hour in loaded.hours if hour.hour in judged],
        metrics=[metrics for metrics in loaded.metrics if metrics.hour in judged],
        calls=[call for call in loaded.calls if call.tick >= setup.start_tick],
    )


def _mean_shares(shares: Sequence[Shares], targets: list[str]) -> Shares:
    return {
        target: {
            measure: sum(s[target][measure] for s in shares) / len(shares) if shares else 0.0
            for measure in DRIFT_MEASURES
        }
        for target in targets
    }


def _shares(hour: HourShares, targets: list[str]) -> Shares:
    return {t: {m: getattr(hour, m)[t] for m in DRIFT_MEASURES} for t in targets}


def _usage(metrics: list[HourMetrics]) -> Usage:
    """The agent usage of the given hours (each hour's metrics line has its own)."""
    return Usage(
        **{name: sum(getattr(m.usage, name) for m in metrics) for name in Usage.model_fields}
    )


async def _verdicts(
    judge: Judge, setup: NewcomerSetup, hours: list[HourData], settled: list[str]
) -> list[tuple[dict[str, str], int]]:
    """Per newcomer hour: the judge's word on each target norm, and the settled ones violated."""
    found: list[tuple[dict[str, str], int]] = []
    for hour in hours:
        state = hour.agents.get(setup.name)
        if setup.is_control or state is None:
            found.append(({}, 0))
            continue
        verdicts = await judge.compliance(setup.name, state.plan, list(state.actions))
        words = {target: verdict_word(verdict) for target, verdict in verdicts.items()}
        found.append((words, sum(words[target] == "violated" for target in settled)))
    return found


def stop_reason(folder: Path, setup: NewcomerSetup, state: WorldState | None) -> str:
    """Why a newcomer run that has not finished stopped: at the budget kept in its folder (the
    same test the simulation stops by, on its calls since the arrival), or not."""
    budget = RunDir(folder).budget()
    used = state.usage.since(setup.source_usage) if state is not None else Usage()
    outcome = budget_outcome(used, budget.max_calls, budget.max_cost)
    if outcome == "budget":
        return f"stopped at its budget ({budget.describe()}, {used.calls} calls since the arrival)"
    if outcome == "cost unknown":
        return "stopped: --max-cost is set but the model reports no price"
    return "stopped before its end, not at its budget (interrupted)"


async def measure_run(
    folder: Path, judge_for: Callable[[LoadedRun], Judge], progress: Callable[[], None] | None
) -> tuple[NewcomerRun, RunResult, RunUsage] | None:
    """One run's measures, the analysis's result over its judged hours, and its usage since
    the arrival by role; None before its first hour has finished."""
    setup = newcomer_setup(folder)
    loaded = load_run(folder)
    clock = loaded.clock
    hours = newcomer_hours(RunDir(folder).events(), setup, clock)
    if not hours:
        return None
    span = windows(setup, clock, len(hours))
    view = society_view(loaded, setup, span.judged)
    judge = judge_for(view)
    result = await analyze_run(view, judge, progress)
    after_metrics = [m for m in loaded.metrics if m.hour in span.after]
    # One setting per arm in the report, and the usage of the newcomer's hours only.
    result = result.model_copy(update={"usage": _usage(after_metrics), "label": setup.label})
    by_hour = {share.hour: share for share in result.hours}
    targets = [target.id for target in loaded.config.society.norms]
    arrival = by_hour.get(span.arrival)
    society_holds = [t for t in targets if arrival is not None and over(arrival.holding[t])]
    emerged = [t for t in targets if arrival is not None and over(arrival.both[t])]
    settled = [] if setup.is_control else emerged
    snapshots = {hour.hour: hour for hour in loaded.hours}
    judged = await _verdicts(judge, setup, [snapshots[h] for h in span.after], settled)
    for hour, (words, violations) in zip(hours, judged, strict=True):
        hour.verdicts, hour.violations = words, violations
    before = _mean_shares([_shares(by_hour[h], targets) for h in span.before], targets)
    window = [_shares(by_hour[h], targets) for h in span.after[: len(span.before)]]
    after = _mean_shares(window, targets)
    last = snapshots[span.after[-1]].agents.get(setup.name)
    held = [norm.content for norm in last.qualified] if last is not None else []
    holds: list[str] | None = None
    if setup.keeps_norms:
        holds = sorted({target for content in held for target in await judge.matches(content)})
    run = NewcomerRun(
        folder=str(folder),
        subject=setup.label,
        model=setup.subject,
        **setup.model_dump(include={"agent", "communication", "seed"}),
        newcomer=setup.name,
        finished=loaded.finished,
        hours=hours,
        planned_hours=setup.hours,
        stopped="" if loaded.finished else stop_reason(folder, setup, loaded.state),
        adoption_norms=settled,
        adoption=None,
        holds=holds,
        held_norms=held if setup.keeps_norms else None,
        society_holds=society_holds,
        society_adheres=[t for t in targets if arrival is not None and over(arrival.adhering[t])],
        society_emerged=emerged,
        before_hours=[by_hour[h].label for h in span.before],
        after_hours=[by_hour[h].label for h in span.after],
        before=before,
        after=after,
        drift={t: {m: after[t][m] - before[t][m] for m in DRIFT_MEASURES} for t in targets},
        window=window,
    )
    if run.measured:
        run.adoption = adoption_hour(run.settled_words())
    calls = (call.data for call in view.calls)
    return run, result, RunUsage(units=len(hours), roles=usage_by(calls, lambda d: d.role))


def corrected(run: NewcomerRun, control: NewcomerRun) -> NewcomerRun:
    """``run`` with its drift corrected by ``control``'s: the society's mean shares over the
    hours both ran, minus the control's over the same hours."""
    length = min(len(run.window), len(control.window))
    targets = list(run.after)
    ours = _mean_shares(run.window[:length], targets)
    theirs = _mean_shares(control.window[:length], targets)
    drift = {t: {m: ours[t][m] - theirs[t][m] for m in DRIFT_MEASURES} for t in targets}
    return run.model_copy(update={"control": control.folder, "corrected_drift": drift})


def with_controls(runs: list[NewcomerRun]) -> list[NewcomerRun]:
    """Every newcomer run paired with the control of its seed and communication setting."""
    controls = {(r.seed, r.communication): r for r in runs if r.agent == CONTROL}
    return [
        corrected(run, controls[(run.seed, run.communication)])
        if run.agent != CONTROL and (run.seed, run.communication) in controls
        else run
        for run in runs
    ]
