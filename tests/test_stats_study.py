"""normlab.stats added for studies (issue 23): the paired bootstrap of any statistic (HSII's
score), Cohen's κ with its interval, Kendall's τ; each against a hand-computed case."""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray

from normlab import stats


def pooled(rows: NDArray[np.float64]) -> float:
    """Σk / Σn over rows (k, n): a statistic that is no mean over units."""
    return float(rows[:, 0].sum() / rows[:, 1].sum())


def test_paired_statistic_delta_by_hand() -> None:
    # Two units. treatment: u1 (1, 2), u2 (3, 4) → 4/6; control: u1 (1, 4), u2 (1, 2) → 2/6.
    # Δ = 1/3. The resamples: {u1, u1} → 2/4 − 2/8 = 1/4; {u2, u2} → 6/8 − 2/4 = 1/4;
    # {u1, u2} (either order, chance 1/2) → 1/3. So half the resamples give 1/4 and half 1/3:
    # the 2.5th and 97.5th percentiles are 1/4 and 1/3.
    treatment = [[1.0, 2.0], [3.0, 4.0]]
    control = [[1.0, 4.0], [1.0, 2.0]]
    delta, (lo, hi) = stats.paired_statistic_delta(treatment, control, pooled)
    assert delta == pytest.approx(1 / 3)
    assert (lo, hi) == pytest.approx((1 / 4, 1 / 3))
    # Both units in one cluster: every resample is the whole sample.
    _, whole = stats.paired_statistic_delta(treatment, control, pooled, clusters=["d", "d"])
    assert whole == pytest.approx((1 / 3, 1 / 3))
    estimate = stats.Estimate.paired_statistic_delta(treatment, control, pooled)
    assert estimate.value == pytest.approx(1 / 3) and estimate.n == 2


def test_paired_statistic_delta_of_the_mean_is_the_paired_mean_delta() -> None:
    first = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    second = [0.0, 0.0, 1.0, 0.0, 0.0, 1.0]

    def mean(rows: NDArray[np.float64]) -> float:
        return float(rows[:, 0].mean())

    delta, interval = stats.paired_statistic_delta(
        [[v] for v in first], [[v] for v in second], mean
    )
    expected, expected_interval = stats.paired_bootstrap_delta(first, second)
    assert delta == pytest.approx(expected)
    assert interval == pytest.approx(expected_interval)


def test_paired_statistic_delta_edges() -> None:
    delta, (lo, hi) = stats.paired_statistic_delta([], [], pooled)
    assert math.isnan(delta) and math.isnan(lo) and math.isnan(hi)
    with pytest.raises(ValueError, match="differ in length"):
        stats.paired_statistic_delta([[1.0, 1.0]], [], pooled)


def test_kappa_interval_by_hand() -> None:
    # The hand case of test_cohen_kappa_hand_computed: κ = 0.4, the value sklearn gives.
    a = [True] * 4 + [False] * 3 + [True] * 2 + [False]
    b = [True] * 4 + [False] * 3 + [False] * 2 + [True]
    kappa, (lo, hi) = stats.kappa_ci(a, b)
    assert kappa == pytest.approx(0.4) == pytest.approx(stats.cohen_kappa(a, b))
    assert lo < 0.4 < hi
    # Item by item, the batch path equals the one-resample-at-a-time path (singletons).
    _, clustered = stats.kappa_ci(a, b, clusters=[str(i) for i in range(10)])
    assert clustered == pytest.approx((lo, hi))
    # Two clusters of two items: X (T, F) vs (T, F) agrees, Y (T, F) vs (F, T) disagrees.
    # Whole: p_o = 1/2, p_a = p_b = 1/2, p_e = 1/2 → κ = 0. Resamples: XX (1/4) → κ = 1,
    # YY (1/4) → p_o = 0 → κ = −1, XY (1/2) → 0. Percentiles 2.5 and 97.5: −1 and 1.
    first = [True, False, True, False]
    second = [True, False, False, True]
    kappa, interval = stats.kappa_ci(first, second, clusters=["X", "X", "Y", "Y"])
    assert kappa == pytest.approx(0.0)
    assert interval == pytest.approx((-1.0, 1.0))
    estimate = stats.Estimate.kappa(first, second, clusters=["X", "X", "Y", "Y"])
    assert estimate.value == pytest.approx(0.0)
    assert (estimate.ci, estimate.n) == ((-1.0, 1.0), 4)


def test_kappa_interval_edges() -> None:
    # One label throughout: p_e = 1, κ undefined (None in a result, never 0 or 1).
    assert stats.Estimate.kappa([True, True], [True, True]).value is None
    assert math.isnan(stats.kappa_ci([], [])[0])
    with pytest.raises(ValueError, match="differ in length"):
        stats.kappa_ci([True], [True, False])


def test_kendall_tau_by_hand() -> None:
    # (1, 1), (2, 3), (3, 2): pairs 1–2 and 1–3 concordant, 2–3 discordant → (2 − 1) / 3.
    assert stats.kendall_tau([1, 2, 3], [1, 3, 2]) == pytest.approx(1 / 3)
    assert stats.kendall_tau([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(stats.kendall_tau([1], [1]))
    assert math.isnan(stats.kendall_tau([1, 2], [5, 5]))
