"""Intervals: Wilson for a proportion, percentile bootstraps over the resampled unit (plain,
cluster, paired, pooled rate differences, the paired difference of any statistic, Cohen's κ),
Spearman's ρ with its bootstrap, and Kendall's τ."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence, Sized
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from normlab.stats.resamples import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    cluster_resamples,
    resample_indexes,
)

FloatInterval = tuple[float, float]
"""An interval as the estimators compute it: NaN bounds mean undefined."""
Interval = tuple[float | None, float | None]
"""An interval as results carry it: ``None`` bounds mean undefined (JSON has no NaN)."""
Statistic = Callable[[NDArray[np.float64]], float]
"""What a bootstrap recomputes on each resample: the units' values in, one number out."""
Values = Sequence[float] | NDArray[np.float64]
"""Numbers, one per unit: a sequence or a NumPy vector."""


def z_quantile(confidence: float) -> float:
    """The standard normal quantile whose two-sided interval covers ``confidence``
    (1.96 at 0.95): every normal-approximation interval and sample size here uses it."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2.0)


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> FloatInterval:
    """Wilson score interval for a binomial proportion.

    p̂ = k/n, z = Φ⁻¹(1 − α/2);
    centre = (p̂ + z²/2n) / (1 + z²/n);
    half   = z·√(p̂(1−p̂)/n + z²/4n²) / (1 + z²/n).
    Returns ``(nan, nan)`` when ``n == 0``: no data, no interval.
    """
    if n < 0 or successes < 0 or successes > n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return (math.nan, math.nan)
    z = z_quantile(confidence)
    p = successes / n
    denominator = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At k = 0 (k = n) the lower (upper) bound is exactly 0 (1); say so rather
    # than return a rounding residue.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


def _mean(values: NDArray[np.float64]) -> float:
    return float(np.mean(values))


def percentile_interval(estimates: NDArray[np.float64], confidence: float) -> FloatInterval:
    """The α/2 and 1 − α/2 quantiles of the resamples' estimates on which the statistic is
    defined (NaN ones are left out); ``(nan, nan)`` when it is defined on none."""
    defined = estimates[~np.isnan(estimates)]
    if defined.size == 0:
        return (math.nan, math.nan)
    alpha = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(defined, [alpha, 1.0 - alpha])
    return (float(lo), float(hi))


def _pooled_rate_differences(resamples: NDArray[np.float64]) -> NDArray[np.float64]:
    """``_pooled_rate_difference`` of every resample at once (B × n × 4 → B).

    The counts are whole numbers, so the sums are exact in any order and each value
    equals the one-resample function's.
    """
    totals = resamples.sum(axis=1)
    treatment_n, control_n = totals[:, 1], totals[:, 3]
    defined = (treatment_n != 0) & (control_n != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        differences = totals[:, 0] / treatment_n - totals[:, 2] / control_n
    return np.where(defined, differences, np.nan)


def _pooled_rate(rows: NDArray[np.float64]) -> float:
    """Σk/Σn over rows ``(k, n)``; NaN when Σn is 0."""
    total = float(rows[:, 1].sum())
    return float(rows[:, 0].sum()) / total if total else math.nan


def _pooled_rates(resamples: NDArray[np.float64]) -> NDArray[np.float64]:
    """``_pooled_rate`` of every resample at once (B × n × 2 → B)."""
    totals = resamples.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        rates = totals[:, 0] / totals[:, 1]
    return np.where(totals[:, 1] != 0, rates, np.nan)


UNIT_MEAN: Statistic = _mean
"""The mean of per-unit values (LoSoNA's accuracy-at-K over scenarios), as a statistic."""
POOLED_RATE: Statistic = _pooled_rate
"""Σk/Σn over per-unit ``(k, n)`` rows (SCENE's repaired over sanctions), as a statistic."""


def _batch_estimates(
    data: NDArray[np.float64], indexes: NDArray[np.int64], statistic: Statistic
) -> NDArray[np.float64]:
    """``statistic`` on each resample (row of ``indexes``): in one array operation for the
    statistics this module knows, else one call per resample."""
    if statistic is _mean and data.ndim == 1:
        return np.asarray(data[indexes].mean(axis=1), dtype=np.float64)
    if statistic is _pooled_rate and data.ndim == 2:
        return _pooled_rates(data[indexes])
    if statistic is _pooled_rate_difference and data.ndim == 2:
        return _pooled_rate_differences(data[indexes])
    if statistic is _kappa and data.ndim == 2:
        return _kappas(data[indexes])
    return np.array([statistic(data[row]) for row in indexes], dtype=np.float64)


def bootstrap_ci(
    values: Values,
    statistic: Statistic = _mean,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: Sequence[str] | None = None,
) -> FloatInterval:
    """Percentile bootstrap interval of ``statistic`` over the units in ``values``.

    Draw B resamples of size n with replacement from the units, compute the
    statistic on each and return its α/2 and 1 − α/2 quantiles. Each value is one
    unit (a scenario's accuracy-at-K, an episode's rate), so the interval is over
    units, not over raw model calls. A unit may be a row (a case's four stage
    values): rows are resampled whole. Resamples on which the statistic is
    undefined (NaN) are left out; ``(nan, nan)`` for an empty input or when every
    resample is undefined.

    With ``clusters`` (one label per unit), the clusters are resampled instead, each with
    all its units (the cluster bootstrap): units of one cluster are not independent (the
    cases cut from one HSII dialogue), and resampling them one by one would make the
    interval too narrow. Clusters are drawn in order of first appearance, so singleton
    clusters give the same interval as the plain bootstrap.

    Not ``scipy.stats.bootstrap``: it has no cluster resampling and turns a resample on
    which the statistic is undefined into an undefined interval, where leaving that
    resample out is what a paired rate or a ρ needs.
    """
    z_quantile(confidence)
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return (math.nan, math.nan)
    return percentile_interval(
        bootstrap_estimates(data, statistic, n_resamples, seed, clusters), confidence
    )


def bootstrap_estimates(
    values: Values,
    statistic: Statistic = _mean,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: Sequence[str] | None = None,
) -> NDArray[np.float64]:
    """``statistic`` on each of the B resamples [`bootstrap_ci`][normlab.stats.bootstrap_ci]
    draws (units, or with ``clusters`` whole clusters, with replacement; NaN where it is
    undefined, all NaN for no units). One seed draws the same rows for every input of the
    same length and clusters, so estimates of several inputs on one seed are paired: resample
    b of each holds the same units (``normlab.stats.sensitivity`` reads variants so)."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return np.full(n_resamples, math.nan)
    if clusters is None:
        indexes = resample_indexes(seed, data.shape[0], n_resamples)
        return _batch_estimates(data, indexes, statistic)
    if len(clusters) != data.shape[0]:
        raise ValueError(f"{len(clusters)} cluster labels for {data.shape[0]} units")
    # Resamples hold different numbers of units, so one call per resample.
    return np.array(
        [statistic(data[row]) for row in cluster_resamples(clusters, n_resamples, seed)],
        dtype=np.float64,
    )


def paired_bootstrap_delta(
    treatment: Sequence[float],
    control: Sequence[float],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, FloatInterval]:
    """Mean paired difference Δ = mean(tᵢ − cᵢ) with a bootstrap interval over pairs.

    ``treatment[i]`` and ``control[i]`` belong to the same unit (scenario), so
    pairs are resampled together: this keeps the scenario-level correlation
    that an unpaired interval would ignore.
    """
    _check_paired(treatment, control, "paired samples")
    differences = np.asarray(treatment, dtype=np.float64) - np.asarray(control, dtype=np.float64)
    if differences.size == 0:
        return (math.nan, (math.nan, math.nan))
    delta = float(differences.mean())
    return delta, bootstrap_ci(
        differences, confidence=confidence, n_resamples=n_resamples, seed=seed
    )


def _check_paired(a: Sized, b: Sized, what: str) -> None:
    """A ``ValueError`` unless ``a`` and ``b`` hold one value per unit each."""
    if len(a) != len(b):
        raise ValueError(f"{what} differ in length: {len(a)} vs {len(b)}")


def _pooled_rate_difference(rows: NDArray[np.float64]) -> float:
    """Σkₜ/Σnₜ − Σk꜀/Σn꜀ over rows ``(kₜ, nₜ, k꜀, n꜀)``; NaN when either Σn is 0."""
    treatment_n, control_n = float(rows[:, 1].sum()), float(rows[:, 3].sum())
    if treatment_n == 0 or control_n == 0:
        return math.nan
    return float(rows[:, 0].sum()) / treatment_n - float(rows[:, 2].sum()) / control_n


def pooled_rate_ci(
    counts: Sequence[tuple[int, int]],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, FloatInterval]:
    """A rate pooled over clusters, R = Σkᵢ/Σnᵢ, with a percentile bootstrap over the clusters.

    ``counts[i] = (kᵢ, nᵢ)`` is cluster i's successes of its units (SCENE: a scenario's
    repaired sanctions of its sanctions, over all its repetitions). The units of one cluster
    are not independent, so the clusters are resampled whole, each with its (k, n): the
    interval is over the independent units, not over the pooled units as a Wilson interval
    over Σn would be. Resamples with Σn = 0 are left out; NaN when Σn = 0, and no interval
    (NaN bounds) when fewer than two clusters have units: one cluster's resamples are all
    itself, an interval of no width that would claim a certainty one cluster cannot give.
    """
    rows = np.array(list(counts), dtype=np.float64).reshape(-1, 2)
    rate = _pooled_rate(rows) if rows.shape[0] else math.nan
    if math.isnan(rate):
        return (math.nan, (math.nan, math.nan))
    if int((rows[:, 1] > 0).sum()) < 2:
        return rate, (math.nan, math.nan)
    return rate, bootstrap_ci(rows, _pooled_rate, confidence, n_resamples, seed)


def paired_rate_delta(
    treatment: Sequence[tuple[int, int]],
    control: Sequence[tuple[int, int]],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, FloatInterval]:
    """Difference of two pooled rates measured on the same units, with a paired bootstrap.

    ``treatment[i] = (kᵢ, nᵢ)`` and ``control[i]`` belong to unit i (a scenario); the rates
    pool their units' counts (SCENE's repair rate: repaired sanctions over sanctions), so
    Δ = Σkₜ/Σnₜ − Σk꜀/Σn꜀. Units are resampled whole, both arms together, which keeps the
    pairing; resamples where either arm has no denominator are left out. NaN when undefined.
    """
    _check_paired(treatment, control, "paired samples")
    rows = np.array(
        [[kt, nt, kc, nc] for (kt, nt), (kc, nc) in zip(treatment, control, strict=True)],
        dtype=np.float64,
    ).reshape(-1, 4)
    if rows.shape[0] == 0:
        return (math.nan, (math.nan, math.nan))
    delta = _pooled_rate_difference(rows)
    if math.isnan(delta):
        return (math.nan, (math.nan, math.nan))
    interval = bootstrap_ci(rows, _pooled_rate_difference, confidence, n_resamples, seed)
    return delta, interval


def paired_statistic_delta(
    treatment: Sequence[Sequence[float]],
    control: Sequence[Sequence[float]],
    statistic: Statistic,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: Sequence[str] | None = None,
) -> tuple[float, FloatInterval]:
    """Δ = θ(treatment) − θ(control) for any statistic θ of per-unit rows measured on the same
    units, with a paired percentile bootstrap over the units.

    ``treatment[i]`` and ``control[i]`` are unit i's rows (HSII: a case's four stage values)
    under two subjects; θ maps a matrix of rows to a number (HSII's score, a product of stage
    rates, is no mean over units, so neither
    [`paired_bootstrap_delta`][normlab.stats.paired_bootstrap_delta] nor
    [`paired_rate_delta`][normlab.stats.paired_rate_delta] applies). Each resample draws units (or,
    with ``clusters``, whole clusters) once for both arms, so the pairing is kept, and θ is
    recomputed on each arm of the resample: Δ* = θ(treatment*) − θ(control*). Resamples where Δ* is
    undefined are left out ([`bootstrap_ci`][normlab.stats.bootstrap_ci]). NaN when there are no
    units.
    """
    _check_paired(treatment, control, "paired samples")
    first = np.asarray(treatment, dtype=np.float64)
    second = np.asarray(control, dtype=np.float64)
    if first.shape[0] == 0:
        return (math.nan, (math.nan, math.nan))
    first, second = first.reshape(first.shape[0], -1), second.reshape(second.shape[0], -1)
    width = first.shape[1]

    def delta_of(rows: NDArray[np.float64]) -> float:
        return statistic(rows[:, :width]) - statistic(rows[:, width:])

    rows = np.hstack([first, second])
    interval = bootstrap_ci(rows, delta_of, confidence, n_resamples, seed, clusters)
    return delta_of(rows), interval


def _kappas(resamples: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cohen's κ of every resample at once (B × n × 2 → B), NaN where p_e = 1."""
    first, second = resamples[:, :, 0], resamples[:, :, 1]
    observed = (first == second).mean(axis=1)
    share_a, share_b = first.mean(axis=1), second.mean(axis=1)
    expected = share_a * share_b + (1 - share_a) * (1 - share_b)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappas = (observed - expected) / (1 - expected)
    return np.where(expected < 1, kappas, np.nan)


