"""What newcomer runs measure per arm over seeds (issues 24 and 31); each run's measures, and
their definitions, are ``normlab.crsec.newcomer.measure``'s.

Per arm (the model, ``MODEL + norm-memory``, the control; each also without communication)
over seeds: the share of runs adopted and the adoption curve (Wilson interval), violations,
conflicts and sanctions per hour and drift (mean with a bootstrap interval), and pairs of arms
by seed (``normlab.stats``): norm-memory against base, and each arm against its
no-communication twin (what sanctions do).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.core.errors import InputError
from normlab.core.logs import BASE_AGENT
from normlab.crsec.analysis.figure2 import (
    CrsecAnalysis,
    LoadedRun,
    RunResult,
    group_result,
    load_run,
)
from normlab.crsec.analysis.judge import Judge
from normlab.crsec.newcomer.measure import (
    DRIFT_MEASURES,
    NewcomerRun,
    Shares,
    measure_run,
    with_controls,
)
from normlab.crsec.newcomer.setup import CONTROL, newcomer_setup
from normlab.models import ModelClient, RunUsage
from normlab.stats import Estimate, Rate


class SubjectSummary(BaseModel):
    """One arm's runs over seeds."""

    subject: str
    model: str
    agent: str
    communication: bool
    seeds: list[int]
    adopted: Rate
    """Runs whose newcomer stopped violating the settled norms and then complied with one on
    an occasion, k of n (n: the runs whose newcomer violated in some hour; ``not_measurable``
    and ``from_start`` are left out)."""
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
    from_start: int = 0
    """Runs (with settled norms) whose newcomer never violated and complied in some hour: it
    complied from the start, no change to call adoption, so outside ``adopted``'s n."""


class Comparison(BaseModel):
    """One arm against another on the same checkpoint and seeds (treatment − reference)."""

    treatment: str
    reference: str
    seeds: list[int]
    adopted: Estimate
    """Δ share of runs adopted (paired by seed, over pairs both measurable: an occasion
    shown and some hour violated)."""
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
    measurable = [run for run in measured if run.measurable]
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
        not_measurable=sum(not run.shown for run in measured),
        from_start=sum(run.from_start for run in measured),
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
    measurable = [(t, r) for t, r in measured if t.measurable and r.measurable]
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
    if not first.society_emerged:
        notes.append(
            "When the newcomer arrived, no norm at stake had emerged (over 70% of the society "
            "each holding and adhering to it): it had not settled on one, so there was no norm "
            "to adopt (adoption is not measured)."
        )
    blank = [f"{r.subject} seed {r.seed}" for r in runs if r.measured and not r.shown]
    if blank:
        notes.append(
            f"Not measurable (no hour showed the newcomer on an occasion of the settled norms, "
            f"every verdict 'not shown'; counted apart from adoption's n): {', '.join(blank)}"
        )
    early = [f"{r.subject} seed {r.seed}" for r in runs if r.from_start]
    if early:
        notes.append(
            "Complied from the start (never violated a settled norm and complied on an "
            f"occasion: no change, so no adoption; counted apart from adoption's n): "
            f"{', '.join(early)}"
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
        adoption_norms=first.society_emerged,
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
