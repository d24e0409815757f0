"""The hedged capital confidence sequence (Waudby-Smith & Ramdas 2024, "Estimating means of
bounded random variables by betting", Theorem 3 with the predictable plug-in bets of §4.2),
computed by hand for its first steps; the pooled-ratio form; HSII's score as a mean of
per-case values; and its coverage under optional stopping against Wilson's."""

from __future__ import annotations

import math

import numpy as np
import pytest

from normlab.hsii.rules import Formula, case_weights
from normlab.stats import confidence_sequence, hedged_log_capital, wilson_interval


def test_wealth_of_two_ones_at_one_half() -> None:
    # α = 0.05, m = 0.5, x = 1, 1. Step 1: σ̂²₀ = 1/4, λ̇₁ = √(2·ln 40 / (1/4 · 1 · ln 2))
    # = √(7.3778 / 0.17329) = 6.525, capped at c/m = 0.5/0.5 = 1 both ways:
    # K⁺₁ = 1 + 1·(1 − 0.5) = 1.5, K⁻₁ = 1 − 1·(1 − 0.5) = 0.5, K±₁ = max(.75, .25) = 0.75.
    # Then μ̂₁ = (1/2 + 1)/2 = .75, σ̂²₁ = (1/4 + (1 − .75)²)/2 = .15625, λ̇₂ = √(7.3778 /
    # (.15625 · 2 · ln 3)) = 4.64, capped at 1 again: K⁺₂ = 2.25, K⁻₂ = .25, K±₂ = 1.125.
    capital = np.exp(hedged_log_capital([1.0, 1.0], 0.5))
    assert capital == pytest.approx([0.75, 1.125])


def test_bets_at_and_below_one_half() -> None:
    # x = 0.6, 0.6 at m = 0.5: step 1 bets the cap, 1 (λ̇₁ = 6.525): K⁺₁ = 1.1, K⁻₁ = 0.9.
    # μ̂₁ = (0.5 + 0.6)/2 = .55, σ̂²₁ = (.25 + .05²)/2 = .12625; λ̇₂ = √(7.3778 / (.12625 · 2 ·
    # ln 3)) = √26.596 = 5.157, capped at 1: K⁺₂ = 1.21, K⁻₂ = .81; K±₂ = max(.605, .405).
    capital = np.exp(hedged_log_capital([0.6, 0.6], 0.5))
    assert capital == pytest.approx([0.55, 0.605])
    # At m = 0.1 the bet on a larger mean may stake c/m = 5: λ⁺₁ = min(6.525, 5) = 5,
    # K⁺₁ = 1 + 5·0.5 = 3.5, so K±₁ = 1.75 (K⁻₁ = 1 − min(6.525, .5/.9)·.5 = .7222).
    assert math.exp(hedged_log_capital([0.6], 0.1)[0]) == pytest.approx(1.75)


def test_ratio_transform_by_hand() -> None:
    # A = 1 repaired of B = 2 sanctions, bound M = 4, candidate r = 0.25: X(r) = (1 − 0.25·2)/4
    # + 0.25 = 0.375; λ⁺ = min(6.525, .5/.25 = 2) = 2: K⁺ = 1 + 2·0.125 = 1.25; λ⁻ = min(6.525,
    # .5/.75) = .6667: K⁻ = 1 − .6667·.125 = .9167; K± = max(.625, .4583) = .625.
    log_capital = hedged_log_capital([1.0], 0.25, denominators=[2.0], bound=4.0)
    assert math.exp(log_capital[0]) == pytest.approx(0.625)


def test_the_interval_is_the_candidates_under_one_over_alpha() -> None:
    # The sequence's ends are the first and last grid candidates whose capital is below 1/α,
    # widened by one grid step: checked against the capital at each candidate.
    values = [1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1]
    lower, upper = confidence_sequence(values, grid=100)
    candidates = np.linspace(0, 1, 101)
    inside = [c for c in candidates if hedged_log_capital(values, c)[-1] < math.log(20)]
    assert lower[-1] == pytest.approx(max(0.0, min(inside) - 0.01))
    assert upper[-1] == pytest.approx(min(1.0, max(inside) + 0.01))


