"""Simulated sequential studies: units drawn from a system's headline at known rates, in the
sizes a bank's order gives, stopped by the rule a sequential run uses. ``study plan
--until-halfwidth`` predicts a cell's saving from them, and ``benchmarks.sequential_coverage``
measures the sequences' coverage and the units saved on the shipped banks.

Each system draws its own units (its parts' ``statistics``,
[`HeadlineStats.simulate`][normlab.runs.statistics.HeadlineStats.simulate]), as
``normlab.study.sequential`` counts them. Units are independent here (no clustering beyond the
unit), as the sequence assumes.
"""

from __future__ import annotations

from typing import Never

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from normlab.runs.statistics import HeadlineStats, Simulated
from normlab.stats import confidence_sequence
from normlab.stats.planning import Assumed

Floats = NDArray[np.float64]


def sequences(found: Simulated, alpha: float = 0.05) -> tuple[Floats, Floats]:
    """Each study's sequence after each unit, on the headline's scale."""
    lower, upper = confidence_sequence(found.a, alpha, denominators=found.b, bound=found.bound)
    return lower * found.scale, upper * found.scale


def units_at_stop(lower: Floats, upper: Floats, halfwidth: float, batch: int) -> NDArray[np.int64]:
    """Per study, the units run when a sequential run looking after every ``batch`` units
    stops at a half-width ≤ ``halfwidth`` (all units when it never does)."""
    studies, total = lower.shape
    looks = [min(t, total) for t in range(batch, total + batch, batch)]
    stopped = np.full(studies, total, dtype=np.int64)
    open_ = np.ones(studies, dtype=bool)
    for t in looks:
        narrow = (upper[:, t - 1] - lower[:, t - 1]) / 2 <= halfwidth
        now = open_ & narrow
        stopped[now] = t
        open_ &= ~narrow
    return stopped


def expected_saving(
    statistics: HeadlineStats[Never, Never],
    sizes: list[float],
    bound: float,
    halfwidth: float,
    batch: int,
    assumed: Assumed,
    studies: int = 400,
    seed: int = 0,
) -> float:
    """The share of a cell's units a sequential run is expected to leave unrun, its units
    drawn at ``assumed`` by the system's own simulation."""
    rng = np.random.default_rng(seed)
    found = statistics.simulate(rng, sizes, assumed, bound, studies)
    lower, upper = sequences(found)
    run = units_at_stop(lower, upper, halfwidth, batch)
    return float(1.0 - run.mean() / len(sizes))


class ExpectedSaving(BaseModel):
    """What ``study plan --until-halfwidth H`` predicts a sequential run of a cell leaves
    unrun, simulated at the plan's rates (assumed or a pilot's)."""

    halfwidth: float
    batch: int
    units: int
    """The cell's units (its system's ``statistics.look``)."""
    expected_units_run: float
    share_saved: float
    calls_saved: float
    cost_saved: float | None
