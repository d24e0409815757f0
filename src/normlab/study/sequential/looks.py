"""Sequential study runs: each cell runs in batches of units, in a seeded random order fixed up
front, and stops as soon as its headline's confidence sequence is narrow enough (or, with
``--until-decided``, as soon as its pair of subjects is told apart); the whole study stops at a
budget. The sequence ([`confidence_sequence`][normlab.stats.confidence_sequence]) is valid at
every stopping time, so stopping on what it shows keeps its 95%, which a fixed-n interval
looked at after every batch does not (``python -m benchmarks.sequential_coverage``).

The units are what the headline's interval treats as independent, and the headline a pooled
ratio over them: each system says what its units are, what a read cell's units measured and
how much a unit can weigh (its parts' ``statistics``,
[`HeadlineStats`][normlab.runs.statistics.HeadlineStats]). A system with none runs its cells
whole (a simulation whose run is hours: its sequence over two or three runs would never stop)
and is reported as such.

Where each thing lives: the order in ``OUT/SYSTEM/order.json`` (written once; a rerun and an
extension read it), each cell's batches in ``OUT/SYSTEM/SUBJECT/units-FROM-TO`` (an Inspect
eval set over only those units' samples, so an interrupted batch resumes in its own folder and
no finished sample is ever run again), and what the cell did in
``OUT/SYSTEM/SUBJECT/sequential.json``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Never

import numpy as np
from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.runs.statistics import HeadlineStats, Measured
from normlab.stats import Interval, confidence_sequence
from normlab.study.location import read_text, write_text
from normlab.study.systems import SYSTEMS, Cell

PROPORTION_HALFWIDTH = 0.5
"""The widest half-width an interval on [0, 1] can have."""
ORDER_FILE = "order.json"
STATE_FILE = "sequential.json"
ALPHA = 0.05

REASONS = {
    "halfwidth": "half-width reached",
    "decided": "decided",
    "max-cost": "max-cost",
    "all": "all units",
    "running": "not stopped yet",
}


@dataclass(frozen=True)
class Rule:
    """When cells stop: ``halfwidth`` on the headline's own scale; ``decided``: a pair of
    subjects once its paired difference's sequence excludes 0; ``max_cost``: US dollars for
    the whole study; ``batch``: units per batch."""

    halfwidth: float
    decided: bool = False
    max_cost: float | None = None
    batch: int = 10

    def check(self, systems: Iterable[str] = ()) -> Rule:
        """The rule, refused on one line where it cannot stop a cell as asked: a half-width
        that is no finite positive number, or one that a ``systems``' proportion headline
        (on [0, 1]) meets at its first look, since
        every interval in [0, 1] is at most 0.5 wide each side (``inf`` or ``2`` stopped each
        cell after one batch, as if a rule had been met)."""
        if not (self.halfwidth > 0 and math.isfinite(self.halfwidth)):
            raise InputError(
                "--until-halfwidth", f"must be a finite number above 0, got {self.halfwidth}"
            )
        for system in dict.fromkeys(systems):
            found = batched(system)
            if found is not None and found.proportion and self.halfwidth > PROPORTION_HALFWIDTH:
                raise InputError(
                    "--until-halfwidth",
                    f"{system}'s headline is a proportion: a half-width above "
                    f"{PROPORTION_HALFWIDTH} is met by any interval, got {self.halfwidth}",
                )
        if self.batch < 1:
            raise InputError("--batch", f"at least 1 unit, got {self.batch}")
        if self.max_cost is not None and not self.max_cost > 0:
            raise InputError("--max-cost", f"US dollars above 0, got {self.max_cost}")
        return self


class Unit(BaseModel):
    id: str
    samples: list[str]
    bound: float
    """The most its denominator can be (1 for a mean of 0/1 units)."""


class Order(BaseModel):
    """A system's units in the seeded random order every cell of it runs them in."""

    system: str
    seed: int
    units: list[Unit]

    @property
    def bound(self) -> float:
        return max((unit.bound for unit in self.units), default=1.0)


class Batch(BaseModel):
    start: int
    end: int
    done: bool = False

    @property
    def folder(self) -> str:
        return f"units-{self.start + 1:04d}-{self.end:04d}"


class RuleRecord(BaseModel):
    """A ``Rule`` as a cell's state records it (every field optional: a state written before
    a field was recorded still reads)."""

    halfwidth: float | None = None
    decided: bool = False
    max_cost: float | None = None
    batch: int | None = None


class CellState(BaseModel):
    """A cell's batches (the units run are those of its finished batches: a prefix of the
    order) and why it stopped."""

    batches: list[Batch] = []
    reason: str = "running"
    rule: RuleRecord = RuleRecord()
    """The rule of the last run (``Rule``'s fields), for the report."""

    @property
    def units_run(self) -> int:
        return max((b.end for b in self.batches if b.done), default=0)


# --- the units of a system ------------------------------------------------------------------


def batched(system: str) -> HeadlineStats[Never, Never] | None:
    """How ``system``'s cells run in batches (its parts' ``statistics``); None where they run
    whole."""
    return SYSTEMS[system].parts.statistics


def _units(system: str) -> HeadlineStats[Never, Never]:
    found = batched(system)
    if found is None:
        raise InputError("--until-halfwidth", f"{system}'s cells run whole, not in batches")
    return found


