"""A study plan's estimators: what a cell's headline is, as its precision is planned.

Each system's headline is a different estimator over differently sampled units (the study
plan's ``normlab.study.power`` sizes each at its design and rates): a share of binary units in
clusters ([`Proportion`][normlab.stats.planning.Proportion]: LoSoNA's scenarios, SCENE's
sanctions in scenarios), a mean over runs of each run's share
([`RunMean`][normlab.stats.planning.RunMean]: CRSEC), or a system's own (HSII's staged score,
``normlab.hsii.power``). Each system's spec (``normlab.runs.SystemSpec``) names its
estimator, how a dry run sampled its units ([`Design`][normlab.stats.planning.Design]) and the
rates a pilot measured ([`Assumed`][normlab.stats.planning.Assumed]).

Each estimator is a small object with ``value``, ``variance`` (per unit, the design effect
included), ``halfwidth``, ``n_for`` and ``mde``: what a sequential run (the expected saving) or
a prompt-variant study needs of a cell's precision, in one place.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, Field

from normlab import stats


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

    def source(self, assumed: Assumed) -> str:
        """Where the rates the power is computed at came from, in words (a default of the
        estimator's own named)."""

    def per_sampled_units(self, n: float, design: Design) -> float | None:
        """The headline's units per sampled unit at ``n`` units (SCENE's sanctions per
        episode); None where the sampled units are the units."""


def _rate(assumed: Assumed) -> float:
    if assumed.rate is None:
        raise ValueError("this system's power needs a rate")
    return assumed.rate


@dataclass(frozen=True)
class Proportion:
    """A share of binary units in clusters (LoSoNA: each scenario its own; SCENE: sanctions in
    scenarios): Wilson at the effective n = n / deff."""

    unit: str
    per_sampled: float | None = None
    """Where the units are the sampled units times a rate (SCENE: sanctions per episode), the
    rate assumed when a pilot measured none; None: the sampled units are the units."""
    method: str = "Wilson at n / deff"

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        if self.per_sampled is None:
            return float(design.sampled_n), stats.effective_cluster_size(design.sizes)
        rate = (
            self.per_sampled
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
        # Sanctions are not shared: the scenarios pair the two subjects.
        if self.per_sampled is not None:
            return stats.normal_mde(variance, n, correlation), None
        psi = stats.discordance(p, correlation)
        return (stats.connor_mde(n / deff, psi) if psi > 0 else None), psi

    def source(self, assumed: Assumed) -> str:
        return assumed.source

    def per_sampled_units(self, n: float, design: Design) -> float | None:
        if self.per_sampled is None or not design.sampled_n:
            return None
        return n / design.sampled_n


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

    def source(self, assumed: Assumed) -> str:
        return assumed.source

    def per_sampled_units(self, n: float, design: Design) -> float | None:
        return None


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
