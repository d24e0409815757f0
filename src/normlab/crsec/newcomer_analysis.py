"""What a newcomer run measures (issue 24), per run and per subject over seeds.

Definitions (ours: no paper defines them), per newcomer run, by simulated hour since its
arrival (hour 1 is its first):

- **conflicts**: the society's DetectConflict findings about the newcomer: observations of
  what it did that an agent found in conflict with its qualified norms (Q1 = yes), counted
  per observation, as Figure 2(a)'s conflicts are;
- **sanctions**: conversations a society agent started with the newcomer, which in CRSEC
  happen only over a conflict the sender decided to talk about (DecideToTalk): each is one
  attempt to correct it; conversations the newcomer started itself are counted apart;
- **time to adoption**: the first hour after which none of its actions conflicts with the
  society's norms for the rest of the run (0: none ever did; None: the last hour still had
  a conflict);
- **norms held at the end**: the target norms its qualified norms express at the last hour,
  matched by the metrics' judge as CRSEC's holding is (``judge_match.txt``), beside those
  over 70% of the society held when it arrived; a plain newcomer keeps none (None);
- **drift**: the society's shares (the newcomer left out) holding and adhering to each norm,
  averaged over the newcomer's hours, minus the same over the same clock hours of the day
  before it came (a day's requirements set what agents do at each hour, so a window of other
  hours would show the schedule rather than the newcomer); the existing analysis
  (:func:`~normlab.crsec.analysis.analyze_run`) computes every share.

Per subject (the model, or ``MODEL + norm-memory``) over seeds: the adoption curve (the share
of runs adopted by each hour, Wilson interval), conflicts and sanctions per hour and drift
(mean with a bootstrap interval), and the norm-memory agent against the base model, paired
by seed (:mod:`normlab.stats`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
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
)
from normlab.crsec.clock import Clock
from normlab.crsec.events import Event, Finding
from normlab.crsec.judge import Judge
from normlab.crsec.newcomer import NewcomerSetup, newcomer_setup
from normlab.crsec.rundir import RunDir
from normlab.crsec.schemas import HourMetrics, Usage
from normlab.models import ModelClient, RunUsage
from normlab.models.usage import usage_by
from normlab.stats import Estimate, Rate

DRIFT_MEASURES = ("holding", "adhering")
Shares = dict[str, dict[str, float]]
"""target norm → measure → share of the society's agents."""


class NewcomerHour(BaseModel):
    """One simulated hour since the newcomer arrived."""

    hour: int
    """1 is the newcomer's first hour."""
    label: str
    conflicts: int = 0
    sanctions: int = 0
    started: int = 0
    """Conversations the newcomer started (it enforced a norm of its own)."""
    calls: int = 0
    """Every agent call of the hour, the society's and the newcomer's."""
    newcomer_calls: int = 0


class NewcomerRun(BaseModel):
    """One newcomer run's measures."""

    folder: str
    subject: str
    model: str
    agent: str
    seed: int
    newcomer: str
    finished: bool
    hours: list[NewcomerHour]
    adoption: int | None
    """The hour after which no action of the newcomer conflicted (0: none ever did)."""
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


class SubjectSummary(BaseModel):
    """One subject's newcomer runs over seeds."""

    subject: str
    model: str
    agent: str
    seeds: list[int]
    adopted: Rate
    """Runs whose newcomer adopted (stopped conflicting before the end), k of n."""
    adoption_hour: Estimate
    """Mean time to adoption over the runs that adopted."""
    adoption_curve: list[Rate]
    """Index h (0 … hours): runs adopted by the end of hour h."""
    conflicts: list[Estimate]
    """Per hour (index 0 is hour 1): conflicts, mean over runs."""
    sanctions: list[Estimate]
    conflicts_total: Estimate
    sanctions_total: Estimate
    holds: dict[str, Rate] | None
    """Per target norm: runs whose newcomer holds it at the end; None: no norm database."""
    drift: dict[str, dict[str, Estimate]]
    calls_per_hour: Estimate
    """Agent calls per simulated hour after the arrival, the society's and the newcomer's."""
    newcomer_calls_per_hour: Estimate


class Comparison(BaseModel):
    """The norm-memory agent against the base model on the same checkpoint and seeds."""

    treatment: str
    control: str
    seeds: list[int]
    adopted: Estimate
    """Δ share of runs adopted (paired by seed)."""
    conflicts_total: Estimate
    sanctions_total: Estimate
    drift: dict[str, dict[str, Estimate]]


class NewcomerSummary(BaseModel):
    """``newcomer_summary.json``: every newcomer run, each subject, and the comparisons."""

    source: str
    society: str
    newcomer: str
    like: str
    arrival: str
    hours: int
    judge_model: str
    targets: dict[str, str]
    """Target norm id → statement."""
    society_holds: list[str]
    society_adheres: list[str]
    runs: list[NewcomerRun]
    subjects: list[SubjectSummary]
    comparisons: list[Comparison] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)