def test_a_mean_is_a_ratio_over_ones() -> None:
    values = np.array([0.2, 0.9, 0.4, 1.0, 0.0, 0.7])
    plain = confidence_sequence(values)
    ratio = confidence_sequence(values, denominators=np.ones(6), bound=1.0)
    assert np.allclose(plain, ratio)


def test_bad_units_are_refused() -> None:
    with pytest.raises(ValueError, match="numerator"):
        confidence_sequence([3.0], denominators=[2.0], bound=4.0)
    with pytest.raises(ValueError, match="numerator"):
        confidence_sequence([1.0], denominators=[5.0], bound=4.0)


def test_hsii_score_is_a_mean_of_case_values() -> None:
    # Four cases (s1, s2, s3, s4; NaN: not in the stage's denominator): (1,1,1,0), (1,0,–,–),
    # (0,–,–,–), (1,1,0,1). Table 1's form, α = β = γ = 1: r1 = 3/4, r2 = 2/3, r3 = r4 = 1/2,
    # ι = .75·(1 + (2/3)·(1/2 + 1/2)) = 1.25. Per case s1 + s1s2s3 + s1s2s4: 2, 1, 0, 2;
    # their mean 5/4 = 1.25. Printed form: ι = r1(1 + r2(1 + r3 + r4)) = .75·(1 + 2/3·2) =
    # 1.75; per case s1 + s1s2 + s1s2s3 + s1s2s4: 3, 1, 0, 3, mean 7/4.
    assert case_weights(formula="table") == pytest.approx((1.0, 0.0, 1.0, 1.0))
    assert case_weights(formula="printed") == pytest.approx((1.0, 1.0, 1.0, 1.0))
    cases = [(1, 1, 1, 0), (1, 0, 0, 0), (0, 0, 0, 0), (1, 1, 0, 1)]
    forms: tuple[tuple[Formula, float], ...] = (("table", 1.25), ("printed", 1.75))
    for formula, expected in forms:
        w1, w2, w3, w4 = case_weights(formula=formula)
        values = [w1 * a + w2 * a * b + w3 * a * b * c + w4 * a * b * d for a, b, c, d in cases]
        assert sum(values) / 4 == pytest.approx(expected)


def test_coverage_at_every_look_against_wilson() -> None:
    # 300 studies of 150 Bernoulli(0.3) units, looked at after every unit: the sequence
    # covers at every look in at least 95% of them (Ville's inequality); Wilson's interval,
    # valid at one fixed n, misses at some look in far more than 5%.
    rng = np.random.default_rng(7)
    rate = 0.3
    units = (rng.random((300, 150)) < rate).astype(float)
    lower, upper = confidence_sequence(units)
    sequence_covers = ((lower <= rate) & (rate <= upper)).all(axis=1).mean()
    counts = units.cumsum(axis=1)
    wilson_covers = np.mean(
        [
            all(
                lo <= rate <= hi
                for lo, hi in (wilson_interval(int(k), n + 1) for n, k in enumerate(row))
            )
            for row in counts
        ]
    )
    assert sequence_covers >= 0.95
    assert wilson_covers < 0.8


def test_simulated_units_have_the_headline_they_were_drawn_at() -> None:
    # HSII at every stage 0.9: ι = .9·(1 + .9·(.9 + .9)) = 2.358; SCENE's pooled repaired over
    # sanctions at 0.7; the simulated studies' pooled estimates average to these.
    from normlab.hsii.power import HsiiAssumed, HsiiStats
    from normlab.scene.power import SceneAssumed, SceneStats

    rng = np.random.default_rng(1)
    at = HsiiAssumed(rate=0.9)
    hsii = HsiiStats().simulate(rng, [7.0] * 40, at, 7.0, 300)
    assert HsiiStats().true_value(at) == pytest.approx(2.358)
    assert (hsii.a.sum(axis=1) / hsii.b.sum(axis=1) * 3).mean() == pytest.approx(2.358, abs=0.01)
    scene = SceneStats().simulate(rng, [5.0] * 28, SceneAssumed(rate=0.7), 120.0, 300)
    assert (scene.a.sum(axis=1) / scene.b.sum(axis=1)).mean() == pytest.approx(0.7, abs=0.01)
