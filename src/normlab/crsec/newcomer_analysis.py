"""What a newcomer run measures (issues 24 and 31), per run and per arm over seeds.

Definitions (ours: no paper defines them), per newcomer run, by simulated hour since its
arrival (hour 1 is its first):

- **verdicts**: the metrics' judge on the newcomer's own plan and actions of the hour, per
  norm at stake (``judge_compliance.txt``, as CRSEC's adherence is judged): ``violated`` in
  the plan or the actions, ``complied`` (shown, and violated in neither) or ``not shown``;
- **violations**: the norms the society had settled on when it arrived (held by over 70% of
  its agents) that the hour's verdict finds violated;
- **time to adoption**: the first hour after which it violated none of them for the rest of
  the run (0: it never did), provided that it *complied* with one of them on an occasion (a
  ``complied`` verdict) in some later hour: as CRSEC's adhering, trivial compliance does not
  count, so hours that show nothing are no sign of adoption. Not adopted (None): its last
  hour still violated, or no hour after its last violation showed it complying. **Not
  measurable**: no hour showed an occasion at all (every verdict ``not shown``); such a run
  is counted apart, never as adopted. Read from its own behaviour, not from what others
  noticed: a newcomer that smokes at its table every hour is seen once (perception registers
  changes), and is never adopted;
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

Per arm (the model, ``MODEL + norm-memory``, the control; each also without communication)
over seeds: the share of runs adopted and the adoption curve (Wilson interval), violations,
conflicts and sanctions per hour and drift (mean with a bootstrap interval), and pairs of arms
by seed (``normlab.stats``): norm-memory against base, and each arm against its
no-communication twin (what sanctions do).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.logs import BASE_AGENT
from normlab.crsec.analysis import (
    EMERGENCE_SHARE,
    CrsecAnalysis,
    HourShares,
    LoadedRun,
    RunResult,
    analyze_run,
    group_result,
    load_run,
    verdict_word,
)
from normlab.crsec.events import Event, Finding, HourData
from normlab.crsec.judge import Judge
from normlab.crsec.newcomer import CONTROL, NewcomerSetup, newcomer_setup
from normlab.crsec.rundir import RunDir
from normlab.crsec.schemas import HourMetrics, Usage, WorldState
from normlab.crsec.sim import budget_outcome
from normlab.models import ModelClient, RunUsage
from normlab.models.usage import usage_by
from normlab.norms.clock import Clock
from normlab.stats import Estimate, Rate

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
    """The norms adoption is read on: those over 70% of the society held when it arrived
    (none in the control, or when the society had settled on none)."""
    adoption: int | None
    """The hour after which its verdicts show no violation (0: none ever did), a later hour
    showing it complying (``adoption_hour``); None: not adopted (the last hour still
    violated, or no hour after the last violation showed compliance), nothing to adopt, or
    not measurable (``shown``)."""
    holds: list[str] | None
    """Target norms its qualified norms express at the end; None: it keeps no norm database."""
    held_norms: list[str] | None
    society_holds: list[str]
    """Target norms over 70% of the society's agents held when the newcomer arrived."""
    society_adheres: list[str]
    """Target norms over 70% of the society's agents adhered to in the hour before."""
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
    def measurable(self) -> bool:
        """Measured, and some hour showed an occasion: the runs adoption's n counts."""
        return self.measured and self.shown


