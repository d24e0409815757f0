"""``study run --until-halfwidth H``: the batches, the looks after each, and the stops.

Every cell of a system runs the system's order (``normlab.study.sequential``) from its start, a
batch of units at a time, each batch an eval set of its own over only its units' samples
(``OUT/SYSTEM/SUBJECT/units-FROM-TO``). A batch is written into the cell's state before it runs
and marked done after, so a stopped study resumes the batch it was in (Inspect's eval-set
resume, in the batch's folder) and never starts a unit twice; a rerun with a tighter H, or
with none (``study run`` alone runs every unit left), extends each cell from the first unit
it has not run. After every batch each cell is looked at: its sequence, its pairs', and the
dollars the whole study has spent.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from itertools import combinations

from normlab.core.errors import InputError
from normlab.core.storage import log_location, within
from normlab.runs.statistics import Measured
from normlab.study.location import local_logs, read_text
from normlab.study.schema import Price, Study
from normlab.study.sequential.looks import (
    ALPHA,
    Batch,
    CellState,
    Order,
    Rule,
    RuleRecord,
    excludes_zero,
    measure,
    order_for,
    paired_sequence,
    read_state,
    sequence,
    write_state,
)
from normlab.study.systems import SYSTEMS, Cell

DONE_FILE = "cell.json"
"""``normlab.study.execute.DONE_FILE``: a cell that ran whole (execute imports this module)."""
EVERY_UNIT = Rule(halfwidth=0.0)
"""The rule of a plain ``study run`` on a sequential study: every unit left, no stop."""


@dataclasses.dataclass
class Look:
    """A cell as its logs stand: what its units measured, its calls and its dollars."""

    measured: Measured
    calls: int
    samples: int
    cost: float | None
    run: object = None
    """What the system's loader read, None before any log (``Look`` holds any system's)."""
    analysis: object = None


def look(study: Study, cell: Cell) -> Look:
    """The cell's logs read and analyzed by its system, its units measured, its usage priced
    as the plan prices it (``normlab.study.plan``)."""
    from normlab.stats.planning import Assumed
    from normlab.study.plan import Counted, plan_cell
    from normlab.study.power import Sizing

    system = SYSTEMS[cell.system]
    read = system.read(cell.folder)
    if read is None:
        return Look(Measured({}), 0, 0, 0.0)
    run, analysis = read
    priced = plan_cell(cell, Counted(system.usage(analysis)), study, 0.0, Assumed(), Sizing(0.1))
    found = measure(cell.system, run, analysis)
    return Look(found, priced.calls, priced.samples, priced.cost, run, analysis)


def prepare(study: Study, every: list[Cell], rule: Rule) -> dict[str, Order]:
    """Each system's order, and each cell's state (a new one, or a stopped one reopened for
    this rule). A cell run whole before (logs outside any batch) cannot be run in batches."""
    orders: dict[str, Order] = {}
    for cell in every:
        if cell.system not in orders:
            orders[cell.system] = order_for(cell, study.seed or 0)
        state = read_state(cell)
        if state is None:
            whole = read_text(cell.folder, DONE_FILE) is not None
            if not whole and local_logs(cell.folder, "*.eval") is not None:
                raise InputError(
                    str(cell.folder),
                    f"{cell.label} was started whole, not in batches: finish it with study run "
                    "(no --until-halfwidth), or give the study another out",
                )
            state = CellState()
            if whole:
                state.reason = "all"
        elif state.reason != "all":
            state.reason = "running"
        state.rule = RuleRecord.model_validate(dataclasses.asdict(rule))
        write_state(cell, state)
    return orders


def _stop_reasons(
    rule: Rule, orders: dict[str, Order], every: list[Cell], looks: dict[str, Look]
) -> dict[str, str]:
    """Why each cell still running stops now, if it does."""
    states = {cell.label: read_state(cell) or CellState() for cell in every}
    found: dict[str, str] = {}
    for cell in every:
        state = states[cell.label]
        if state.reason != "running":
            continue
        order = orders[cell.system]
        if state.units_run >= len(order.units):
            found[cell.label] = "all"
            continue
        seq = sequence(order, looks[cell.label].measured, state.units_run)
        width = seq.halfwidth
        if rule.halfwidth > 0 and width is not None and width <= rule.halfwidth:
            found[cell.label] = "halfwidth"
    if rule.decided:
        for system in {cell.system for cell in every}:
            mine = [cell for cell in every if cell.system == system]
            pairs = list(combinations(mine, 2))
            undecided: set[str] = set()
            for first, second in pairs:
                count = min(states[first.label].units_run, states[second.label].units_run)
                found_pair = paired_sequence(
                    orders[system],
                    looks[first.label].measured,
                    looks[second.label].measured,
                    count,
                    ALPHA / len(pairs),
                )
                if not excludes_zero(found_pair):
                    undecided |= {first.label, second.label}
            for cell in mine:
                if pairs and cell.label not in undecided | set(found):
                    found[cell.label] = "decided"
    return found


def _stop(cells: Iterable[Cell], reasons: dict[str, str]) -> None:
    for cell in cells:
        if cell.label in reasons:
            state = read_state(cell) or CellState()
            state.reason = reasons[cell.label]
            write_state(cell, state)


def run_batch(
    cell: Cell, order: Order, rule: Rule, connections: int, prices: Mapping[str, Price]
) -> None:
    """The cell's next batch (the one it was in when it stopped, if any), run and marked."""
    from normlab.runs import note, stdout_to_stderr

    state = read_state(cell) or CellState()
    pending = next_batch(state, order, rule)
    if pending not in state.batches:
        state.batches.append(pending)
        write_state(cell, state)  # written before it runs: a stop resumes this very batch
    ids = tuple(s for unit in order.units[pending.start : pending.end] for s in unit.samples)
    folder = within(cell.folder, pending.folder)
    note(f"study: {cell.label} units {pending.start + 1}–{pending.end} of {len(order.units)}")
    with stdout_to_stderr():
        SYSTEMS[cell.system].run(
            dataclasses.replace(cell, folder=folder),
            connections,
            report=False,
            samples=ids,
            prices=prices,
        )
    pending.done = True
    write_state(cell, state)


