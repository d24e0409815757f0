"""The plan's power, per system, on the scale of the system's own headline estimator.

Each system's headline is a different estimator over differently sampled units, so each gets
its own variance (``normlab.stats``):

* LoSoNA, accuracy-at-K: a share of scenarios, each its own unit: the Wilson half-width over
  the scenarios; two subjects on the same scenarios are paired binary units (Connor 1987, at
  a stated discordance).
* SCENE, repair rate: repaired sanctions over sanctions, pooled; sanctions come in scenarios
  (every repetition of a scenario, as the report's interval resamples them). The sanctions are
  the episodes times the sanctions per episode (assumed, or a pilot's), a scenario's count taken
  as Poisson; the Wilson half-width at n / deff, deff = 1 + (m̃ − 1)ρ (Kish).
* HSII, the score ι = r1(1 + αβ·r2(r3 + γ·r4)) on 0–3: a function of four nested stage rates,
  by the delta method, cases clustered in their dialogues
  ([`normlab.stats.staged_variance`][normlab.stats.staged_variance]).
* CRSEC, the final adhering share: a mean over runs (the unit), each run's share over its
  agent × target-norm pairs, which correlate ρ within the run; Student's t over the runs, and
  none for one run.

The intra-cluster correlation ρ (``--icc``) and the correlation between two subjects on a
shared unit (``--pair-correlation``, from which LoSoNA's discordance ψ = 2p(1−p)(1 − r)) are
stated, never measured silently; the rates are assumed (``--assumed-rate``, HSII's four stage
rates at the paper's GPT-4 row) or read from a pilot (``normlab.study.pilot``).

Each estimator is a small object with ``value``, ``variance`` (per unit, the design effect
included), ``halfwidth``, ``n_for`` and ``mde``: what a sequential run (the expected saving) or
a prompt-variant study needs of a cell's precision, in one place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field

from normlab import stats

ICC = 0.05
"""The intra-cluster correlation assumed when none is given: small but not nil, since cases cut
from one dialogue share its history and one scenario's sanctions its difficulty."""
SANCTIONS_PER_EPISODE = 0.547
"""SCENE §6: Claude Opus 4.7's repair rate is over 547 sanctions in 1,000 episodes (461 of 547,
the project's reading notes); the paper's other rows print no n."""
HSII_STAGES = (0.701, 0.732, 0.67, 0.69)
"""HSII Table 1, GPT4's r1–r4 (ι = 1.399): the default where no pilot measured a subject."""


class Assumed(BaseModel):
    """What a cell's power is computed at, and where it came from."""

    rate: float | None = None
    """The headline's rate, for a system whose headline is a share (LoSoNA, SCENE, CRSEC)."""
    stages: tuple[float, float, float, float] | None = None
    """HSII's r1–r4."""
    sanctions_per_episode: float | None = None
    """SCENE: how many sanctions an episode brings (the repair rate's denominator)."""
    source: str = "assumed"


class Design(BaseModel):
    """How a cell samples its headline's units, as its dry run counted them."""

    sampled: str
    """What the study's size counts: scenario (LoSoNA), episode (SCENE), case (HSII), run."""
    cluster: str | None
    """What the units cluster in (the unit the report's interval resamples whole)."""
    sizes: list[int] = Field(default_factory=list)
    """Sampled units per cluster: episodes per scenario, cases per dialogue, one scenario."""
    pairs_per_run: int = 0
    """CRSEC: agent × target-norm pairs a run's share is over."""

    @property
    def sampled_n(self) -> int:
        return sum(self.sizes)


@dataclass(frozen=True)
class Precision:
    """A cell's precision at its planned size, in its headline's unit."""

    unit: str
    n: float
    """Units (SCENE's sanctions are expected, so not whole)."""
    clusters: int
    cluster_size: float
    """Kish's m̃ of the units' clusters."""
    design_effect: float
    value: float
    """The headline at the assumed rates."""
    variance: float
    """Per unit, the design effect included."""
    halfwidth: float | None
    paired_mde: float | None
    discordance: float | None
    """Connor's ψ, where paired units are binary (LoSoNA)."""
    n_for_target: int
    """Units whose half-width reaches the target (clusters of the same size)."""
    sampled_for_target: int
    """The same in the study's sampled unit (episodes for SCENE's sanctions)."""
    method: str


