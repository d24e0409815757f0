"""Paired differences between a study's subjects, per system, over the units both measured.

Two subjects on the same scenarios share each scenario's difficulty; pairing unit by unit
removes it, so a paired interval is narrower than comparing two independent intervals (and
the ranking's overlapping intervals alone would understate what the study can tell apart).
The units are the headline's own: LoSoNA scenarios (accuracy-at-K under the headline
condition, the majority label per scenario), SCENE scenarios (repaired over sanctions pooled
over the scenario's episodes in the headline view, the pooled-rate delta), HSII cases (each
case's four stage values; the HSII score is a product of stage rates, not a mean over cases,
so the difference of the two scores is recomputed with HSII's own score function on each
resample of the shared cases, whole dialogues at a time as HSII's own intervals resample).
CRSEC's unit, the run, is not shared between subjects (each simulates its own society), so
it has no paired form.

Multiple comparisons: every pair of subjects is compared, so k subjects make k(k−1)/2
comparisons per system. Each pair gets its 95% percentile interval from ``normlab.stats``
(bootstrap over units), unadjusted, and a family-wise one: the same bootstrap read at
1 − 0.05/m (Bonferroni), so that all m intervals of a system cover their differences together
at least 95% of the time. A study that asks "is a better than b?" once reads the first; one
that reads every pair for a winner reads the second.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from normlab.stats import Estimate, Interval, Statistic


@dataclass(frozen=True)
class UnitRows:
    """Per unit, a row a statistic reads whole (HSII: a case's four stage values, NaN where
    the case is not in a stage's denominator), each unit's cluster, and the statistic."""

    rows: dict[str, tuple[float, ...]]
    clusters: dict[str, str]
    statistic: Statistic


UnitValues = dict[str, float] | dict[str, tuple[int, int]] | UnitRows
"""Per unit id: a value averaged over units, (k, n) counts pooled over units, or rows a
statistic reads."""

HEADLINE_CONDITION = "norm_informed"
FAMILY_ALPHA = 0.05
"""The family-wise error rate the Bonferroni intervals keep over a system's comparisons."""


class PairedDifference(BaseModel):
    first: str
    """The higher-ranked subject; ``delta`` is first − second."""
    second: str
    delta: Estimate
    """Paired difference over the shared units; ``n`` is their count."""
    familywise: Interval | None = None
    """The same bootstrap's interval at 1 − 0.05/m over the system's m comparisons."""


class Comparisons(BaseModel):
    unit: str
    pairs: list[PairedDifference]
    comparisons: int
    note: str


def _losona_units(run: Any, analysis: Any) -> UnitValues:
    from normlab.losona import scenario_outcomes

    result = next(iter(analysis.models.values()), None)
    if result is None or not result.conditions:
        return {}
    conditions = result.conditions
    condition = HEADLINE_CONDITION if HEADLINE_CONDITION in conditions else next(iter(conditions))
    records = [r for r in run.records if r.condition == condition]
    return {
        o.scenario_id: float(o.majority)
        for o in scenario_outcomes(records)
        if o.majority is not None
    }


def _scene_units(run: Any, analysis: Any) -> UnitValues:
    from normlab.scene import episode_views

    labelled = [r.outcome for r in run.records if r.outcome.labelled]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in episode_views(labelled)[analysis.headline_view]:
        counts[outcome.scenario_id][0] += outcome.repaired
        counts[outcome.scenario_id][1] += outcome.sanctions
    return {scenario: (k, n) for scenario, (k, n) in counts.items()}


def hsii_statistic(result: Any) -> Statistic:
    """HSII's score of a matrix of stage rows, under the weights and formula of the cell's
    analysis (``result``, its model result): each rate over the cases in its denominator
    (a rate with none counts 0, as the analysis does), then
    [`normlab.hsii.hsii_score`][normlab.hsii.hsii_score]."""
    from normlab.hsii import hsii_score

    def score(rows: NDArray[np.float64]) -> float:
        rates = []
        for column in rows.T:
            reached = column[~np.isnan(column)]
            rates.append(float(reached.mean()) if reached.size else 0.0)
        return float(
            hsii_score(
                *rates,
                alpha=result.alpha,
                beta=result.beta,
                gamma=result.gamma,
                formula=result.formula,
            )
        )

    return score


def _hsii_units(run: Any, analysis: Any) -> UnitValues:
    from normlab.hsii import stages_of

    result = next(iter(analysis.models.values()), None)
    if result is None:
        return {}
    return UnitRows(
        rows={r.case_id: tuple(stages_of(r).values()) for r in run.records},
        clusters={r.case_id: r.cluster for r in run.records},
        statistic=hsii_statistic(result),
    )


UNITS: dict[str, tuple[Callable[[Any, Any], UnitValues], str]] = {
    "losona": (_losona_units, "scenario"),
    "scene": (_scene_units, "scenario"),
    "hsii": (_hsii_units, "case"),
}
"""How each pairable system's headline breaks into units, and what a unit is."""


def units_of(system: str, run: Any, analysis: Any) -> UnitValues | None:
    """The headline per unit of one cell, or None when the system has no paired form."""
    found = UNITS.get(system)
    return None if found is None else found[0](run, analysis)


def _count(values: UnitValues | None) -> int:
    if values is None:
        return 0
    return len(values.rows) if isinstance(values, UnitRows) else len(values)


def paired_difference(first: UnitValues, second: UnitValues, confidence: float = 0.95) -> Estimate:
    """``first − second`` over the units both measured, paired bootstrap over those units."""
    if isinstance(first, UnitRows) and isinstance(second, UnitRows):
        shared = sorted(set(first.rows) & set(second.rows))
        return Estimate.paired_statistic_delta(
            [first.rows[u] for u in shared],
            [second.rows[u] for u in shared],
            first.statistic,
            clusters=[first.clusters[u] for u in shared],
            confidence=confidence,
        )
    if isinstance(first, UnitRows) or isinstance(second, UnitRows):
        raise TypeError("both subjects' units must be of one kind")
    shared = sorted(set(first) & set(second))
    a = [first[u] for u in shared]
    b = [second[u] for u in shared]
    if a and isinstance(a[0], tuple):
        return Estimate.paired_rate_delta(a, b, confidence)  # type: ignore[arg-type]
    return Estimate.paired_delta(a, b, confidence)  # type: ignore[arg-type]


def compare(system: str, ranked: list[tuple[str, UnitValues | None]]) -> Comparisons:
    """Every pair of subjects, in rank order (``ranked`` is best first)."""
    if system not in UNITS:
        note = (
            f"{system}'s headline unit (a run) is not shared between subjects, so no paired "
            "difference is computed."
        )
        return Comparisons(unit="run", pairs=[], comparisons=0, note=note)
    unit = UNITS[system][1]
    measured = [(name, values) for name, values in ranked if values is not None and _count(values)]
    both = list(combinations(measured, 2))
    m = max(len(both), 1)
    pairs = [
        PairedDifference(
            first=a,
            second=b,
            delta=paired_difference(va, vb),
            familywise=paired_difference(va, vb, 1 - FAMILY_ALPHA / m).ci,
        )
        for (a, va), (b, vb) in both
    ]
    resampled = f"{unit}s" if system != "hsii" else "cases (whole dialogues at a time)"
    note = (
        f"{len(pairs)} paired comparison(s) over shared {unit}s; 95% bootstrap intervals over "
        f"{resampled}, unadjusted for multiple comparisons; the family-wise intervals read the "
        f"same bootstrap at {1 - FAMILY_ALPHA / m:.4f} (Bonferroni, α/m with α = "
        f"{FAMILY_ALPHA} and m = {m}), so all {m} cover together at least 95% of the time."
    )
    if system == "hsii":
        note += " Δ is a difference of HSII scores (not of rates), recomputed on each resample."
    return Comparisons(unit=unit, pairs=pairs, comparisons=len(pairs), note=note)