# --- one run ------------------------------------------------------------------------


def adoption_hour(conflicts: Sequence[int]) -> int | None:
    """The first hour after which no hour had a conflict: 0 when none had; None when the
    last one did (or there is none)."""
    if not conflicts or conflicts[-1]:
        return None
    return max((hour for hour, count in enumerate(conflicts, start=1) if count), default=0)


def newcomer_hours(
    events: Iterable[Event], setup: NewcomerSetup, clock: Clock
) -> list[NewcomerHour]:
    """Conflicts, sanctions and calls per finished hour since the arrival."""
    start = setup.start_tick // clock.ticks_per_hour
    hours: list[NewcomerHour] = []
    current = NewcomerHour(hour=1, label="")
    for event in events:
        if event.tick < setup.start_tick:
            continue
        if event.kind == "detect":
            current.conflicts += sum(
                isinstance(row, Finding) and row.conflict and row.observed == setup.name
                for row in event.data.findings
            )
        elif event.kind == "conversation":
            current.sanctions += event.data.receiver == setup.name
            current.started += event.agent == setup.name
        elif event.kind == "call":
            current.calls += 1
            current.newcomer_calls += event.agent == setup.name
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


def _mean_shares(shares: list[HourShares], targets: list[str]) -> Shares:
    return {
        target: {
            measure: sum(getattr(s, measure)[target] for s in shares) / len(shares)
            if shares
            else 0.0
            for measure in DRIFT_MEASURES
        }
        for target in targets
    }


def _usage(metrics: list[HourMetrics]) -> Usage:
    """The agent usage of the given hours (each hour's metrics line has its own)."""
    return Usage(
        **{name: sum(getattr(m.usage, name) for m in metrics) for name in Usage.model_fields}
    )


async def measure_run(
    folder: Path, judge_for: Callable[[LoadedRun], Judge], progress: Callable[[], None] | None
) -> tuple[NewcomerRun, RunResult, RunUsage] | None:
    """One newcomer run's measures, the analysis's result over its judged hours, and its
    usage since the arrival by role; None before its first hour has finished."""
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
    # One setting per subject in the report, and the usage of the newcomer's hours only.
    result = result.model_copy(update={"usage": _usage(after_metrics), "label": setup.label})
    by_hour = {share.hour: share for share in result.hours}
    targets = [target.id for target in loaded.config.society.norms]
    before = _mean_shares([by_hour[h] for h in span.before], targets)
    after = _mean_shares([by_hour[h] for h in span.after[: len(span.before)]], targets)
    last = next(h for h in reversed(loaded.hours) if h.hour == span.after[-1])
    held = [norm.content for norm in last.agents[setup.name].qualified]
    holds: list[str] | None = None
    if setup.keeps_norms:
        holds = sorted({target for content in held for target in await judge.matches(content)})
    arrival = by_hour.get(span.arrival)
    run = NewcomerRun(
        folder=str(folder),
        subject=setup.label,
        model=setup.subject,
        agent=setup.agent,
        seed=setup.seed,
        newcomer=setup.name,
        finished=loaded.finished,
        hours=hours,
        adoption=adoption_hour([hour.conflicts for hour in hours]),
        holds=holds,
        held_norms=held if setup.keeps_norms else None,
        society_holds=[
            t for t in targets if arrival is not None and arrival.holding[t] > EMERGENCE_SHARE
        ],
        society_adheres=[
            t for t in targets if arrival is not None and arrival.adhering[t] > EMERGENCE_SHARE
        ],
        before_hours=[by_hour[h].label for h in span.before],
        after_hours=[by_hour[h].label for h in span.after],
        before=before,
        after=after,
        drift={t: {m: after[t][m] - before[t][m] for m in DRIFT_MEASURES} for t in targets},
    )
    calls = (call.data for call in view.calls)
    return run, result, RunUsage(units=len(hours), roles=usage_by(calls, lambda d: d.role))


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


def _drift(runs: list[NewcomerRun]) -> dict[str, dict[str, Estimate]]:
    targets = list(runs[0].drift)
    return {
        t: {m: Estimate.mean_of([run.drift[t][m] for run in runs]) for m in DRIFT_MEASURES}
        for t in targets
    }