class SubjectSummary(BaseModel):
    """One arm's runs over seeds."""

    subject: str
    model: str
    agent: str
    communication: bool
    seeds: list[int]
    adopted: Rate
    """Runs whose newcomer stopped violating the settled norms and then complied with one on
    an occasion, k of n (n: the runs whose newcomer showed an occasion, violating or
    complying, in some hour; ``not_measurable`` are left out)."""
    adoption_hour: Estimate
    """Mean time to adoption over the runs that adopted."""
    adoption_curve: list[Rate]
    """Index h (0 … hours): runs adopted by the end of hour h (n as ``adopted``'s)."""
    violations: list[Estimate]
    """Per hour (index 0 is hour 1): settled norms violated, mean over runs."""
    violations_total: Estimate
    conflicts: list[Estimate]
    sanctions: list[Estimate]
    conflicts_total: Estimate
    sanctions_total: Estimate
    holds: dict[str, Rate] | None
    """Per target norm: runs whose newcomer holds it at the end; None: no norm database."""
    drift: dict[str, dict[str, Estimate]]
    corrected_drift: dict[str, dict[str, Estimate]] = Field(default_factory=dict)
    """Per target and measure: the runs' control-corrected drift, mean with its bootstrap
    interval over seeds, n the runs with a control (empty for the control itself)."""
    calls_per_hour: Estimate
    """Agent calls per simulated hour after the arrival, the society's and the newcomer's."""
    newcomer_calls_per_hour: Estimate
    not_measurable: int = 0
    """Runs (with settled norms) whose newcomer showed no occasion in any hour, every verdict
    ``not shown``: neither adopted nor not, so outside ``adopted``'s n."""


class Comparison(BaseModel):
    """One arm against another on the same checkpoint and seeds (treatment − reference)."""

    treatment: str
    reference: str
    seeds: list[int]
    adopted: Estimate
    """Δ share of runs adopted (paired by seed, over pairs both measurable)."""
    violations_total: Estimate
    conflicts_total: Estimate
    sanctions_total: Estimate
    corrected_drift: dict[str, dict[str, Estimate]]
    """Δ control-corrected drift (pairs where both have a control)."""


class NewcomerSummary(BaseModel):
    """``newcomer_summary.json``: every run, each arm, and the comparisons."""

    source: str
    society: str
    newcomer: str
    like: str
    occasion: str
    """The newcomer's daily requirement: its occasion every hour."""
    arrival: str
    hours: int
    judge_model: str
    targets: dict[str, str]
    """Target norm id → statement."""
    society_holds: list[str]
    society_adheres: list[str]
    adoption_norms: list[str]
    runs: list[NewcomerRun]
    subjects: list[SubjectSummary]
    comparisons: list[Comparison] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


# --- one run ------------------------------------------------------------------------


def adoption_hour(hours: Sequence[Collection[str]]) -> int | None:
    """Time to adoption from the newcomer's verdict words on the settled norms, per hour (hour
    1 first): the last hour with a ``violated`` one (0 when none had), provided that a later
    hour has a ``complied`` one. None: not adopted (no hours; the last hour violated; or no
    hour after the last violation showed it complying: hours that show nothing are trivial
    compliance, which does not count, as for CRSEC's adhering)."""
    last = max(
        (hour for hour, words in enumerate(hours, start=1) if "violated" in words), default=0
    )
    return last if any("complied" in words for words in hours[last:]) else None


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
    society_holds = [
        t for t in targets if arrival is not None and arrival.holding[t] > EMERGENCE_SHARE
    ]
    settled = [] if setup.is_control else society_holds
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
        agent=setup.agent,
        communication=setup.communication,
        seed=setup.seed,
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
        society_adheres=[
            t for t in targets if arrival is not None and arrival.adhering[t] > EMERGENCE_SHARE
        ],
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


# --- over seeds ---------------------------------------------------------------------


def _per_hour(runs: list[NewcomerRun], field: str) -> list[Estimate]:
    length = max(len(run.hours) for run in runs)
    return [
        Estimate.mean_of(
            [float(getattr(run.hours[h], field)) for run in runs if h < len(run.hours)]
        )
        for h in range(length)
    ]


def _total(run: NewcomerRun, field: str) -> float:
    return float(sum(getattr(hour, field) for hour in run.hours))


def _drift(values: list[Shares]) -> dict[str, dict[str, Estimate]]:
    if not values:
        return {}
    return {
        t: {m: Estimate.mean_of([value[t][m] for value in values]) for m in DRIFT_MEASURES}
        for t in values[0]
    }


