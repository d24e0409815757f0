"""A study plan's estimators: what a cell's headline is, as its precision is planned.

Each system's headline is a different estimator over differently sampled units (the study
plan's ``normlab.study.power`` sizes each at its design and rates): a share of binary units in
clusters ([`Proportion`][normlab.stats.planning.Proportion]: each unit its own cluster, or
events in sampled units), a mean over runs of each run's share
([`RunMean`][normlab.stats.planning.RunMean]), or a system's own, declared in its package.
Each system's parts name its estimator, how a dry run sampled its units
([`Design`][normlab.stats.planning.Design]) and the rates a pilot measured: an
[`Assumed`][normlab.stats.planning.Assumed], or the system's own subclass of it where its
headline needs more than one rate (the estimator's ``assumed``).

Each estimator is a small object with ``value``, ``variance`` (per unit, the design effect
included), ``halfwidth``, ``n_for`` and ``mde``: what a sequential run (the expected saving) or
a prompt-variant study needs of a cell's precision, in one place.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import Protocol, Self

from pydantic import BaseModel, Field

from normlab import stats


class Assumed(BaseModel):
    """What a cell's power is computed at, and where it came from: the headline's rate. A
    system whose headline needs more (several rates, or events per sampled unit) subclasses
    it, and its estimator's ``assumed`` names the subclass, so that this layer names no
    system's quantities."""

    rate: float | None = None
    """The headline's rate, where it is a share."""
    source: str = "assumed"

    def per_sampled(self) -> float | None:
        """The headline's units per sampled unit (events per sampled unit), where the
        estimator counts such; None: the sampled units are the units."""
        return None

    def describe(self) -> str:
        """The rates, in words (a pilot's source names them)."""
        return "" if self.rate is None else f"rate {self.rate:.3f}"

    def mean(self, others: Sequence[Assumed], rate: float, source: str) -> Self:
        """``others``' rates averaged into one of this type (``rate`` where none has one),
        said to come from ``source``: several subjects' pilot rates, for a subject the pilot
        did not run."""
        own = [self.of(other).rate for other in others]
        known = [value for value in own if value is not None]
        return type(self)(rate=fmean(known) if known else rate, source=source)

    @classmethod
    def of(cls, found: Assumed) -> Self:
        """``found`` read as this type (what it lacks at this type's defaults): what a plan
        holds of any system, read back by the system's own estimator."""
        return cls.model_validate(found.model_dump())


class Design(BaseModel):
    """How a cell samples its headline's units, as its dry run counted them."""

    sampled: str
    """What the study's size counts (a scenario, an episode, a case, a run)."""
    cluster: str | None
    """What the units cluster in (the unit the report's interval resamples whole)."""
    sizes: list[int] = Field(default_factory=list)
    """Sampled units per cluster (1 where each unit is its own; a run's pairs for a mean over
    runs)."""

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

    @property
    def assumed(self) -> type[Assumed]:
        """What the rates it is computed at are (``Assumed``, or the system's own)."""

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
        """The headline's units per sampled unit at ``n`` units (events per sampled
        unit); None where the sampled units are the units."""


def _rate(assumed: Assumed) -> float:
    if assumed.rate is None:
        raise ValueError("this system's power needs a rate")
    return assumed.rate


@dataclass(frozen=True)
class Proportion:
    """A share of binary units in clusters (each unit its own, or events in the sampled
    units' clusters): Wilson at the effective n = n / deff."""

    unit: str
    per_sampled: float | None = None
    """Where the units are the sampled units times a rate (events per sampled unit), the
    rate assumed when a pilot measured none (``Assumed.per_sampled``); None: the sampled units
    are the units."""
    method: str = "Wilson at n / deff"
    assumed: type[Assumed] = Assumed

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        if self.per_sampled is None:
            return float(design.sampled_n), stats.effective_cluster_size(design.sizes)
        measured = assumed.per_sampled()
        rate = self.per_sampled if measured is None else measured
        means = [size * rate for size in design.sizes]
        total = sum(means)
        # A cluster's events a Poisson count of mean μ: E[m²] = μ + μ², so Kish's
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
        # Events are not shared: the sampled units' clusters pair the two subjects.
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
    """A mean over runs of each run's share of m pairs, the pairs of one run correlating ρ: a
    run's share has variance p(1−p)/m·(1 + (m−1)ρ)."""

    unit: str = "run"
    method: str = "Student's t over runs"
    assumed: type[Assumed] = Assumed

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        """The runs, and (the clusters of a run's share) its pairs: the design's size of a
        run."""
        return float(len(design.sizes)), float(max(design.sizes, default=1) or 1)

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