def subject_summary(runs: list[NewcomerRun]) -> SubjectSummary:
    first = runs[0]
    length = max(len(run.hours) for run in runs)
    adopted = [run.adoption for run in runs if run.adoption is not None]
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
        seeds=[run.seed for run in runs],
        adopted=Rate.of(len(adopted), len(runs)),
        adoption_hour=Estimate.mean_of([float(hour) for hour in adopted]),
        adoption_curve=[
            Rate.of(sum(hour <= h for hour in adopted), len(runs)) for h in range(length + 1)
        ],
        conflicts=_per_hour(runs, "conflicts"),
        sanctions=_per_hour(runs, "sanctions"),
        conflicts_total=Estimate.mean_of([_total(run, "conflicts") for run in runs]),
        sanctions_total=Estimate.mean_of([_total(run, "sanctions") for run in runs]),
        holds=holds,
        drift=_drift(runs),
        calls_per_hour=Estimate.mean_of([_total(run, "calls") / len(run.hours) for run in runs]),
        newcomer_calls_per_hour=Estimate.mean_of(
            [_total(run, "newcomer_calls") / len(run.hours) for run in runs]
        ),
    )


def compare(treatment: list[NewcomerRun], control: list[NewcomerRun]) -> Comparison | None:
    """``treatment`` − ``control`` over the seeds both ran; None when they share none."""
    by_seed = {run.seed: run for run in control}
    pairs = [(run, by_seed[run.seed]) for run in treatment if run.seed in by_seed]
    if not pairs:
        return None

    def delta(value: Callable[[NewcomerRun], float]) -> Estimate:
        return Estimate.paired_delta([value(t) for t, _ in pairs], [value(c) for _, c in pairs])

    def drift(target: str, measure: str) -> Estimate:
        return delta(lambda run: run.drift[target][measure])

    return Comparison(
        treatment=treatment[0].subject,
        control=control[0].subject,
        seeds=[t.seed for t, _ in pairs],
        adopted=delta(lambda run: float(run.adoption is not None)),
        conflicts_total=delta(lambda run: _total(run, "conflicts")),
        sanctions_total=delta(lambda run: _total(run, "sanctions")),
        drift={t: {m: drift(t, m) for m in DRIFT_MEASURES} for t in treatment[0].drift},
    )


def comparisons(by_subject: dict[str, list[NewcomerRun]]) -> list[Comparison]:
    """Every agent against the base model of the same subject model, paired by seed."""
    found = []
    for runs in by_subject.values():
        if runs[0].agent == BASE_AGENT:
            continue
        bases = [
            other
            for other in by_subject.values()
            if other[0].agent == BASE_AGENT and other[0].model == runs[0].model
        ]
        for base in bases:
            if (comparison := compare(runs, base)) is not None:
                found.append(comparison)
    return found


async def analyze_newcomers(
    folders: list[Path],
    client: ModelClient,
    judge_model: str,
    cache: Path,
    progress: Callable[[], None] | None = None,
) -> tuple[NewcomerSummary, CrsecAnalysis]:
    """Every newcomer run's measures (judge verdicts cached in ``cache``, shared by the runs:
    the day before the arrival is the same in all of them), the summary, and the analysis
    the CRSEC report draws (the society without the newcomer, one setting per subject)."""

    def judge_for(view: LoadedRun) -> Judge:
        return Judge(client, judge_model, cache, view.config.society.norms)

    measured: list[tuple[NewcomerRun, RunResult, RunUsage]] = []
    for folder in folders:
        found = await measure_run(folder, judge_for, progress)
        if found is not None:
            measured.append(found)
    if not measured:
        raise InputError(folders[0], "no newcomer run has finished an hour yet: nothing to measure")
    setups = [newcomer_setup(Path(run.folder)) for run, _, _ in measured]
    by_subject: dict[str, list[NewcomerRun]] = {}
    results: dict[str, list[RunResult]] = {}
    for run, result, _ in measured:
        by_subject.setdefault(run.subject, []).append(run)
        results.setdefault(run.subject, []).append(result)
    config = load_run(folders[0]).config
    targets = config.society.norms
    first = measured[0][0]
    notes = []
    if not first.society_holds and not first.society_adheres:
        notes.append(
            "When the newcomer arrived, over 70% of the society neither held nor adhered to "
            "any norm at stake: it had not converged, so there was no settled norm to adopt."
        )
    unfinished = [run.folder for run, _, _ in measured if not run.finished]
    if unfinished:
        notes.append(f"Not finished (give the same command again): {', '.join(unfinished)}")
    summary = NewcomerSummary(
        source=setups[0].source,
        society=config.society.name,
        newcomer=setups[0].name,
        like=setups[0].like,
        arrival=first.after_hours[0],
        hours=max(setup.hours for setup in setups),
        judge_model=judge_model,
        targets={target.id: target.statement for target in targets},
        society_holds=first.society_holds,
        society_adheres=first.society_adheres,
        runs=[run for run, _, _ in measured],
        subjects=[subject_summary(runs) for runs in by_subject.values()],
        comparisons=comparisons(by_subject),
        notes=notes,
    )
    analysis = CrsecAnalysis(
        runs=[result for _, result, _ in measured],
        groups=[group_result(label, runs) for label, runs in results.items()],
        targets=targets,
        judge_model=judge_model,
        usage={run.folder: usage for run, _, usage in measured},
    )
    return summary, analysis
