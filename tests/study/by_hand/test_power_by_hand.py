"""The plan's power on each system's own scale (issue 35, item 0.1), against hand arithmetic.

z₀.₉₇₅ = 1.959964, z² = 3.841459, z₀.₈₀ = 0.841621 throughout.
"""

from __future__ import annotations

import math

import pytest

from normlab import stats
from normlab.hsii.power import HSII_STAGES, HsiiAssumed, StagedScore, hsii_gradient
from normlab.scene import SANCTIONS_PER_EPISODE
from normlab.scene.power import SceneAssumed
from normlab.stats.planning import Assumed, Design, Proportion, RunMean
from normlab.study.power import Sizing, precision

GPT4 = HSII_STAGES  # HSII Table 1: r1 .701, r2 .732, r3 .67, r4 .69 (ι = 1.399)
PARENTS = (None, 0, 1, 1)  # Definition 1: r2 over parsed replies, r3 and r4 over right targets


def test_kish_design_effect_by_hand() -> None:
    # Clusters of 2 and 4: m̃ = (4 + 16) / 6 = 3.3333; ρ = 0.1: deff = 1 + 2.3333·0.1 = 1.2333.
    assert stats.effective_cluster_size([2, 4]) == pytest.approx(10 / 3)
    assert stats.design_effect(10 / 3, 0.1) == pytest.approx(1.233333, abs=1e-6)
    assert stats.design_effect(1.0, 0.5) == 1.0  # units of their own: no design effect
    with pytest.raises(ValueError, match="intra-cluster correlation"):
        stats.design_effect(3.0, 1.5)


def test_hsii_gradient_and_unit_variance_at_the_papers_gpt4_rates() -> None:
    # Table 1's ι = r1(1 + r2(r3 + r4)). Its derivatives at .701, .732, .67, .69:
    #   ∂ι/∂r1 = 1 + r2(r3 + r4) = 1 + .732·1.36 = 1.99552
    #   ∂ι/∂r2 = r1(r3 + r4) = .701·1.36 = .95336
    #   ∂ι/∂r3 = ∂ι/∂r4 = r1·r2 = .701·.732 = .513132
    slopes = hsii_gradient(GPT4)
    assert slopes == pytest.approx([1.99552, 0.95336, 0.513132, 0.513132], abs=1e-6)
    # σ² = g1²·r1(1−r1) + g2²·r2(1−r2)/r1 + g3²·(r3(1−r3) + r4(1−r4))/(r1·r2)
    #    = 3.982100·.209599 + .908895·.196176/.701 + .263304·(.2211 + .2139)/.513132
    #    = .834645 + .254349 + .223210 = 1.312204
    variance = stats.staged_variance(GPT4, PARENTS, slopes)
    assert variance == pytest.approx(1.312204, abs=1e-5)
    # n = 477 cases, independent: 1.959964·√(1.312204/477) = 1.959964·.052450 = ±0.1028, the
    # issue's ±0.103 by simulation (the Wilson figure the plan printed was ±0.045).
    assert stats.delta_halfwidth(variance, 477) == pytest.approx(0.1028, abs=5e-4)
    # The cases for ±0.1: ⌈3.841459·1.312204/0.01⌉ = ⌈504.08⌉ = 505.
    assert stats.n_for_delta_halfwidth(0.1, variance) == 505


def test_staged_variance_in_clusters_by_hand() -> None:
    # One stage over every unit, p = .8, ρ = .1, m̃ = 5: p(1−p)·(1 + 4·.1) = .16·1.4 = .224,
    # Kish's design effect.
    assert stats.staged_variance((0.8,), (None,), (1.0,), 0.1, 5.0) == pytest.approx(0.224)
    # Two stages at .5, the second over the first's successes, ρ = .1, m̃ = 3:
    #   stage 1: .25·(1 + 2·.1) = .3
    #   stage 2: r(1−r)/π = .25/.5 = .5; ρ₂ = ρ·π·(1 + ρ(1−r₁)/r₁) = .1·.5·1.1 = .055;
    #            .5·(1 + 2·.055) = .555
    #   σ² = .855
    assert stats.staged_variance((0.5, 0.5), (None, 0), (1.0, 1.0), 0.1, 3.0) == pytest.approx(
        0.855
    )