def _kappa(rows: NDArray[np.float64]) -> float:
    """Cohen's κ of one matrix of rows (first rater's label, second's) as 0/1."""
    return float(_kappas(rows[np.newaxis])[0])


def kappa_ci(
    first: Sequence[bool],
    second: Sequence[bool],
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    clusters: Sequence[str] | None = None,
) -> tuple[float, FloatInterval]:
    """Cohen's κ of two raters' binary labels with a percentile bootstrap over the items.

    κ = (p_o − p_e) / (1 − p_e), p_e = p_a·p_b + (1 − p_a)(1 − p_b) (the value of
    [`normlab.stats.cohen_kappa`][normlab.stats.cohen_kappa]); items are resampled whole, both
    raters' labels together, or with ``clusters`` (the scenario a trial belongs to) whole clusters,
    since two judges' verdicts on one scenario's trials are not independent items. Resamples with
    p_e = 1 (one label throughout) have no κ and are left out; NaN when κ itself is undefined.
    """
    _check_paired(first, second, "rater labels")
    rows = np.array([[a, b] for a, b in zip(first, second, strict=True)], dtype=np.float64)
    rows = rows.reshape(-1, 2)
    if rows.shape[0] == 0:
        return (math.nan, (math.nan, math.nan))
    kappa = _kappa(rows)
    if math.isnan(kappa):
        return (math.nan, (math.nan, math.nan))
    return kappa, bootstrap_ci(rows, _kappa, confidence, n_resamples, seed, clusters)