class Estimator(Protocol):
    """A system's headline estimator, as the plan sizes it."""

    @property
    def unit(self) -> str:
        """What n counts."""

    @property
    def method(self) -> str:
        """How the half-width is computed, in words."""

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        """Expected units, and Kish's m̃ of their clusters (in units)."""

    def value(self, assumed: Assumed) -> float: ...

    def variance(self, assumed: Assumed, cluster_size: float, icc: float) -> float: ...

    def halfwidth(
        self, assumed: Assumed, n: float, variance: float, deff: float
    ) -> float | None: ...

    def n_for(self, target: float, assumed: Assumed, variance: float, deff: float) -> int: ...

    def mde(
        self, assumed: Assumed, n: float, variance: float, deff: float, correlation: float
    ) -> tuple[float | None, float | None]:
        """The paired MDE and, for binary paired units, Connor's discordance."""


def _rate(assumed: Assumed) -> float:
    if assumed.rate is None:
        raise ValueError("this system's power needs a rate")
    return assumed.rate


@dataclass(frozen=True)
class Proportion:
    """A share of binary units in clusters (LoSoNA: each scenario its own; SCENE: sanctions in
    scenarios): Wilson at the effective n = n / deff."""

    unit: str
    per_sampled: bool = False
    """The units are the sampled units times the sanctions per episode (SCENE)."""
    method: str = "Wilson at n / deff"

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        if not self.per_sampled:
            return float(design.sampled_n), stats.effective_cluster_size(design.sizes)
        rate = (
            SANCTIONS_PER_EPISODE
            if assumed.sanctions_per_episode is None
            else assumed.sanctions_per_episode
        )
        means = [size * rate for size in design.sizes]
        total = sum(means)
        # A scenario's sanctions a Poisson count of mean μ: E[m²] = μ + μ², so Kish's
        # m̃ = Σ(μ + μ²) / Σμ = 1 + Σμ² / Σμ.
        return total, (1.0 + sum(m * m for m in means) / total) if total > 0 else 1.0

    def value(self, assumed: Assumed) -> float:
        return _rate(assumed)

    def variance(self, assumed: Assumed, cluster_size: float, icc: float) -> float:
        p = _rate(assumed)
        return p * (1 - p) * stats.design_effect(cluster_size, icc)

    def halfwidth(self, assumed: Assumed, n: float, variance: float, deff: float) -> float | None:
        return stats.wilson_halfwidth(_rate(assumed), n / deff) if n > 0 else None

    def n_for(self, target: float, assumed: Assumed, variance: float, deff: float) -> int:
        return math.ceil(stats.n_for_halfwidth(target, _rate(assumed)) * deff - 1e-9)

    def mde(
        self, assumed: Assumed, n: float, variance: float, deff: float, correlation: float
    ) -> tuple[float | None, float | None]:
        if n <= 0:
            return None, None
        p = _rate(assumed)
        if self.per_sampled:  # sanctions are not shared: the scenarios pair the two subjects
            return stats.normal_mde(variance, n, correlation), None
        psi = stats.discordance(p, correlation)
        return (stats.connor_mde(n / deff, psi) if psi > 0 else None), psi


def hsii_gradient(stages: Sequence[float]) -> list[float]:
    """∂ι/∂rₖ of HSII's score (Table 1's form, α = β = γ = 1) at ``stages``, by central
    differences: ι is linear in each rate, so they are exact up to rounding."""
    from normlab.hsii import hsii_score

    step, slopes = 1e-4, []
    for index in range(4):
        up, down = list(stages), list(stages)
        up[index] += step
        down[index] -= step
        slopes.append((hsii_score(*up) - hsii_score(*down)) / (2 * step))
    return slopes


