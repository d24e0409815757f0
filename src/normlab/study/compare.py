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

from itertools import combinations

from pydantic import BaseModel

from normlab.runs.headline import UnitRows, UnitValues
from normlab.stats import Estimate, Interval
from normlab.study.systems import SYSTEMS

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


def units_of(system: str, run: object, analysis: object) -> UnitValues | None:
    """The headline per unit of one cell (the system's spec's pairing), or None when the system
    has no paired form."""
    return SYSTEMS[system].parts.units_of(run, analysis)


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
    parts = SYSTEMS[system].parts
    unit = parts.paired_unit
    if unit is None:
        note = (
            f"{system}'s headline unit (a {parts.unit}) is not shared between subjects, so no "
            "paired difference is computed."
        )
        return Comparisons(unit=parts.unit, pairs=[], comparisons=0, note=note)
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
    note = (
        f"{len(pairs)} paired comparison(s) over shared {unit}s; 95% bootstrap intervals over "
        f"{parts.paired_resampled}, unadjusted for multiple comparisons; the family-wise intervals "
        f"read the same bootstrap at {1 - FAMILY_ALPHA / m:.4f} (Bonferroni, α/m with α = "
        f"{FAMILY_ALPHA} and m = {m}), so all {m} cover together at least 95% of the time."
    )
    return Comparisons(
        unit=unit, pairs=pairs, comparisons=len(pairs), note=note + parts.paired_note
    )
