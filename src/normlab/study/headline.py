"""A system's headline in a study: the number subjects are ranked by, with what makes it that
quantity (its unit, its clusters, its settings, the model the logs measured). Its own module,
below ``normlab.study.systems`` and ``normlab.study.crsec_cell``, which both make one."""

from __future__ import annotations

from dataclasses import dataclass, field

from normlab.stats import Estimate


@dataclass(frozen=True)
class Headline:
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
