"""Result types: every reported number with its n and its interval, JSON-ready (``None``,
never NaN)."""

from __future__ import annotations

from collections.abc import Callable, Sequence, Sized
from typing import Concatenate, ParamSpec, TypeVar

import numpy as np
from pydantic import BaseModel

from normlab.stats.intervals import (
    FloatInterval,
    Interval,
    bootstrap_ci,
    finite_or_none,
    kappa_ci,
    paired_bootstrap_delta,
    paired_rate_delta,
    paired_statistic_delta,
    pooled_rate_ci,
    spearman_ci,
    wilson_interval,
)
from normlab.stats.labels import cohen_kappa

# --- result types: every reported number with its n and its interval ------------------


def json_interval(interval: FloatInterval) -> Interval:
    """An estimator's interval as a result carries it: a NaN bound (undefined) as ``None``,
    since JSON has no NaN."""
    lo, hi = interval
    return (finite_or_none(lo), finite_or_none(hi))


UnitsT = TypeVar("UnitsT", bound=Sized)
P = ParamSpec("P")


def _over_units(
    estimator: Callable[Concatenate[UnitsT, P], tuple[float, FloatInterval]],
) -> Callable[Concatenate[UnitsT, P], Estimate]:
    """``estimator`` (a value and its interval, from units given first: pairs, items) as an
    [`Estimate`][normlab.stats.Estimate] over those units, with the estimator's own arguments:
    the one way each interval estimator over units becomes a reported number."""

    def estimate(units: UnitsT, /, *args: P.args, **kwargs: P.kwargs) -> Estimate:
        return Estimate.from_estimator(estimator(units, *args, **kwargs), len(units))

    return estimate


class Estimate(BaseModel):
    """A number with its interval and the count of units behind it.

    ``value`` is ``None`` when there are no units (undefined, never 0).
    """

    value: float | None
    ci: Interval
    n: int

    @classmethod
    def mean_of(cls, values: Sequence[float]) -> Estimate:
        """Mean over units with the percentile bootstrap interval over units."""
        if not values:
            return cls(value=None, ci=(None, None), n=0)
        return cls(
            value=float(np.mean(np.asarray(values, dtype=np.float64))),
            ci=json_interval(bootstrap_ci(values)),
            n=len(values),
        )

    @classmethod
    def from_estimator(cls, estimated: tuple[float, FloatInterval], n: int) -> Estimate:
        """An estimator's (value, interval) over ``n`` units, each end kept only if finite (a
        NaN from no units or no spread reads as None in JSON)."""
        value, interval = estimated
        return cls(value=finite_or_none(value), ci=json_interval(interval), n=n)

    @classmethod
    def pooled_rate(cls, counts: Sequence[tuple[int, int]]) -> Estimate:
        """Σk/Σn over clusters' (k, n) with the cluster bootstrap interval; ``n`` is Σn, the
        pooled units (``None`` value and n = 0 when there are none)."""
        return cls.from_estimator(pooled_rate_ci(counts), int(sum(n for _, n in counts)))

    paired_delta = staticmethod(_over_units(paired_bootstrap_delta))
    """Mean paired difference (treatment, control) with its bootstrap interval over pairs."""
    paired_rate_delta = staticmethod(_over_units(paired_rate_delta))
    """Difference of two pooled k/n rates on the same units, paired bootstrap over units."""
    paired_statistic_delta = staticmethod(_over_units(paired_statistic_delta))
    """θ(treatment) − θ(control) for a statistic θ of per-unit rows on the same units,
    paired (cluster) bootstrap over units; ``n`` is the units."""
    kappa = staticmethod(_over_units(kappa_ci))
    """Cohen's κ of two raters with its bootstrap interval over items (or clusters)."""

    @classmethod
    def difference(cls, treatment: Estimate, control: Estimate) -> Estimate:
        """``treatment − control`` as a point difference, with no interval: for statistics that
        are not paired unit by unit (two Spearman ρ over different episodes); ``n`` is the
        smaller of the two counts."""
        value = (
            None
            if treatment.value is None or control.value is None
            else treatment.value - control.value
        )
        return cls(value=value, ci=(None, None), n=min(treatment.n, control.n))

    spearman = staticmethod(_over_units(spearman_ci))
    """Spearman's ρ with its bootstrap interval over (x, y) pairs."""


class Rate(Estimate):
    """k of n with the Wilson 95% interval."""

    k: int

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        return cls(k=k, n=n, value=k / n if n else None, ci=json_interval(wilson_interval(k, n)))

    @classmethod
    def where(cls, flags: Sequence[bool | None]) -> Rate:
        """The share of known flags that are true; ``None`` flags (unknown) are left out."""
        known = [flag for flag in flags if flag is not None]
        return cls.of(sum(known), len(known))


class Band(BaseModel):
    """Mean over runs with the runs' min–max range: the band of a time series across runs.

    Not a confidence interval: with the paper's five runs a range says what a reader
    needs (every run lies inside it) without assuming a distribution.
    """

    mean: float | None
    low: float | None
    high: float | None
    n: int

    @classmethod
    def of(cls, values: Sequence[float]) -> Band:
        if not values:
            return cls(mean=None, low=None, high=None, n=0)
        return cls(
            mean=float(np.mean(np.asarray(values, dtype=np.float64))),
            low=float(min(values)),
            high=float(max(values)),
            n=len(values),
        )


class Agreement(BaseModel):
    """Two raters on the same binary items: agreement, Cohen's κ and the 2 × 2 table."""

    n: int
    rate: Rate
    """Items both raters label the same, k of n, with the Wilson interval."""
    cohen_kappa: float | None
    both_true: int
    both_false: int
    first_true_second_false: int
    first_false_second_true: int

    @classmethod
    def of(cls, first: Sequence[bool], second: Sequence[bool]) -> Agreement:
        pairs = list(zip(first, second, strict=True))
        agreeing = sum(a == b for a, b in pairs)
        return cls(
            n=len(pairs),
            rate=Rate.of(agreeing, len(pairs)),
            cohen_kappa=finite_or_none(cohen_kappa(first, second)),
            both_true=sum(a and b for a, b in pairs),
            both_false=sum(not a and not b for a, b in pairs),
            first_true_second_false=sum(a and not b for a, b in pairs),
            first_false_second_true=sum(b and not a for a, b in pairs),
        )
