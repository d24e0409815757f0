"""Per-item labels reduced and compared: K-trial majority, compliance and consistency (§5.3
of LoSoNA), and agreement between two raters (observed agreement, Cohen's κ)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from normlab.stats.intervals import proportion

# --- K-trial reducers ---------------------------------------------------------------
# A trial label is True (complies), False (breach) or None (the judge's reply could not be
# used even after re-judging). §5.3 defines accuracy-at-K and compliance over all K trials,
# so a missing label is not a pass: it counts as 0 in Σ y, never as a guessed label and
# never by shrinking K. Consistency asks whether the labels the judge did give agree.


def majority(labels: Sequence[bool | None]) -> bool | None:
    """Accuracy-at-K for one unit: 1[Σ yₜ ≥ ⌈K/2⌉] over all K trials (missing = not a pass).

    With K = 3 this is "at least 2 of 3 comply". ``None`` only when there are no trials.
    """
    if not labels:
        return None
    return sum(label is True for label in labels) >= math.ceil(len(labels) / 2)


def compliance(labels: Sequence[bool | None]) -> float | None:
    """Compliance rate for one unit: (1/K) Σ yₜ over all K trials (missing = not a pass)."""
    if not labels:
        return None
    return sum(label is True for label in labels) / len(labels)


def consistency(labels: Sequence[bool | None]) -> bool | None:
    """Consistency for one unit: 1[all given labels agree]; ``None`` when none was given."""
    valid = [label for label in labels if label is not None]
    if not valid:
        return None
    return len(set(valid)) == 1


# --- agreement between two raters (judge vs judge, judge vs human) --------------------


def agreement(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Observed agreement p_o: the share of items both raters label the same."""
    if len(a) != len(b):
        raise ValueError(f"rater label lists differ in length: {len(a)} vs {len(b)}")
    return proportion(sum(x == y for x, y in zip(a, b, strict=True)), len(a))


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Cohen's κ for two raters and binary labels: (p_o − p_e) / (1 − p_e)
    (``sklearn.metrics.cohen_kappa_score``).

    p_e = p_a·p_b + (1 − p_a)(1 − p_b), with p_a, p_b each rater's share of True.
    When p_e = 1 (both raters constant and equal) κ is undefined: ``nan``.
    """
    agreement(a, b)  # the same length check and message as the agreement itself
    if len({*a, *b}) < 2:  # no items, or one label throughout: p_e = 1
        return math.nan
    # Imported here: scikit-learn costs over half a second, and only audits need κ.
    from sklearn.metrics import cohen_kappa_score

    return float(cohen_kappa_score(list(a), list(b), labels=[False, True]))
