"""Statistics shared by every normlab benchmark and simulation (this face; the modules:
``intervals``, ``labels``, ``power``, ``results``, ``sensitivity``, ``sequences``).

All functions are pure: same inputs (and seed) give the same outputs. Inspect
metrics, the per-benchmark analyses and the reports all call these, so a number
in a report can be traced to one formula here.

Conventions: proportions are fractions in [0, 1]; the functions return intervals
as ``(lo, hi)`` float tuples with NaN for "undefined"; the result types
([`Estimate`][normlab.stats.Estimate], [`Rate`][normlab.stats.Rate],
[`Agreement`][normlab.stats.Agreement]) carry JSON-ready [`Interval`][normlab.stats.Interval] tuples
with ``None`` instead, so a result file never holds NaN. Bootstrap intervals are percentile
intervals over the resampled unit (scenario, episode or case, never individual model calls). Every
headline number is one of these result types, so it always travels with its n and its interval.
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.stats.intervals import (
        POOLED_RATE,
        UNIT_MEAN,
        FloatInterval,
        Interval,
        Statistic,
        Values,
        bootstrap_ci,
        bootstrap_estimates,
        finite_or_none,
        kappa_ci,
        kendall_tau,
        paired_bootstrap_delta,
        paired_rate_delta,
        paired_statistic_delta,
        percentile_interval,
        pooled_rate_ci,
        proportion,
        spearman_ci,
        spearman_rho,
        wilson_interval,
    )
    from normlab.stats.labels import (
        agreement,
        cohen_kappa,
        compliance,
        consistency,
        majority,
    )
    from normlab.stats.power import (
        connor_mde,
        connor_n,
        delta_halfwidth,
        design_effect,
        discordance,
        effective_cluster_size,
        n_for_delta_halfwidth,
        n_for_halfwidth,
        n_for_t_halfwidth,
        normal_mde,
        staged_variance,
        t_halfwidth,
        wilson_halfwidth,
    )
    from normlab.stats.resamples import (
        DEFAULT_RESAMPLES,
        DEFAULT_SEED,
        cluster_column_means,
        cluster_resamples,
    )
    from normlab.stats.results import (
        Agreement,
        Band,
        Estimate,
        Rate,
        json_interval,
    )
    from normlab.stats.sensitivity import (
        headline_range,
        kendall_tau_b_rows,
        paper_differences,
        ranking_taus,
        variant_headlines,
    )
    from normlab.stats.sequences import confidence_sequence, hedged_log_capital
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "POOLED_RATE",
    "UNIT_MEAN",
    "Agreement",
    "Band",
    "Estimate",
    "FloatInterval",
    "Interval",
    "Rate",
    "Statistic",
    "Values",
    "agreement",
    "bootstrap_ci",
    "bootstrap_estimates",
    "cluster_column_means",
    "cluster_resamples",
    "cohen_kappa",
    "compliance",
    "confidence_sequence",
    "connor_mde",
    "connor_n",
    "consistency",
    "delta_halfwidth",
    "design_effect",
    "discordance",
    "effective_cluster_size",
    "finite_or_none",
    "headline_range",
    "hedged_log_capital",
    "json_interval",
    "kappa_ci",
    "kendall_tau",
    "kendall_tau_b_rows",
    "majority",
    "n_for_delta_halfwidth",
    "n_for_halfwidth",
    "n_for_t_halfwidth",
    "normal_mde",
    "paired_bootstrap_delta",
    "paired_rate_delta",
    "paired_statistic_delta",
    "paper_differences",
    "percentile_interval",
    "pooled_rate_ci",
    "proportion",
    "ranking_taus",
    "spearman_ci",
    "spearman_rho",
    "staged_variance",
    "t_halfwidth",
    "variant_headlines",
    "wilson_halfwidth",
    "wilson_interval",
]
