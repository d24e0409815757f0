"""Paired differences between a study's subjects, per system, over the units both measured.

Two subjects on the same scenarios share each scenario's difficulty; pairing unit by unit
removes it, so a paired interval is narrower than comparing two independent intervals (and
the ranking's overlapping intervals alone would understate what the study can tell apart).
The units are the headline's own: LoSoNA scenarios (accuracy-at-K under the headline
condition, the majority label per scenario), SCENE scenarios (repaired over sanctions pooled
over the scenario's episodes in the headline view, the pooled-rate delta). HSII's score is a
product of stage rates, not a mean over cases, so it has no per-case pairing in
``normlab.stats`` yet and is reported as not paired.

Multiple comparisons: every pair of subjects is compared, so k subjects make k(k−1)/2
comparisons per system. The intervals are unadjusted 95% percentile intervals from
``normlab.stats`` (bootstrap over units); the report states the count, so a reader applying a
family-wise correction (e.g. Bonferroni at 0.05/m) knows m.
"""

from __future__ import annotations

from collections import defaultdict
from itertools import combinations
from typing import Any

from pydantic import BaseModel

from normlab.stats import Estimate

UnitValues = dict[str, float] | dict[str, tuple[int, int]]
"""Per unit id: a value averaged over units, or (k, n) counts pooled over units."""

HEADLINE_CONDITION = "norm_informed"


class PairedDifference(BaseModel):
    first: str
    """The higher-ranked subject; ``delta`` is first − second."""
    second: str
    delta: Estimate
    """Paired difference over the shared units; ``n`` is their count."""


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


UNITS = {"losona": _losona_units, "scene": _scene_units}
"""How each pairable system's headline breaks into units (HSII: none, see the module)."""


def units_of(system: str, run: Any, analysis: Any) -> UnitValues | None:
    """The headline per unit of one cell, or None when the system has no paired form."""
    extract = UNITS.get(system)
    return None if extract is None else extract(run, analysis)


def paired_difference(first: UnitValues, second: UnitValues) -> Estimate:
    """``first − second`` over the units both measured, paired bootstrap over those units."""
    shared = sorted(set(first) & set(second))
    a = [first[u] for u in shared]
    b = [second[u] for u in shared]
    if a and isinstance(a[0], tuple):
        return Estimate.paired_rate_delta(a, b)  # type: ignore[arg-type]
    return Estimate.paired_delta(a, b)  # type: ignore[arg-type]


def compare(system: str, unit: str, ranked: list[tuple[str, UnitValues | None]]) -> Comparisons:
    """Every pair of subjects, in rank order (``ranked`` is best first)."""
    if system not in UNITS:
        note = (
            f"{system}'s headline is not a mean or pooled rate over {unit}s, so no paired "
            "difference is computed."
        )
        return Comparisons(unit=unit, pairs=[], comparisons=0, note=note)
    measured = [(name, values) for name, values in ranked if values]
    pairs = [
        PairedDifference(first=a, second=b, delta=paired_difference(va, vb))
        for (a, va), (b, vb) in combinations(measured, 2)
    ]
    note = (
        f"{len(pairs)} paired comparison(s) over shared {unit}s; 95% bootstrap intervals over "
        f"{unit}s, unadjusted for multiple comparisons (for a family-wise 95%, read each at "
        f"{0.05 / max(len(pairs), 1):.4f} — Bonferroni)."
    )
    return Comparisons(unit=unit, pairs=pairs, comparisons=len(pairs), note=note)
