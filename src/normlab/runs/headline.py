"""What a study reads of one system's cell: its headline (the number subjects are ranked by,
with what makes it that quantity: its unit, its clusters, its settings, the model the logs
measured), the headline per unit two subjects share, and one judge's per-unit verdicts.

Below the systems, which make them (each system's ``spec.py``), and below ``normlab.study``,
which compares them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from normlab.stats import Estimate, Statistic
from normlab.stats.planning import Assumed, conservative


@dataclass(frozen=True)
class Headline:
    """A cell's headline: the metric's estimate over ``n`` units of ``unit``."""

    metric: str
    estimate: Estimate
    n: int
    """The units behind the metric's interval (scenarios, sanctions, cases, runs)."""
    unit: str
    clusters: int | None = None
    """The independent clusters the interval resamples, where the units are not independent
    (SCENE's sanctions in scenarios, HSII's cases in dialogues)."""
    cluster_unit: str | None = None
    quantity: dict[str, str | int] = field(default_factory=dict)
    """What else makes the number the quantity it is (LoSoNA's K, SCENE's view, HSII's score
    form): a paper's number is set beside it only where these agree."""
    model: str | None = None
    """The subject as the cell's logs name it (``MODEL + AGENT`` for an agent)."""
    note: str | None = None
    """Why the interval is missing, where it is."""


@dataclass(frozen=True)
class UnitRows:
    """Per unit, a row a statistic reads whole (HSII: a case's four stage values, NaN where
    the case is not in a stage's denominator), each unit's cluster, and the statistic."""

    rows: dict[str, tuple[float, ...]]
    clusters: dict[str, str]
    statistic: Statistic


UnitValues = dict[str, float] | dict[str, tuple[int, int]] | UnitRows
"""Per unit id: a value averaged over units, (k, n) counts pooled over units, or rows a
statistic reads."""

Verdicts = dict[str, tuple[str, bool]]
"""Item key → (cluster, verdict): one judge's per-unit verdicts on one cell."""


def measured_share(headline: Headline) -> Assumed | None:
    """A share a pilot's cell measured, made usable for planning
    ([`conservative`][normlab.stats.planning.conservative]): over its n units, or, for a mean
    over runs, over its interval alone."""
    value = headline.estimate.value
    if value is None:
        return None
    k_of_n = (value * headline.n, headline.n) if headline.unit != "run" else None
    rate = conservative(value, k_of_n, headline.estimate.ci)
    return None if rate is None else Assumed(rate=rate)