def build_order(cell: Cell, seed: int) -> Order:
    """The cell's task built as its run builds it, its samples grouped into units, the units
    shuffled by ``seed`` (sorted first, so the order depends on the seed and the bank alone)."""
    task = SYSTEMS[cell.system].task()(**cell.options)
    described = _units(cell.system)
    grouped: dict[str, Unit] = {}
    for sample in task.dataset:
        key = described.unit_of(sample)
        unit = grouped.setdefault(key, Unit(id=key, samples=[], bound=0.0))
        unit.samples.append(str(sample.id))
        unit.bound += described.bound(sample, task)
    units = [grouped[name] for name in sorted(grouped)]
    for unit in units:
        unit.bound = unit.bound or 1.0
    random.Random(f"{seed}:{cell.system}").shuffle(units)
    return Order(system=cell.system, seed=seed, units=units)


def sizes(order: Order) -> list[float]:
    """The order's units as a simulated study sizes them (the system's ``size``: a unit's
    samples, or one value)."""
    described = _units(order.system)
    return [described.size(len(unit.samples)) for unit in order.units]


def order_for(cell: Cell, seed: int) -> Order:
    """The system's order as written in ``OUT/SYSTEM/order.json``, else built and written
    there; one whose units are not the bank's now is refused (a resumed or extended study must
    run the order it started)."""
    folder = _system_folder(cell)
    built = build_order(cell, seed)
    text = read_text(folder, ORDER_FILE)
    if text is None:
        write_text(folder, ORDER_FILE, built.model_dump_json(indent=1))
        return built
    kept = Order.model_validate_json(text)
    if sorted(u.id for u in kept.units) != sorted(u.id for u in built.units):
        raise InputError(
            f"{folder}/{ORDER_FILE}",
            f"its {cell.system} units are not those the study's options give now: a "
            "sequential study extends only the order it started (choose another out)",
        )
    return kept


def _system_folder(cell: Cell) -> Path | str:
    """``OUT/SYSTEM``, the folder above the cell's."""
    folder = cell.folder
    return folder.parent if isinstance(folder, Path) else folder.rstrip("/").rsplit("/", 1)[0]


def read_state(cell: Cell) -> CellState | None:
    text = read_text(cell.folder, STATE_FILE)
    return None if text is None else CellState.model_validate_json(text)


def write_state(cell: Cell, state: CellState) -> None:
    write_text(cell.folder, STATE_FILE, state.model_dump_json(indent=1))


# --- a cell's units, measured ------------------------------------------------------------------


def measure(system: str, run: object, analysis: object) -> Measured:
    """The cell's units as its headline pools them (its system's ``statistics``)."""
    return SYSTEMS[system].parts.measured_of(run, analysis) or Measured({})


# --- the sequences ---------------------------------------------------------------------------


class Sequence(BaseModel):
    """A headline's confidence sequence after ``units`` units, on the headline's scale."""

    value: float | None
    ci: Interval
    units: int

    @property
    def halfwidth(self) -> float | None:
        lo, hi = self.ci
        return None if lo is None or hi is None else (hi - lo) / 2


def _ran(order: Order, measured: Measured, count: int) -> list[Unit]:
    return [unit for unit in order.units[:count] if unit.id in measured.values]


def sequence(order: Order, measured: Measured, count: int, alpha: float = ALPHA) -> Sequence:
    """The cell's sequence over its first ``count`` units of the order (a unit whose samples
    all failed has no value and is left out)."""
    units = _ran(order, measured, count)
    if not units:
        return Sequence(value=None, ci=(None, None), units=0)
    a = np.array([measured.values[u.id][0] for u in units])
    b = np.array([measured.values[u.id][1] for u in units])
    lower, upper = confidence_sequence(a, alpha, denominators=b, bound=order.bound)
    scale = measured.scale
    value = float(a.sum() / b.sum()) * scale if b.sum() > 0 else None
    return Sequence(
        value=value, ci=(float(lower[-1]) * scale, float(upper[-1]) * scale), units=len(units)
    )


def paired_sequence(
    order: Order, first: Measured, second: Measured, count: int, alpha: float
) -> Sequence:
    """first − second over the first ``count`` units both ran. Where the two share each
    unit's denominator (a 0/1 unit's 1, a unit's fixed samples), the difference is itself a
    pooled ratio: (A₁ − A₂ + B)/2 lies in [0, B] with ratio (δ/scale + 1)/2. Otherwise (each
    subject draws its own events) the two sequences at α/2 each, their difference's ends the far
    ends of the two (valid by the union bound, not paired)."""
    units = [u for u in _ran(order, first, count) if u.id in second.values]
    if not units:
        return Sequence(value=None, ci=(None, None), units=0)
    scale = first.scale
    b1 = np.array([first.values[u.id][1] for u in units])
    b2 = np.array([second.values[u.id][1] for u in units])
    a1 = np.array([first.values[u.id][0] for u in units])
    a2 = np.array([second.values[u.id][0] for u in units])
    if np.array_equal(b1, b2):
        lower, upper = confidence_sequence(
            (a1 - a2 + b1) / 2, alpha, denominators=b1, bound=order.bound
        )
        value = float((a1.sum() - a2.sum()) / b1.sum()) * scale if b1.sum() > 0 else None
        return Sequence(
            value=value,
            ci=((2 * float(lower[-1]) - 1) * scale, (2 * float(upper[-1]) - 1) * scale),
            units=len(units),
        )
    one = sequence(order, first, count, alpha / 2)
    two = sequence(order, second, count, alpha / 2)
    if one.value is None or two.value is None:
        return Sequence(value=None, ci=(None, None), units=len(units))
    (lo1, hi1), (lo2, hi2) = one.ci, two.ci
    assert lo1 is not None and hi1 is not None and lo2 is not None and hi2 is not None
    return Sequence(value=one.value - two.value, ci=(lo1 - hi2, hi1 - lo2), units=len(units))


def excludes_zero(found: Sequence) -> bool:
    lo, hi = found.ci
    return lo is not None and hi is not None and (lo > 0 or hi < 0)
