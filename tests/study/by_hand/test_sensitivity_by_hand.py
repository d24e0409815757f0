"""Prompt sensitivity (issue 35, part 2) against hand arithmetic: the spread of each subject's
headline across prompt variants, its paired difference from the paper's prompt, and Kendall's
τ-b between the paper's ranking of the subjects and each variant's, each with its bootstrap
interval over the units the variants share.

The issue asks for "the spread across variants with its interval (units paired across
variants)" and "whether the ranking of subjects is stable (Kendall's τ across variants with
its interval)". The case: three subjects A, B, C, two units (scenarios s1, s2), three variants
(the paper's, v1, v2), each value a scenario's majority label (LoSoNA: the headline is their
mean).

    values (s1, s2)   paper    v1      v2        headlines: paper   v1    v2    range
    A                 (1, 1)   (1, 0)  (0, 1)                1      .5    .5    .5
    B                 (0, 1)   (0, 0)  (1, 1)               .5      0     1     1
    C                 (0, 0)   (1, 1)  (0, 0)                0      1     0     1

τ-b(paper, v1): x = (1, .5, 0), y = (.5, 0, 1): pairs AB (+, +) +1, AC (+, −) −1, BC (+, −) −1;
Σ = −1, no ties: τ = −1/√(3·3) = −1/3. τ-b(paper, v2): y = (.5, 1, 0): AB (+, −) −1, AC (+, +)
+1, BC (+, +) +1: τ = +1/3.

With two units a bootstrap resample is {s1, s1} (probability 1/4), {s2, s2} (1/4) or {s1, s2}
(1/2, the point estimates). Each holds more than 2.5% of the 10,000 resamples, so the 95%
percentile interval runs from the smallest of the three values to the largest:

    {s1, s1}: A 1, 1, 0 (range 1); B 0, 0, 1 (1); C 0, 1, 0 (1)
              τ(paper, v1): x = (1, 0, 0), y = (1, 0, 1): AB (+, +) +1, AC (+, 0), BC (0, ·);
              x has 2 untied pairs, y 2 (AB, BC): τ = 1/√(2·2) = 1/2.
              τ(paper, v2): y = (0, 1, 0): AB (+, −) −1: τ = −1/2.
    {s2, s2}: A 1, 0, 1 (range 1); B 1, 0, 1 (1); C 0, 1, 0 (1)
              τ(paper, v1): x = (1, 1, 0), y = (0, 0, 1): AC (+, −) −1, BC (+, −) −1; 2 and 2
              untied pairs: τ = −2/2 = −1. τ(paper, v2): y = (1, 1, 0): AC +1, BC +1: τ = 1.

So the ranges' intervals: A [.5, 1], B [1, 1], C [1, 1]; τ(paper, v1) −1/3 [−1, 1/2] and
τ(paper, v2) 1/3 [−1/2, 1]. A's paired differences from the paper: v1 − paper = −.5 on
{s1, s2}, 0 on {s1, s1}, −1 on {s2, s2}: [−1, 0]; v2 − paper = −.5, −1, 0: [−1, 0].
"""

from __future__ import annotations

import numpy as np
import pytest

from normlab import stats

A = [[(1, 1), (1, 0), (0, 1)], [(0, 1), (0, 0), (1, 1)], [(0, 0), (1, 1), (0, 0)]]
"""A, B, C × paper, v1, v2 × (s1, s2), as the table in the module docstring."""


def units() -> np.ndarray:
    """The case as the estimators take it: units × subjects × variants."""
    return np.array(A, dtype=np.float64).transpose(2, 0, 1)


def test_headlines_spread_and_tau_by_hand() -> None:
    headlines, resampled = stats.variant_headlines(units())
    assert headlines.tolist() == [[1.0, 0.5, 0.5], [0.5, 0.0, 1.0], [0.0, 1.0, 0.0]]
    assert resampled.shape == (stats.DEFAULT_RESAMPLES, 3, 3)
    spread = stats.headline_range(headlines, resampled)
    assert spread == [(0.5, (0.5, 1.0)), (1.0, (1.0, 1.0)), (1.0, (1.0, 1.0))]
    taus = stats.ranking_taus(headlines, resampled)
    assert taus[0][0] == pytest.approx(-1 / 3) and taus[0][1] == pytest.approx((-1.0, 0.5))
    assert taus[1][0] == pytest.approx(1 / 3) and taus[1][1] == pytest.approx((-0.5, 1.0))
    differences = stats.paper_differences(headlines, resampled)
    assert differences[0] == [(-0.5, (-1.0, 0.0)), (-0.5, (-1.0, 0.0))]


def test_the_variants_resample_the_same_units() -> None:
    # Paired: resample b of every subject × variant draws the same scenarios. A under v2 and
    # B under the paper hold the same values (0, 1), so their headlines agree on every
    # resample; A under v1 holds (1, 0), the complement, so it is 1 minus B's on each.
    _, resampled = stats.variant_headlines(units())
    assert np.array_equal(resampled[:, 0, 2], resampled[:, 1, 0])
    assert np.array_equal(resampled[:, 0, 1], 1 - resampled[:, 1, 0])
    assert 0 < resampled[:, 1, 0].mean() < 1  # not a constant: the test could fail


def test_a_pooled_rate_by_hand() -> None:
    # SCENE's repair rate pools (repaired, sanctions) over scenarios. One subject, two
    # variants, two scenarios: paper (1 of 2, 1 of 1) → 2/3; v1 (0 of 2, 1 of 2) → 1/4.
    # Range 2/3 − 1/4 = 5/12. On {s1, s1}: 2/4 and 0/4 → .5; on {s2, s2}: 2/2 and 2/4 → .5;
    # on {s1, s2} the point, 5/12: the interval [5/12, .5].
    rows = np.array([[[[1, 2], [0, 2]]], [[[1, 1], [1, 2]]]], dtype=np.float64)
    headlines, resampled = stats.variant_headlines(rows, stats.POOLED_RATE)
    assert headlines[0].tolist() == pytest.approx([2 / 3, 1 / 4])
    ((spread, interval),) = stats.headline_range(headlines, resampled)
    assert spread == pytest.approx(5 / 12) and interval == pytest.approx((5 / 12, 0.5))


def test_two_subjects_tied_under_the_paper_have_no_tau() -> None:
    # x = (.5, .5): no untied pair, τ-b's denominator is 0: undefined, never 0 or 1.
    tau = stats.kendall_tau_b_rows(np.array([0.5, 0.5]), np.array([1.0, 0.0]))
    assert np.isnan(tau[0])