def subject_summary(runs: list[NewcomerRun]) -> SubjectSummary:
    first = runs[0]
    length = max(len(run.hours) for run in runs)
    measured = [run for run in runs if run.measured]
    measurable = [run for run in measured if run.shown]
    adopted = [run.adoption for run in measurable if run.adoption is not None]
    holds = None
    if first.holds is not None:
        holds = {
            target: Rate.of(sum(target in (run.holds or []) for run in runs), len(runs))
            for target in first.drift
        }
    return SubjectSummary(
        subject=first.subject,
        model=first.model,
        agent=first.agent,
        communication=first.communication,
        seeds=[run.seed for run in runs],
        adopted=Rate.of(len(adopted), len(measurable)),
        adoption_hour=Estimate.mean_of([float(hour) for hour in adopted]),
        adoption_curve=[
            Rate.of(sum(hour <= h for hour in adopted), len(measurable)) for h in range(length + 1)
        ],
        not_measurable=len(measured) - len(measurable),
        violations=_per_hour(measured, "violations") if measured else [],
        violations_total=Estimate.mean_of([_total(run, "violations") for run in measured]),
        conflicts=_per_hour(runs, "conflicts"),
        sanctions=_per_hour(runs, "sanctions"),
        conflicts_total=Estimate.mean_of([_total(run, "conflicts") for run in runs]),
        sanctions_total=Estimate.mean_of([_total(run, "sanctions") for run in runs]),
        holds=holds,
        drift=_drift([run.drift for run in runs]),
        corrected_drift=_drift([r.corrected_drift for r in runs if r.corrected_drift is not None]),
        calls_per_hour=Estimate.mean_of([_total(run, "calls") / len(run.hours) for run in runs]),
        newcomer_calls_per_hour=Estimate.mean_of(
            [_total(run, "newcomer_calls") / len(run.hours) for run in runs]
        ),
    )


def compare(treatment: list[NewcomerRun], reference: list[NewcomerRun]) -> Comparison | None:
    """``treatment`` − ``reference`` over the seeds both ran; None when they share none."""
    by_seed = {run.seed: run for run in reference}
    pairs = [(run, by_seed[run.seed]) for run in treatment if run.seed in by_seed]
    if not pairs:
        return None

    def delta(
        value: Callable[[NewcomerRun], float], among: Sequence[tuple[NewcomerRun, NewcomerRun]]
    ) -> Estimate:
        return Estimate.paired_delta([value(t) for t, _ in among], [value(r) for _, r in among])

    measured = [(t, r) for t, r in pairs if t.measured and r.measured]
    measurable = [(t, r) for t, r in measured if t.shown and r.shown]
    drifted = [(t, r) for t, r in pairs if t.corrected_drift and r.corrected_drift]

    def drift(target: str, measure: str) -> Estimate:
        return delta(lambda run: (run.corrected_drift or {})[target][measure], drifted)

    return Comparison(
        treatment=treatment[0].subject,
        reference=reference[0].subject,
        seeds=[t.seed for t, _ in pairs],
        adopted=delta(lambda run: float(run.adoption is not None), measurable),
        violations_total=delta(lambda run: _total(run, "violations"), measured),
        conflicts_total=delta(lambda run: _total(run, "conflicts"), pairs),
        sanctions_total=delta(lambda run: _total(run, "sanctions"), pairs),
        corrected_drift={t: {m: drift(t, m) for m in DRIFT_MEASURES} for t in treatment[0].drift},
    )


def comparisons(by_subject: dict[str, list[NewcomerRun]]) -> list[Comparison]:
    """Every agent against the base model of the same subject model and communication, then
    every newcomer arm against its no-communication twin (what sanctions do), by seed."""
    arms = [runs for runs in by_subject.values() if runs[0].agent != CONTROL]
    pairs = [
        (runs, base)
        for runs in arms
        for base in arms
        if runs[0].agent != BASE_AGENT
        and base[0].agent == BASE_AGENT
        and (base[0].model, base[0].communication) == (runs[0].model, runs[0].communication)
    ]
    pairs += [
        (runs, silent)
        for runs in arms
        for silent in arms
        if runs[0].communication
        and not silent[0].communication
        and (silent[0].model, silent[0].agent) == (runs[0].model, runs[0].agent)
    ]
    return [found for runs, base in pairs if (found := compare(runs, base)) is not None]