def test_connor_paired_proportions_by_hand() -> None:
    # Connor (1987): n = (z₀.₉₇₅√ψ + z₀.₈₀√(ψ − δ²))² / δ². ψ = .5, δ = .1:
    # (1.959964·.707107 + .841621·.7)² / .01 = (1.385904 + .589135)² / .01 = 390.08 → 391.
    assert stats.connor_n(0.1, 0.5) == 391
    assert stats.connor_mde(390.0779, 0.5) == pytest.approx(0.1, abs=1e-5)
    # n = 100, ψ = .5: δ·10 = 1.385904 + .841621·√(.5 − δ²) at δ = .195776
    # (.841621·.679464 = .571851; 1.385904 + .571851 = 1.957755).
    assert stats.connor_mde(100, 0.5) == pytest.approx(0.195776, abs=1e-5)
    # Two subjects at p = .5, independent: ψ = 2·.25 = .5; correlated .6: ψ = .5·.4 = .2.
    assert stats.discordance(0.5) == 0.5 and stats.discordance(0.5, 0.6) == pytest.approx(0.2)
    assert stats.connor_mde(3, 0.5) is None  # even δ = ψ is not detected on 3 pairs


def test_student_t_over_runs_by_hand() -> None:
    # σ² = .04 per run, 5 runs: t₀.₉₇₅,₄ = 2.776445; 2.776445·√(.04/5) = 2.776445·.0894427
    # = ±0.248333. One run has no interval.
    assert stats.t_halfwidth(0.04, 5) == pytest.approx(0.248333, abs=1e-5)
    assert stats.t_halfwidth(0.04, 1) is None
    # ±0.25 needs 5 runs (4 runs: 3.182446·√(.01) = 0.318).
    assert stats.n_for_t_halfwidth(0.25, 0.04) == 5


def test_pooled_rate_over_clusters_by_hand() -> None:
    # Scenarios (1 of 2) and (3 of 4): 4/6. Resamples: {1, 1} → 2/4, {2, 2} → 6/8, mixed
    # (chance ½) → 4/6, so the 2.5th and 97.5th percentiles are .5 and .75.
    rate, interval = stats.pooled_rate_ci([(1, 2), (3, 4)])
    assert rate == pytest.approx(4 / 6) and interval == pytest.approx((0.5, 0.75))
    # One scenario holds every sanction: no interval (its resamples are all itself).
    rate, (low, high) = stats.pooled_rate_ci([(3, 4), (0, 0)])
    assert rate == 0.75 and math.isnan(low) and math.isnan(high)
    estimate = stats.Estimate.pooled_rate([])
    assert (estimate.value, estimate.ci, estimate.n) == (None, (None, None), 0)


