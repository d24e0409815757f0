"""Planning: the interval half-width a planned n buys, the n a target half-width needs, and
the smallest paired difference detectable at a given power, each on the scale of the estimator
it plans for and with the units' clustering.

Three estimators cover the studies' headlines:

* a proportion of independent binary units (LoSoNA's accuracy-at-K over scenarios): the Wilson
  half-width ([`wilson_halfwidth`][normlab.stats.wilson_halfwidth]), or, for binary outcomes in
  clusters (SCENE's sanctions in scenarios), the Wilson half-width at the effective n = n / deff
  ([`design_effect`][normlab.stats.design_effect]);
* a smooth function of nested stage rates (HSII's score of r1–r4), by the delta method
  ([`staged_variance`][normlab.stats.staged_variance],
  [`delta_halfwidth`][normlab.stats.delta_halfwidth]), clustered stage by stage;
* a mean over few independent runs (CRSEC), Student's t over the runs
  ([`t_halfwidth`][normlab.stats.t_halfwidth]).

Paired differences: Connor (1987) for paired binary units ([`connor_mde`][normlab.stats.connor_mde],
[`connor_n`][normlab.stats.connor_n]), from a stated discordance ψ, the share of units on which the
two subjects' outcomes differ; the normal approximation for any other estimator with a stated
correlation between the two subjects' per-unit values ([`normal_mde`][normlab.stats.normal_mde]).
Connor, R. J. (1987). Sample size for testing differences in proportions for the paired-sample
design. Biometrics 43(1), 207–211.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist

from normlab.stats.intervals import z_quantile

# --- planning: the interval and the power a planned n buys ------------------------------


def wilson_halfwidth(rate: float, n: float, confidence: float = 0.95) -> float:
    """Wilson half-width at an assumed rate p over n units, z·√(p(1−p)/n + z²/4n²)/(1 + z²/n).
    ``n`` may be an effective n (n / deff) and need not be whole."""
    z = z_quantile(confidence)
    return z * math.sqrt(rate * (1 - rate) / n + z * z / 4 / n / n) / (1 + z * z / n)


def n_for_halfwidth(target: float, rate: float = 0.5, confidence: float = 0.95) -> int:
    """The smallest n whose Wilson half-width at rate p is at most t: the larger root of
    t²n² + (2t²z² − z²p(1−p))·n + t²z⁴ − z⁴/4 = 0 (the width's equation, squared), rounded up."""
    z2, t2 = z_quantile(confidence) ** 2, target * target
    b, c = 2 * t2 * z2 - z2 * rate * (1 - rate), t2 * z2 * z2 - z2 * z2 / 4
    return max(1, math.ceil((-b + math.sqrt(b * b - 4 * t2 * c)) / (2 * t2) - 1e-9))


def effective_cluster_size(sizes: Sequence[float]) -> float:
    """Kish's size of unequal clusters, m̃ = Σmᵢ² / Σmᵢ (the mean size when all are equal; a
    cluster of expected size μ whose count is Poisson has E[m²]/E[m] = 1 + μ). 1 for none."""
    total = float(sum(sizes))
    return float(sum(m * m for m in sizes)) / total if total > 0 else 1.0


def design_effect(cluster_size: float, icc: float) -> float:
    """Kish's design effect of cluster sampling, deff = 1 + (m̃ − 1)·ρ: the variance of a mean
    (or pooled ratio) of units drawn in clusters of effective size m̃
    ([`effective_cluster_size`][normlab.stats.effective_cluster_size]) whose outcomes correlate ρ
    within a cluster, over the variance of as many independent units."""
    if not 0.0 <= icc <= 1.0:
        raise ValueError(f"an intra-cluster correlation lies in [0, 1], got {icc}")
    return 1.0 + (max(cluster_size, 1.0) - 1.0) * icc


def staged_variance(
    rates: Sequence[float],
    parents: Sequence[int | None],
    gradient: Sequence[float],
    icc: float = 0.0,
    cluster_size: float = 1.0,
) -> float:
    """Variance per unit of θ = g(r̂₁, …, r̂ₖ), a smooth function of nested stage rates, by the
    delta method, the units in clusters.

    Stage k's rate r̂ₖ is over the units that passed its parent stage (HSII: r2 over parsed
    replies, r3 and r4 over right targets), so a unit reaches stage k with probability
    πₖ = Π r_j over k's ancestors j (1 for a stage over every unit). Linearised, n·Var(θ̂) is
    σ² = Σₖ gₖ² · rₖ(1−rₖ)/πₖ · (1 + (m̃ − 1)·ρₖ),
    where gₖ = ∂g/∂rₖ: the stages' residuals are uncorrelated (each has mean 0 given the
    stages before it; two stages over the same units, as r3 and r4, are taken independent
    given those). ρₖ is stage k's residual correlation within a cluster when every stage's
    cluster-level rate varies with intra-cluster correlation ρ, independently across stages:
    ρₖ = ρ·πₖ·Π_j (1 + ρ(1−r_j)/r_j) over k's ancestors j (ρ itself for a stage over every
    unit, where this is [`design_effect`][normlab.stats.design_effect]'s variance).
    """
    if not len(rates) == len(parents) == len(gradient):
        raise ValueError("one parent and one derivative per stage rate")
    total = 0.0
    for stage, (rate, slope) in enumerate(zip(rates, gradient, strict=True)):
        reach, inflation = 1.0, 1.0
        parent = parents[stage]
        while parent is not None:
            ancestor = rates[parent]
            reach *= ancestor
            inflation *= 1.0 + icc * (1.0 - ancestor) / ancestor if ancestor > 0 else 1.0
            parent = parents[parent]
        if reach <= 0.0:
            continue  # a stage no unit reaches adds nothing (its rate counts 0)
        correlation = icc * reach * inflation
        total += (
            slope * slope * rate * (1.0 - rate) / reach * design_effect(cluster_size, correlation)
        )
    return total


def delta_halfwidth(unit_variance: float, n: float, confidence: float = 0.95) -> float:
    """The normal half-width z·√(σ²/n) of an estimator with variance σ²/n (σ² per unit, the
    design effect included: [`staged_variance`][normlab.stats.staged_variance])."""
    return z_quantile(confidence) * math.sqrt(unit_variance / n)


def n_for_delta_halfwidth(target: float, unit_variance: float, confidence: float = 0.95) -> int:
    """The smallest n with z·√(σ²/n) ≤ t: n = ⌈z²σ²/t²⌉."""
    return max(1, math.ceil(z_quantile(confidence) ** 2 * unit_variance / target / target - 1e-9))


def t_halfwidth(unit_variance: float, n: int, confidence: float = 0.95) -> float | None:
    """Student's half-width t₍₁₊c₎/₂,ₙ₋₁·√(σ²/n) of a mean over n independent runs; ``None``
    for one run, which has no interval (its spread is unknown)."""
    if n < 2:
        return None
    from scipy.stats import t  # slow to import: planning only

    return float(t.ppf(0.5 + confidence / 2.0, n - 1)) * math.sqrt(unit_variance / n)


def n_for_t_halfwidth(target: float, unit_variance: float, confidence: float = 0.95) -> int:
    """The smallest n ≥ 2 whose [`t_halfwidth`][normlab.stats.t_halfwidth] is at most t (searched
    upwards from the normal approximation's n, which it can only exceed)."""
    n = max(2, n_for_delta_halfwidth(target, unit_variance, confidence))
    while (width := t_halfwidth(unit_variance, n, confidence)) is not None and width > target:
        n += 1
    return n


# --- paired differences ----------------------------------------------------------------


def _power_z(alpha: float, power: float) -> tuple[float, float]:
    return z_quantile(1 - alpha), NormalDist().inv_cdf(power)


def connor_n(delta: float, discordance: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Connor (1987): the pairs a two-sided level-α McNemar test needs to detect a difference
    δ = p₁₀ − p₀₁ of paired proportions with this power, ψ = p₁₀ + p₀₁ the discordance:
    n = ⌈(z₁₋α/₂·√ψ + z_power·√(ψ − δ²))² / δ²⌉, for 0 < δ ≤ ψ ≤ 1."""
    if not 0.0 < delta <= discordance <= 1.0:
        raise ValueError(f"need 0 < δ ≤ ψ ≤ 1, got δ={delta}, ψ={discordance}")
    za, zb = _power_z(alpha, power)
    root = za * math.sqrt(discordance) + zb * math.sqrt(discordance - delta * delta)
    return math.ceil(root * root / delta / delta - 1e-9)


def connor_mde(
    n: float, discordance: float, alpha: float = 0.05, power: float = 0.8
) -> float | None:
    """The smallest δ that [`connor_n`][normlab.stats.connor_n]'s test detects on n pairs (n may be
    effective, the pairs' design effect divided out): the root in (0, ψ] of
    δ·√n = z₁₋α/₂·√ψ + z_power·√(ψ − δ²), found by bisection (the left side grows with δ,
    the right falls). ``None`` when even δ = ψ (every discordant pair one way) is not
    detected: n is too small."""
    if not 0.0 < discordance <= 1.0:
        raise ValueError(f"a discordance lies in (0, 1], got {discordance}")
    za, zb = _power_z(alpha, power)

    def excess(delta: float) -> float:
        return (
            delta * math.sqrt(n)
            - za * math.sqrt(discordance)
            - zb * math.sqrt(max(discordance - delta * delta, 0.0))
        )

    if excess(discordance) < 0:
        return None
    low, high = 0.0, discordance
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if excess(middle) < 0 else (low, middle)
    return high


def discordance(rate: float, correlation: float = 0.0) -> float:
    """ψ of two subjects at the same rate p whose binary outcomes on a unit correlate r:
    P(outcomes differ) = 2p(1−p)(1 − r) (2p(1−p) when independent)."""
    return 2.0 * rate * (1.0 - rate) * (1.0 - correlation)


def normal_mde(
    unit_variance: float,
    n: float,
    correlation: float = 0.0,
    alpha: float = 0.05,
    power: float = 0.8,
) -> float:
    """Smallest paired difference of two subjects' estimates detectable on n shared units by a
    two-sided level-α test with this power, normal approximation: δ = (z₁₋α/₂ + z_power)·
    √(2σ²(1 − r)/n), σ² each subject's variance per unit (design effect included) and r the
    correlation of the two subjects' per-unit values (0: independent, the widest)."""
    za, zb = _power_z(alpha, power)
    return (za + zb) * math.sqrt(2.0 * unit_variance * (1.0 - correlation) / n)