def _notes(runs: list[NewcomerRun]) -> list[str]:
    notes = []
    first = runs[0]
    if not first.society_holds:
        notes.append(
            "When the newcomer arrived, over 70% of the society held no norm at stake: it had "
            "not settled on one, so there was no norm to adopt (adoption is not measured)."
        )
    blank = [f"{r.subject} seed {r.seed}" for r in runs if r.measured and not r.shown]
    if blank:
        notes.append(
            f"Not measurable (no hour showed the newcomer on an occasion of the settled norms, "
            f"every verdict 'not shown'; counted apart from adoption's n): {', '.join(blank)}"
        )
    alone = [r.folder for r in runs if r.agent != CONTROL and r.corrected_drift is None]
    if alone:
        notes.append(f"No finished control hour for (drift not corrected): {', '.join(alone)}")
    for run in runs:
        if not run.finished:
            # Its lines in the figures and its per-hour cells end at its last hour.
            notes.append(
                f"{run.subject} seed {run.seed} {run.stopped} after {len(run.hours)} of "
                f"{run.planned_hours} hours; its curves end there. To go on: normlab crsec "
                f"resume {Path(run.folder).parent.parent}, with --max-calls above a budget it "
                "stopped at"
            )
    return notes


async def analyze_newcomers(
    folders: list[Path],
    client: ModelClient,
    judge_model: str,
    cache: Path,
    progress: Callable[[], None] | None = None,
) -> tuple[NewcomerSummary, CrsecAnalysis]:
    """Every run's measures (judge verdicts cached in ``cache``, shared by the runs: the day
    before the arrival is the same in all of them), each newcomer run's drift corrected by
    its control, the summary, and the analysis the CRSEC report draws (the society without
    the newcomer, one setting per arm)."""

    def judge_for(view: LoadedRun) -> Judge:
        return Judge(client, judge_model, cache, view.config.society.norms)

    measured: list[tuple[NewcomerRun, RunResult, RunUsage]] = []
    for folder in folders:
        found = await measure_run(folder, judge_for, progress)
        if found is not None:
            measured.append(found)
    if not measured:
        raise InputError(folders[0], "no newcomer run has finished an hour yet: nothing to measure")
    runs = with_controls([run for run, _, _ in measured])
    setups = [newcomer_setup(Path(run.folder)) for run in runs]
    joined = next((setup for setup in setups if not setup.is_control), setups[0])
    by_subject: dict[str, list[NewcomerRun]] = {}
    results: dict[str, list[RunResult]] = {}
    for run, (_, result, _) in zip(runs, measured, strict=True):
        by_subject.setdefault(run.subject, []).append(run)
        results.setdefault(run.subject, []).append(result)
    society = load_run(folders[0]).config.society
    targets = society.norms
    first = runs[0]
    summary = NewcomerSummary(
        source=setups[0].source,
        society=society.name,
        newcomer=joined.name,
        like=joined.like,
        occasion=joined.occasion,
        arrival=first.after_hours[0],
        hours=max(setup.hours for setup in setups),
        judge_model=judge_model,
        targets={target.id: target.statement for target in targets},
        society_holds=first.society_holds,
        society_adheres=first.society_adheres,
        adoption_norms=first.society_holds,
        runs=runs,
        subjects=[subject_summary(arm) for arm in by_subject.values()],
        comparisons=comparisons(by_subject),
        notes=_notes(runs),
    )
    analysis = CrsecAnalysis(
        runs=[result for _, result, _ in measured],
        groups=[group_result(label, arm) for label, arm in results.items()],
        targets=targets,
        judge_model=judge_model,
        usage={run.folder: usage for run, _, usage in measured},
    )
    return summary, analysis