def test_each_system_plans_on_its_own_scale() -> None:
    # LoSoNA: 46 scenarios at p = .5, each its own unit: Wilson, z/(2√(n + z²)) =
    # 1.959964/(2·√49.841459) = 0.138811; Connor at ψ = .5 on 46 pairs.
    losona = precision(Proportion("scenario"), Design(sampled="scenario", cluster=None,
                       sizes=[1] * 46), Assumed(rate=0.5), Sizing(0.05, icc=0.05))  # fmt: skip
    assert losona.halfwidth == pytest.approx(0.138811, abs=1e-6) and losona.design_effect == 1
    assert losona.discordance == 0.5
    assert losona.paired_mde == pytest.approx(stats.connor_mde(46, 0.5))
    # SCENE: 2 scenarios × 5 episodes at .5 sanctions per episode: 2.5 sanctions each,
    # Poisson, m̃ = 1 + Σμ²/Σμ = 1 + 12.5/5 = 3.5; ρ = .1: deff = 1.25; n = 5 sanctions;
    # Wilson at p = .8 over n′ = 5/1.25 = 4.
    per_episode = Proportion("sanction", per_sampled=SANCTIONS_PER_EPISODE)
    episodes = Design(sampled="episode", cluster="scenario", sizes=[5, 5])
    assumed = SceneAssumed(rate=0.8, sanctions_per_episode=0.5)
    scene = precision(per_episode, episodes, assumed, Sizing(0.05, icc=0.1))
    assert (scene.n, scene.cluster_size, scene.design_effect) == pytest.approx((5, 3.5, 1.25))
    assert scene.halfwidth == pytest.approx(stats.wilson_halfwidth(0.8, 4.0))
    # n for ±.05 at p = .8: Wilson's t²n² + (2t²z² − z²p(1−p))n + t²z⁴ − z⁴/4 = 0 with
    # b = .0192073 − .6146334 = −.5954261, c = .0368920 − 3.6892031 = −3.6523111:
    # n = (.5954261 + √(.3545322 + .0365231))/.005 = 244.15 → 245 independent sanctions;
    # × deff 1.25 = 306.25 → 307 sanctions, 307 / .5 = 614 episodes.
    assert stats.n_for_halfwidth(0.05, 0.8) == 245
    assert (scene.n_for_target, scene.sampled_for_target) == (307, 614)
    # HSII on 477 cases in clusters of one: the delta method's ±0.1028 (above), not a Wilson
    # half-width of a rate.
    hsii = precision(StagedScore(), Design(sampled="case", cluster="dialogue", sizes=[1] * 477),
                     Assumed(), Sizing(0.05, icc=0.05))  # fmt: skip
    assert hsii.value == pytest.approx(1.3989, abs=1e-4)
    assert hsii.halfwidth == pytest.approx(0.1028, abs=5e-4)
    # CRSEC: 5 runs of 10 agents × 3 norms at p = .5, ρ = .1: a run's share has variance
    # .25/30·(1 + 29·.1) = .0325; t₀.₉₇₅,₄·√(.0325/5) = 2.776445·.080623 = ±0.223845.
    crsec = precision(RunMean(), Design(sampled="run", cluster="run", sizes=[30] * 5),
                      Assumed(rate=0.5), Sizing(0.05, icc=0.1))  # fmt: skip
    assert crsec.variance == pytest.approx(0.0325)
    assert crsec.halfwidth == pytest.approx(0.223845, abs=1e-5)
    one = precision(RunMean(), Design(sampled="run", cluster="run", sizes=[30]),
                    Assumed(rate=0.5), Sizing(0.05))  # fmt: skip
    assert one.halfwidth is None and one.paired_mde is None  # one run: no interval


def test_each_estimator_names_its_rates_and_its_units_per_sampled_unit() -> None:
    # What the plan's Power reports beside n, read off the estimator (no branch on a system's
    # name): SCENE's 12 sanctions over 2 + 3 + 3 = 8 episodes are 1.5 per episode; HSII's
    # default rates are Table 1's GPT4 row until a pilot measures r1–r4.
    episodes = Design(sampled="episode", cluster="scenario", sizes=[2, 3, 3])
    scene = Proportion("sanction", per_sampled=SANCTIONS_PER_EPISODE)
    assert scene.per_sampled_units(12.0, episodes) == pytest.approx(1.5)
    assert scene.per_sampled_units(12.0, Design(sampled="episode", cluster=None)) is None
    assert Proportion("scenario").per_sampled_units(12.0, episodes) is None
    assert RunMean().per_sampled_units(3.0, episodes) is None
    assert StagedScore().per_sampled_units(12.0, episodes) is None
    assert StagedScore().source(Assumed()).startswith("assumed: HSII Table 1, GPT4's r1–r4")
    piloted = HsiiAssumed(stages=(0.5, 0.5, 0.5, 0.5), source="pilot hsii/a")
    assert StagedScore().source(piloted) == "pilot hsii/a"
    assert scene.source(Assumed(rate=0.4, source="pilot scene/a")) == "pilot scene/a"