@dataclass(frozen=True)
class StagedScore:
    """HSII's score of r1–r4, the delta method over cases clustered in dialogues."""

    unit: str = "case"
    method: str = "delta method over r1–r4"
    parents: tuple[int | None, ...] = (None, 0, 1, 1)
    """r2 is over parsed replies, r3 and r4 over right targets (Definition 1)."""

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        return float(design.sampled_n), stats.effective_cluster_size(design.sizes)

    def _stages(self, assumed: Assumed) -> tuple[float, float, float, float]:
        return assumed.stages or HSII_STAGES

    def value(self, assumed: Assumed) -> float:
        from normlab.hsii import hsii_score

        return float(hsii_score(*self._stages(assumed)))

    def variance(self, assumed: Assumed, cluster_size: float, icc: float) -> float:
        stages = self._stages(assumed)
        return stats.staged_variance(stages, self.parents, hsii_gradient(stages), icc, cluster_size)

    def halfwidth(self, assumed: Assumed, n: float, variance: float, deff: float) -> float | None:
        return stats.delta_halfwidth(variance, n) if n > 0 else None

    def n_for(self, target: float, assumed: Assumed, variance: float, deff: float) -> int:
        return stats.n_for_delta_halfwidth(target, variance)

    def mde(
        self, assumed: Assumed, n: float, variance: float, deff: float, correlation: float
    ) -> tuple[float | None, float | None]:
        return (stats.normal_mde(variance, n, correlation) if n > 0 else None), None


@dataclass(frozen=True)
class RunMean:
    """CRSEC's mean over runs of each run's share of agent × target-norm pairs adhering, the
    pairs of one run correlating ρ: a run's share has variance p(1−p)/m·(1 + (m−1)ρ)."""

    unit: str = "run"
    method: str = "Student's t over runs"

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        """The runs, and (the clusters of a run's share) its agent × target-norm pairs."""
        return float(len(design.sizes)), float(max(design.pairs_per_run, 1))

    def value(self, assumed: Assumed) -> float:
        return _rate(assumed)

    def variance(self, assumed: Assumed, cluster_size: float, icc: float) -> float:
        p, m = _rate(assumed), max(cluster_size, 1.0)
        return p * (1 - p) / m * stats.design_effect(m, icc)

    def halfwidth(self, assumed: Assumed, n: float, variance: float, deff: float) -> float | None:
        return stats.t_halfwidth(variance, int(n))

    def n_for(self, target: float, assumed: Assumed, variance: float, deff: float) -> int:
        return stats.n_for_t_halfwidth(target, variance)

    def mde(
        self, assumed: Assumed, n: float, variance: float, deff: float, correlation: float
    ) -> tuple[float | None, float | None]:
        # Each subject simulates its own society: two independent groups of n runs.
        return (stats.normal_mde(variance, n) if n >= 2 else None), None


def precision(
    estimator: Estimator,
    design: Design,
    assumed: Assumed,
    target: float,
    icc: float = ICC,
    correlation: float = 0.0,
) -> Precision:
    """A cell's half-width, paired MDE and the n for ``target``, at its design and rates."""
    n, size = estimator.units(design, assumed)
    variance = estimator.variance(assumed, size, icc)
    independent = estimator.variance(assumed, size, 0.0)
    # The design effect as the variance says it (HSII's stages are clustered unequally).
    deff = variance / independent if independent > 0 else stats.design_effect(size, icc)
    mde, psi = estimator.mde(assumed, n, variance, deff, correlation)
    needed = estimator.n_for(target, assumed, variance, deff)
    per_sampled = n / design.sampled_n if design.sampled_n and n else 1.0
    return Precision(
        unit=estimator.unit,
        n=n,
        clusters=len(design.sizes),
        cluster_size=size,
        design_effect=deff,
        value=estimator.value(assumed),
        variance=variance,
        halfwidth=estimator.halfwidth(assumed, n, variance, deff),
        paired_mde=mde,
        discordance=psi,
        n_for_target=needed,
        sampled_for_target=math.ceil(needed / per_sampled - 1e-9) if per_sampled else needed,
        method=estimator.method,
    )


# --- a pilot's rates ------------------------------------------------------------------------


def conservative(
    value: float, k_of_n: tuple[float, int] | None, interval: stats.Interval
) -> float | None:
    """A measured rate a plan can use: a rate of 0 or 1 would promise an interval of no width,
    so it is replaced by the end of its 95% interval nearest ½ (the Wilson interval over its n
    where the measured interval has no width either); ``None`` when neither has a usable end."""
    if 0.0 < value < 1.0:
        return value
    ends = [end for end in interval if end is not None and 0.0 < end < 1.0]
    if not ends and k_of_n is not None and k_of_n[1]:
        k, n = k_of_n
        ends = [end for end in stats.wilson_interval(round(k), n) if 0.0 < end < 1.0]
    return min(ends, key=lambda end: abs(end - 0.5)) if ends else None