def next_batch(state: CellState, order: Order, rule: Rule) -> Batch:
    """The batch the cell was in when it stopped, else its next ``rule.batch`` units."""
    pending = next((b for b in state.batches if not b.done), None)
    if pending is not None:
        return pending
    start = state.units_run
    return Batch(start=start, end=min(start + rule.batch, len(order.units)))


def _cost(looks: dict[str, Look]) -> float | None:
    costs = [found.cost for found in looks.values()]
    return None if any(c is None for c in costs) else sum(c for c in costs if c is not None)


def planned_per_unit(study: Study, every: list[Cell], orders: dict[str, Order]) -> dict[str, float]:
    """Each cell's dollars per unit as the study's plan prices it: its cost in ``OUT/plan.json``
    (``study plan``), else counted now as the plan counts it (a dry run on scripted models:
    no paid call), over the units of its order; the scripted words corrected to tokens where
    the plan gives that, since the floor would let a batch through that the real one
    overruns."""
    from normlab.runs import note
    from normlab.study.plan import plan_one, read_plan

    plan = read_plan(log_location(study.out))
    planned = {(p.system, p.subject, p.variant): p for p in (plan.cells if plan else [])}
    found: dict[str, float] = {}
    for cell in every:
        mine = planned.get((cell.system, cell.subject.name, cell.variant))
        if mine is None:
            note(f"study: {cell.label} has no plan in {study.out}; counting one for --max-cost")
            mine = plan_one(cell, study)
        cost = mine.cost if mine.cost_corrected is None else mine.cost_corrected
        if cost is None:
            raise InputError("--max-cost", f"{cell.label}: a model has no price (give prices:)")
        found[cell.label] = cost / max(1, len(orders[cell.system].units))
    return found


def batch_cost(
    cell: Cell, rule: Rule, looks: dict[str, Look], orders: dict[str, Order], per_unit: float
) -> tuple[Batch, float]:
    """The cell's next batch and what it is expected to cost: its units at the plan's price
    per unit, or at the mean of the units the cell has run where that is dearer."""
    state = read_state(cell) or CellState()
    batch = next_batch(state, orders[cell.system], rule)
    found = looks[cell.label]
    if state.units_run and found.cost is not None:
        per_unit = max(per_unit, found.cost / state.units_run)
    return batch, per_unit * (batch.end - batch.start)


def run_sequential(study: Study, every: list[Cell], rule: Rule, connections: int) -> None:
    """Batches for every running cell, round after round, until each has stopped. Under
    ``--max-cost`` a batch runs only if what the study has spent and the batch's expected
    cost stay within it, the first batch too; when no batch can, the run is refused."""
    orders = prepare(study, every, rule)
    looks = {cell.label: look(study, cell) for cell in every}
    budget = rule.max_cost
    per_unit: dict[str, float] = {}
    if budget is not None:
        if _cost(looks) is None:
            raise InputError("--max-cost", "a model of this study has no price (give prices:)")
        per_unit = planned_per_unit(study, every, orders)
    ran = False
    while True:
        _stop(every, _stop_reasons(rule, orders, every, looks))
        running = [c for c in every if (read_state(c) or CellState()).reason == "running"]
        if not running:
            return
        for cell in running:
            if budget is not None:
                spent = _cost(looks) or 0.0
                batch, cost = batch_cost(cell, rule, looks, orders, per_unit[cell.label])
                if spent + cost > budget:
                    _stop(running, {c.label: "max-cost" for c in running})
                    if ran:
                        return
                    raise InputError(
                        "--max-cost",
                        f"${budget:g} runs no batch: {cell.label}'s units {batch.start + 1}–"
                        f"{batch.end} are expected to cost ${cost:.4f}"
                        + (f" beside ${spent:.4f} spent" if spent else "")
                        + "; raise --max-cost or lower --batch",
                    )
            run_batch(cell, orders[cell.system], rule, connections, study.prices)
            ran = True
            looks[cell.label] = look(study, cell)


def sequential_cells(study: Study, every: list[Cell], rule: Rule | None) -> list[Cell]:
    """The cells a study run runs in batches: with a rule, or once any cell has started so
    (a plain rerun then runs every unit left in batches: the whole cell's eval set would run
    its finished units again), every cell of a system that has an order; CRSEC's run whole."""
    from normlab.study.sequential.looks import batched

    mine = [cell for cell in every if batched(cell.system) is not None]
    if rule is None and not any(read_state(cell) is not None for cell in mine):
        return []
    return mine


def batched_result(study: Study, cell: Cell) -> dict[str, int]:
    """What the cell's logs hold now, as a ``CellResult``'s fields."""
    found = look(study, cell)
    return {"samples": found.samples, "calls": found.calls}
