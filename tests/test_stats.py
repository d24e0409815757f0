"""normlab.stats against hand-computed and published values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from normlab import stats


def test_wilson_matches_scene_check_value() -> None:
    # SCENE §5.2 check value: 461 repaired of 547 -> 84.3% (81.0–87.1).
    lo, hi = stats.wilson_interval(461, 547)
    assert round(461 / 547, 3) == 0.843
    assert round(lo, 3) == 0.810
    assert round(hi, 3) == 0.871


def test_wilson_hand_computed_small_case() -> None:
    # k=1, n=4, z=1.959964, z²=3.841459: denominator=1+z²/4=1.960365,
    # centre=(0.25+z²/8)/1.960365=0.372473,
    # half=1.959964*sqrt(0.046875+0.060023)/1.960365=0.326885
    lo, hi = stats.wilson_interval(1, 4)
    assert lo == pytest.approx(0.045588, abs=1e-5)
    assert hi == pytest.approx(0.699358, abs=1e-5)


def test_wilson_edges() -> None:
    assert stats.wilson_interval(0, 10)[0] == 0.0
    assert stats.wilson_interval(10, 10)[1] == 1.0
    assert all(math.isnan(x) for x in stats.wilson_interval(0, 0))
    with pytest.raises(ValueError):
        stats.wilson_interval(5, 3)


def test_bootstrap_ci_is_percentile_over_units() -> None:
    values = [1.0] * 14 + [0.0] * 24  # naive accuracy 14/38
    lo, hi = stats.bootstrap_ci(values)
    # Normal approximation: 0.368 ± 1.96·sqrt(0.368·0.632/38) = [0.215, 0.522]
    assert lo == pytest.approx(0.215, abs=0.03)
    assert hi == pytest.approx(0.522, abs=0.03)
    assert stats.bootstrap_ci(values) == (lo, hi), "same seed, same interval"
    assert stats.bootstrap_ci([0.5, 0.5, 0.5]) == (0.5, 0.5)


def test_paired_delta_reproduces_losona_worked_example() -> None:
    # §6: naive 14/38, norm_informed 32/38, recovered 18/24, regressed 0/14,
    # delta +47.4 pp, 95% CI [31.6, 63.2].
    naive = [1.0] * 14 + [0.0] * 24
    informed = [1.0] * 14 + [1.0] * 18 + [0.0] * 6
    delta, (lo, hi) = stats.paired_bootstrap_delta(informed, naive)
    assert round(100 * delta, 1) == 47.4
    # The paper's interval comes from its own bootstrap draws: agree within noise.
    assert lo == pytest.approx(0.316, abs=0.03)
    assert hi == pytest.approx(0.632, abs=0.03)


def test_paired_delta_requires_pairs() -> None:
    with pytest.raises(ValueError):
        stats.paired_bootstrap_delta([1.0], [1.0, 0.0])
    delta, interval = stats.paired_bootstrap_delta([], [])
    assert math.isnan(delta) and all(math.isnan(x) for x in interval)


def test_paired_rate_delta_pools_counts_and_keeps_units_paired() -> None:
    # scenarios (k/n): treatment 2/2, 1/2, 0/0; control 0/2, 1/2, 0/1
    # pooled: 3/4 − 1/5 = 0.55; a scenario without sanctions still counts for control's n
    treatment, control = [(2, 2), (1, 2), (0, 0)], [(0, 2), (1, 2), (0, 1)]
    delta, (lo, hi) = stats.paired_rate_delta(treatment, control)
    assert delta == pytest.approx(0.55)
    assert -1.0 <= lo <= delta <= hi <= 1.0
    # identical arms: zero with a zero-width interval (every resample is paired)
    assert stats.paired_rate_delta(treatment, treatment) == (0.0, (0.0, 0.0))
    delta, interval = stats.paired_rate_delta([(0, 0)], [(1, 2)])
    assert math.isnan(delta) and all(math.isnan(x) for x in interval)
    with pytest.raises(ValueError):
        stats.paired_rate_delta([(1, 2)], [])


def test_difference_of_estimates_has_no_interval() -> None:
    a = stats.Estimate(value=0.5, ci=(0.1, 0.9), n=10)
    b = stats.Estimate(value=0.2, ci=(0.0, 0.6), n=8)
    difference = stats.Estimate.difference(a, b)
    assert difference.value == pytest.approx(0.3)
    assert (difference.ci, difference.n) == ((None, None), 8)
    undefined = stats.Estimate(value=None, ci=(None, None), n=1)
    assert stats.Estimate.difference(a, undefined).value is None


def test_spearman_hand_computed_with_ties() -> None:
    # x ranks: [1, 2.5, 2.5, 4]; y ranks: [2, 1, 3, 4]
    # centred: [-1.5, 0, 0, 1.5] · [-0.5, -1.5, 0.5, 1.5] = 0.75 + 2.25 = 3.0
    # norms: sqrt(4.5 · 5.0) = 4.7434 -> rho = 0.632456
    assert stats.spearman_rho([1, 2, 2, 3], [20, 10, 30, 40]) == pytest.approx(0.632456, abs=1e-6)
    assert stats.spearman_rho([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert math.isnan(stats.spearman_rho([1, 1, 1], [1, 2, 3]))


def test_spearman_ci_brackets_rho() -> None:
    x = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    y = [1.0, 0.9, 0.8, 0.9, 0.5, 0.4, 0.5, 0.2, 0.1, 0.0]
    rho, (lo, hi) = stats.spearman_ci(x, y, n_resamples=2000)
    assert rho < -0.9
    assert lo <= rho <= hi <= 1.0


@pytest.mark.parametrize(
    ("labels", "expected_majority", "expected_compliance", "expected_consistency"),
    [
        ([True, True, False], True, 2 / 3, False),
        ([True, False, False], False, 1 / 3, False),
        ([True, True, True], True, 1.0, True),
        ([False, False, False], False, 0.0, True),
        # §5.3: 1[Σy ≥ ⌈K/2⌉] over all K = 3 trials; a missing label is not a pass
        ([True, None, False], False, 1 / 3, False),
        ([True, True, None], True, 2 / 3, True),  # the labels given agree
        ([None, None, None], False, 0.0, None),
        ([], None, None, None),
    ],
)
def test_k_trial_reducers(
    labels: list[bool | None],
    expected_majority: bool | None,
    expected_compliance: float | None,
    expected_consistency: bool | None,
) -> None:
    assert stats.majority(labels) == expected_majority
    assert stats.compliance(labels) == expected_compliance
    assert stats.consistency(labels) == expected_consistency


def test_cohen_kappa_hand_computed() -> None:
    # 10 items: both True 4, both False 3, a True/b False 2, a False/b True 1.
    # p_o = 7/10; p_a = 6/10, p_b = 5/10; p_e = .6*.5 + .4*.5 = .5; kappa = (.7-.5)/.5 = 0.4
    a = [True] * 4 + [False] * 3 + [True] * 2 + [False]
    b = [True] * 4 + [False] * 3 + [False] * 2 + [True]
    assert stats.agreement(a, b) == pytest.approx(0.7)
    assert stats.cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edges() -> None:
    assert stats.cohen_kappa([True, False], [True, False]) == pytest.approx(1.0)
    assert stats.cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    assert math.isnan(stats.cohen_kappa([True, True], [True, True]))
    with pytest.raises(ValueError):
        stats.agreement([True], [True, False])


def test_cluster_bootstrap_with_singletons_is_the_plain_bootstrap() -> None:
    values = [0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 0.0]
    plain = stats.bootstrap_ci(values, n_resamples=500)
    clustered = stats.bootstrap_ci(values, n_resamples=500, clusters=[str(i) for i in range(8)])
    assert clustered == pytest.approx(plain)


def test_cluster_bootstrap_resamples_whole_clusters() -> None:
    # Each value twice inside its own cluster: resampling clusters draws the same means as the
    # plain bootstrap of the distinct values.
    distinct = [0.2, 0.9, 0.4]
    doubled = [0.2, 0.2, 0.9, 0.9, 0.4, 0.4]
    assert stats.bootstrap_ci(
        doubled, n_resamples=500, clusters=["a", "a", "b", "b", "c", "c"]
    ) == pytest.approx(stats.bootstrap_ci(distinct, n_resamples=500))
    # Two clusters of ten, one all 1s and one all 0s: a resample holds both clusters (mean
    # 0.5, chance 1/2), two of the 1s cluster (mean 1, chance 1/4) or two of the 0s (mean 0,
    # chance 1/4), so the 2.5th and 97.5th percentiles are 0 and 1. Resampling the 20 units
    # one by one would give about 0.5 ± 0.22.
    values = [1.0] * 10 + [0.0] * 10
    labels = ["one"] * 10 + ["zero"] * 10
    assert stats.bootstrap_ci(values, clusters=labels) == (0.0, 1.0)
    lo, hi = stats.bootstrap_ci(values)
    assert 0.2 < lo < 0.35 and 0.65 < hi < 0.8
    with pytest.raises(ValueError, match="2 cluster labels for 3 units"):
        stats.bootstrap_ci([1.0, 0.0, 1.0], clusters=["a", "b"])


def test_cluster_column_means_by_hand() -> None:
    # Clusters a = rows 0 and 2, b = row 1. Column 0: a sums 1 + 0 over 2 units, b 1 over 1;
    # column 1: a's row 2 is NaN (not reached), so a sums 1 over 1 unit, b 0 over 1.
    # Resample (a, a): col 0 = (1 + 0 + 1 + 0) / 4 = 0.5, col 1 = (1 + 1) / 2 = 1.
    # Resample (b, b): col 0 = 1, col 1 = 0.  Resample (a, b): col 0 = 2/3, col 1 = 1/2.
    rows = np.array([[1.0, 1.0], [1.0, 0.0], [0.0, math.nan]])
    labels = ["a", "b", "a"]
    means = stats.cluster_column_means(rows, labels, n_resamples=200, seed=3)
    found = {tuple(row) for row in means}
    assert found <= {(0.5, 1.0), (1.0, 0.0), (2 / 3, 0.5)}
    assert len(found) == 3
    # A column with no defined unit in a resample is NaN there, not 0.
    only_b = stats.cluster_column_means(np.array([[1.0], [math.nan]]), ["b", "c"], 50, seed=1)
    assert {float(v) for v in only_b[:, 0] if not math.isnan(v)} == {1.0}
    assert np.isnan(only_b[:, 0]).any()
    with pytest.raises(ValueError, match="2 cluster labels"):
        stats.cluster_column_means(rows, ["a", "b"])


@given(
    st.lists(
        st.tuples(
            st.sampled_from("abcd"),
            st.sampled_from([0.0, 0.5, 1.0, math.nan]),
            st.sampled_from([0.0, 1.0, math.nan]),
        ),
        min_size=1,
        max_size=12,
    ),
    st.integers(0, 2**16),
)
def test_cluster_column_means_equal_nanmeans_of_the_cluster_resamples(
    units: list[tuple[str, float, float]], seed: int
) -> None:
    """The matrix form is the per-resample ``nanmean`` of the very units ``cluster_resamples``
    draws, to the bit (sums of halves are exact in any order)."""
    labels = [label for label, _, _ in units]
    rows = np.array([[x, y] for _, x, y in units])
    fast = stats.cluster_column_means(rows, labels, n_resamples=40, seed=seed)
    for resample, got in zip(stats.cluster_resamples(labels, 40, seed), fast, strict=True):
        for column in range(2):
            values = rows[resample, column]
            values = values[~np.isnan(values)]
            expected = float(values.mean()) if values.size else math.nan
            assert got[column] == expected or (math.isnan(expected) and math.isnan(got[column]))


# --- planning (issue 23): hand-computed at p = 0.5, where the Wilson half-width is
# z / (2·√(n + z²)) with z = 1.959964, z² = 3.841459.


def test_wilson_halfwidth_at_one_half_by_hand() -> None:
    # 1.959964 / (2 · √103.841459) = 1.959964 / 20.380540 = 0.096168
    assert stats.wilson_halfwidth(0.5, 100) == pytest.approx(0.096168, abs=1e-6)
    k, n = 50, 100
    lo, hi = stats.wilson_interval(k, n)
    assert stats.wilson_halfwidth(k / n, n) == pytest.approx((hi - lo) / 2)


def test_n_for_halfwidth_by_hand() -> None:
    # z / (2√(n + z²)) ≤ 0.05 ⇔ n ≥ 19.59964² − 3.841459 = 380.30 → 381
    assert stats.n_for_halfwidth(0.05) == 381
    assert stats.wilson_halfwidth(0.5, 381) <= 0.05 < stats.wilson_halfwidth(0.5, 380)
    for rate in (0.1, 0.3, 0.8):
        n = stats.n_for_halfwidth(0.03, rate)
        assert stats.wilson_halfwidth(rate, n) <= 0.03 < stats.wilson_halfwidth(rate, n - 1)


def test_normal_mde_by_hand() -> None:
    # (1.959964 + 0.841621) · √(2 · 0.25 / 100) = 2.801585 · 0.0707107 = 0.198102
    assert stats.normal_mde(0.25, 100) == pytest.approx(0.198102, abs=1e-6)
    assert stats.normal_mde(0.25, 400) == pytest.approx(0.198102 / 2, abs=1e-6)
    # Two subjects correlated r = 0.5 on a unit: √(1 − 0.5) of that, 0.140079.
    assert stats.normal_mde(0.25, 100, 0.5) == pytest.approx(0.140079, abs=1e-6)
