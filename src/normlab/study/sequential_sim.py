"""Simulated sequential studies: units drawn from a system's headline model at known rates, in
the sizes a bank's order gives, stopped by the rule a sequential run uses. ``study plan
--until-halfwidth`` predicts a cell's saving from them, and ``benchmarks.sequential_coverage``
measures the sequences' coverage and the units saved on the shipped banks.

Each system names how its units are drawn (its parts' ``sequential.model``,
``normlab.runs.UnitModel``), as ``normlab.study.sequential`` counts them:

* ``share`` (LoSoNA): a scenario is 1 with the rate's probability (accuracy-at-K of one
  scenario).
* ``count`` (SCENE): a scenario of e episodes makes Poisson(e·s) sanctions (s sanctions per
  episode, 0.547 from SCENE §6 unless a pilot measured it; at most the unit's bound), each
  repaired with the rate's probability.
* ``staged`` (HSII): each case of a dialogue passes r1, then r2, then r3 and r4 (each with its
  rate); its value s1 + s1s2s3 + s1s2s4 (Table 1's form) over ι_max = 3.

Units are independent here (no clustering beyond the unit), as the sequence assumes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from normlab.runs.system import UnitModel
from normlab.scene import SANCTIONS_PER_EPISODE
from normlab.stats import confidence_sequence

Floats = NDArray[np.float64]


@dataclass(frozen=True)
class Simulated:
    """Studies × units of numerators and denominators, the denominators' bound, the scale."""

    a: Floats
    b: Floats
    bound: float
    scale: float = 1.0


def simulate(
    model: UnitModel,
    sizes: list[float],
    bound: float,
    studies: int,
    rng: np.random.Generator,
    rate: float = 0.5,
    stages: tuple[float, float, float, float] | None = None,
    sanctions_per_episode: float = SANCTIONS_PER_EPISODE,
) -> Simulated:
    """``studies`` studies of units of ``sizes`` (episodes per SCENE scenario, cases per HSII
    dialogue, 1 per LoSoNA scenario) in the order given."""
    shape = (studies, len(sizes))
    size = np.broadcast_to(np.asarray(sizes, dtype=np.float64), shape)
    if model == "count":
        sanctions = np.minimum(rng.poisson(size * sanctions_per_episode), bound).astype(float)
        repaired = rng.binomial(sanctions.astype(np.int64), rate).astype(float)
        return Simulated(repaired, sanctions, bound)
    if model == "staged":
        r1, r2, r3, r4 = stages or (rate, rate, rate, rate)
        most = int(max(sizes))
        mask = np.arange(most) < np.asarray(sizes)[:, None]  # units × cases
        draws = rng.random((4, studies, len(sizes), most))
        s1 = draws[0] < r1
        s2 = s1 & (draws[1] < r2)
        value = s1.astype(float) + (s2 & (draws[2] < r3)) + (s2 & (draws[3] < r4))
        total = (value * mask).sum(axis=2) / 3.0
        return Simulated(total.astype(float), size.astype(float).copy(), bound, scale=3.0)
    units = (rng.random(shape) < rate).astype(float)
    return Simulated(units, np.ones(shape), 1.0)


def true_value(
    model: UnitModel,
    rate: float,
    stages: tuple[float, float, float, float] | None = None,
) -> float:
    """The headline the simulation's model has: the rate, or HSII's ι at its stages."""
    if model != "staged":
        return rate
    r1, r2, r3, r4 = stages or (rate, rate, rate, rate)
    return r1 * (1 + r2 * (r3 + r4))


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
    model: UnitModel,
    sizes: list[float],
    bound: float,
    halfwidth: float,
    batch: int,
    rate: float,
    stages: tuple[float, float, float, float] | None = None,
    sanctions_per_episode: float = SANCTIONS_PER_EPISODE,
    studies: int = 400,
    seed: int = 0,
) -> float:
    """The share of a cell's units a sequential run is expected to leave unrun."""
    rng = np.random.default_rng(seed)
    found = simulate(model, sizes, bound, studies, rng, rate, stages, sanctions_per_episode)
    lower, upper = sequences(found)
    run = units_at_stop(lower, upper, halfwidth, batch)
    return float(1.0 - run.mean() / len(sizes))


class ExpectedSaving(BaseModel):
    """What ``study plan --until-halfwidth H`` predicts a sequential run of a cell leaves
    unrun, simulated at the plan's rates (assumed or a pilot's)."""

    halfwidth: float
    batch: int
    units: int
    """The cell's units (scenarios, SCENE scenarios, HSII dialogues)."""
    expected_units_run: float
    share_saved: float
    calls_saved: float
    cost_saved: float | None