def _rank_correlation(name: str, x: Values, y: Values) -> float:
    """SciPy's rank correlation ``name`` (``kendalltau``, ``spearmanr``) of x and y; ``nan``
    with fewer than two pairs or a constant variable (SciPy's warning for it silenced)."""
    _check_paired(x, y, "x and y")
    if len(x) < 2:
        return math.nan
    import scipy.stats  # see _spearman_rows

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", scipy.stats.ConstantInputWarning)
        result = getattr(scipy.stats, name)(
            np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        )
    return float(result.statistic)


def kendall_tau(x: Values, y: Values) -> float:
    """Kendall's τ-b between two scorings of the same items (two judges' values of the same
    subjects): (concordant − discordant) pairs over √((n₀ − n₁)(n₀ − n₂)), ties corrected
    (``scipy.stats.kendalltau``). ``nan`` with fewer than two items or a constant scoring."""
    return _rank_correlation("kendalltau", x, y)


def _spearman_rows(x: NDArray[np.float64], y: NDArray[np.float64]) -> NDArray[np.float64]:
    """Spearman's ρ of each row pair of ``x`` and ``y`` (B × n → B): the Pearson correlation
    of the rows' average ranks, NaN for a row with a constant variable.

    SciPy is imported here, not at the top: the scorers import this module when Inspect
    loads a task, and ``scipy.stats`` costs over half a second to import.
    """
    from scipy.stats import ConstantInputWarning, pearsonr, rankdata

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstantInputWarning)
        result = pearsonr(rankdata(x, axis=1), rankdata(y, axis=1), axis=1)
    return np.asarray(result.statistic, dtype=np.float64).reshape(-1)


