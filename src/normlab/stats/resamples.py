"""The bootstrap's resamples: which units each resample holds, drawn one way for every interval
in ``normlab.stats``, so that one seed gives one set of resamples whichever statistic is
computed on them (paired estimates of several inputs, a variant's and the paper's, hold the
same units on resample b).

A cluster resample holds whole clusters, so resamples differ in size and a statistic is
computed once per resample. For the statistics that are ratios of sums over units (a mean, a
rate over the units where it is defined), ``cluster_column_means`` computes all B at once from
how many times each cluster was drawn: the same numbers, in one matrix product instead of B
Python calls (HSII's six intervals per table row took most of its analysis's time).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

DEFAULT_RESAMPLES = 10_000
"""Bootstrap resamples per interval: enough that a 95% bound moves less than its last shown
digit between seeds."""
DEFAULT_SEED = 20_260_615
"""The bootstrap's seed: fixed, so the same data gives the same interval in every report."""


def resample_indexes(seed: int, n_units: int, n_resamples: int) -> NDArray[np.int64]:
    """B × n unit indexes drawn with replacement: one row per resample.

    Every bootstrap here draws its rows this one way, so one seed gives one set of
    resamples whichever statistic is computed on them.
    """
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_units, size=(n_resamples, n_units))


def _cluster_of_units(clusters: Sequence[str]) -> tuple[list[NDArray[np.int64]], NDArray[np.int64]]:
    """The clusters' units in order of first appearance, and each unit's cluster's position."""
    members: dict[str, list[int]] = {}
    for index, label in enumerate(clusters):
        members.setdefault(label, []).append(index)
    position = {label: i for i, label in enumerate(members)}
    groups = [np.asarray(group, dtype=np.int64) for group in members.values()]
    return groups, np.asarray([position[label] for label in clusters], dtype=np.int64)


def cluster_resamples(
    clusters: Sequence[str], n_resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED
) -> list[NDArray[np.int64]]:
    """The units of each cluster-bootstrap resample, as
    [`bootstrap_ci`][normlab.stats.bootstrap_ci] draws them: the clusters (in order of first
    appearance) drawn with replacement, each with all its units. Every statistic computed on
    one seed's resamples is computed on the same units."""
    groups, _ = _cluster_of_units(clusters)
    picks = resample_indexes(seed, len(groups), n_resamples)
    return [np.concatenate([groups[i] for i in row]) for row in picks]


def cluster_column_means(
    rows: NDArray[np.float64],
    clusters: Sequence[str],
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> NDArray[np.float64]:
    """Each column's mean over the units where it is defined (not NaN), on every resample of
    [`cluster_resamples`][normlab.stats.cluster_resamples] (B × columns; NaN where a resample
    holds no defined unit of a column).

    Equal to ``np.nanmean(rows[units], axis=0)`` on each resample's units: the resample holds
    cluster c ``w_bc`` times, so its sum is Σ_c w_bc · (c's sum) and its count Σ_c w_bc ·
    (c's count). Sums of whole numbers (k/n rates, tie weights of ½) are exact in any order,
    so the two agree to the bit there."""
    if rows.ndim != 2 or rows.shape[0] != len(clusters):
        raise ValueError(f"{len(clusters)} cluster labels for rows of shape {rows.shape}")
    groups, unit_cluster = _cluster_of_units(clusters)
    defined = ~np.isnan(rows)
    sums = np.zeros((len(groups), rows.shape[1]))
    counts = np.zeros((len(groups), rows.shape[1]))
    np.add.at(sums, unit_cluster, np.where(defined, rows, 0.0))
    np.add.at(counts, unit_cluster, defined.astype(np.float64))
    picks = resample_indexes(seed, len(groups), n_resamples)
    drawn = np.zeros((n_resamples, len(groups)))
    np.add.at(drawn, (np.arange(n_resamples)[:, None], picks), 1.0)
    totals, defined_units = drawn @ sums, drawn @ counts
    with np.errstate(divide="ignore", invalid="ignore"):
        means = totals / defined_units
    return np.where(defined_units > 0, means, np.nan)
