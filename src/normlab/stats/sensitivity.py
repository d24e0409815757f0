"""Prompt sensitivity: how far each subject's headline moves across prompt variants, and
whether the ranking of subjects holds.

The data are one array of per-unit values, ``units[i, s, v]``: unit i (a scenario, a case)
under subject s and variant v, each a row of width w (a value; SCENE's ``(k, n)``; HSII's four
stage values). Every subject and every variant ran the same units, so they are paired: a
bootstrap resample draws units (or, with ``clusters``, whole clusters) once and recomputes
every subject's headline under every variant on them, and the spread and τ below are read on
those recomputed headlines. Resampling the units removes what the units share across
variants (a hard scenario is hard under every wording), so what is left is the wording's.

- **Spread**: per subject, the range of its headlines across variants, max − min, in the
  headline's own units (chosen over the SD for that: "the wording moves accuracy by 0.12").
  Its interval is the percentile bootstrap of the range over the paired units. The range of
  noisy estimates is above 0 even where the wording changes nothing, and more so with more
  variants: read it beside each variant's paired difference from the paper's prompt.
- **Ranking stability**: Kendall's τ-b between the subjects' headlines under the paper's
  prompt (variant 0) and under each other variant, with its percentile bootstrap over the
  same resamples. τ = 1: the same order; −1: reversed; with two subjects it is ±1 (or
  undefined at a tie), so the interval says how often the order flips on resampled units.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from normlab.stats.intervals import (
    UNIT_MEAN,
    FloatInterval,
    Statistic,
    bootstrap_estimates,
    percentile_interval,
    z_quantile,
)
from normlab.stats.resamples import DEFAULT_RESAMPLES, DEFAULT_SEED


def kendall_tau_b_rows(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Kendall's τ-b of each row pair of ``x`` and ``y`` (B × S → B), all at once:

    τ_b = Σ_{i<j} sgn(xᵢ − xⱼ)·sgn(yᵢ − yⱼ) / √(Σ_{i<j} sgn(xᵢ − xⱼ)² · Σ_{i<j} sgn(yᵢ − yⱼ)²),

    the concordant minus the discordant pairs over √((n₀ − n₁)(n₀ − n₂)), n₁ and n₂ the pairs
    tied in x and in y: ``scipy.stats.kendalltau``'s value (a Hypothesis property checks it).
    NaN for a row whose x or y is constant, or that holds a NaN."""
    rows_x, rows_y = np.atleast_2d(x), np.atleast_2d(y)
    first, second = np.triu_indices(rows_x.shape[1], k=1)
    sign_x = np.sign(rows_x[:, first] - rows_x[:, second])
    sign_y = np.sign(rows_y[:, first] - rows_y[:, second])
    with np.errstate(divide="ignore", invalid="ignore"):
        taus = (sign_x * sign_y).sum(axis=1) / np.sqrt(
            (sign_x**2).sum(axis=1) * (sign_y**2).sum(axis=1)
        )
    return np.where(np.isfinite(taus), taus, np.nan)


def variant_headlines(
    units: NDArray[np.float64],
    statistic: Statistic = UNIT_MEAN,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: list[str] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """θ of every subject × variant on all units (S × V), and on each bootstrap resample of
    the units (B × S × V), every cell of a resample on the same units (they are paired).

    ``units``: n × S × V × w, unit i's row under subject s and variant v (w = 1: a value);
    ``statistic``: the headline of a matrix of rows (default: the mean of the values);
    ``clusters``: one label per unit, to resample whole clusters (HSII's dialogues)."""
    data = np.asarray(units, dtype=np.float64)
    if data.ndim == 3:
        data = data[..., np.newaxis]
    n, subjects, variants, width = data.shape

    def cell(s: int, v: int) -> NDArray[np.float64]:
        column = data[:, s, v, :]
        return column[:, 0] if width == 1 and statistic is UNIT_MEAN else column

    point = np.full((subjects, variants), math.nan)
    resampled = np.empty((n_resamples, subjects, variants), dtype=np.float64)
    for s in range(subjects):
        for v in range(variants):
            if n:
                point[s, v] = statistic(cell(s, v))
            # One seed: resample b draws the same units (or clusters) for every cell.
            resampled[:, s, v] = bootstrap_estimates(
                cell(s, v), statistic, n_resamples, seed, clusters
            )
    return point, resampled


def headline_range(
    headlines: NDArray[np.float64], resampled: NDArray[np.float64], confidence: float = 0.95
) -> list[tuple[float, FloatInterval]]:
    """Per subject, the range of its headlines across variants, max − min (NaN where one is
    undefined), with its percentile interval over the paired resamples
    ([`variant_headlines`][normlab.stats.variant_headlines]); resamples on which a headline is
    undefined are left out."""
    z_quantile(confidence)
    spread = headlines.max(axis=1) - headlines.min(axis=1)
    spreads = resampled.max(axis=2) - resampled.min(axis=2)
    return [
        (float(spread[s]), percentile_interval(spreads[:, s], confidence))
        for s in range(headlines.shape[0])
    ]


def ranking_taus(
    headlines: NDArray[np.float64], resampled: NDArray[np.float64], confidence: float = 0.95
) -> list[tuple[float, FloatInterval]]:
    """Per variant after the first (the paper's), Kendall's τ-b between the subjects'
    headlines under the first variant and under it, with its percentile interval over the
    paired resamples (resamples where τ is undefined, a tie, are left out)."""
    z_quantile(confidence)
    found = []
    for v in range(1, headlines.shape[1]):
        tau = float(kendall_tau_b_rows(headlines[np.newaxis, :, 0], headlines[np.newaxis, :, v])[0])
        taus = kendall_tau_b_rows(resampled[:, :, 0], resampled[:, :, v])
        found.append((tau, percentile_interval(taus, confidence)))
    return found


def paper_differences(
    headlines: NDArray[np.float64], resampled: NDArray[np.float64], confidence: float = 0.95
) -> list[list[tuple[float, FloatInterval]]]:
    """Per subject, per variant after the first (the paper's), the paired difference
    θ_sv − θ_s0 with its percentile interval over the paired resamples: what the range is read
    beside, since a range of noisy estimates is above 0 even where no wording matters, and
    an interval of a difference can hold 0 where the range's cannot."""
    z_quantile(confidence)
    return [
        [
            (
                float(headlines[s, v] - headlines[s, 0]),
                percentile_interval(resampled[:, s, v] - resampled[:, s, 0], confidence),
            )
            for v in range(1, headlines.shape[1])
        ]
        for s in range(headlines.shape[0])
    ]