def spearman_rho(x: Values, y: Values) -> float:
    """Spearman's ρ: the Pearson correlation of the average ranks of x and y
    (``scipy.stats.spearmanr``).

    ``nan`` when fewer than two pairs or when either variable is constant.
    """
    return _rank_correlation("spearmanr", x, y)


def spearman_ci(
    x: Values,
    y: Values,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> tuple[float, FloatInterval]:
    """Spearman's ρ(x, y) with a percentile bootstrap interval over (x, y) pairs.

    Resamples whose ρ is undefined (a constant variable) are dropped from the
    interval; if all are undefined the interval is ``(nan, nan)``.
    """
    rho = spearman_rho(x, y)
    if len(x) < 2:
        return rho, (math.nan, math.nan)
    z_quantile(confidence)
    xs = np.asarray(x, dtype=np.float64)
    ys = np.asarray(y, dtype=np.float64)
    indexes = resample_indexes(seed, xs.size, n_resamples)
    return rho, percentile_interval(_spearman_rows(xs[indexes], ys[indexes]), confidence)


def finite_or_none(value: float) -> float | None:
    """``None`` for NaN: JSON results say "undefined" with null, never with NaN."""
    return None if math.isnan(value) else value


def proportion(successes: int, n: int) -> float:
    """k/n as a fraction, ``nan`` when n = 0 (so an empty cell never reads as 0%)."""
    return successes / n if n else math.nan
