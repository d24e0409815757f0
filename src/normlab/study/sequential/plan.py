"""``study plan --until-halfwidth H``: each batched cell's expected saving,
its stopping rule simulated at the plan's rates (``normlab.study.sequential.sim``) over the
units its bank's order holds (``normlab.study.sequential``)."""

from __future__ import annotations

from normlab.study.plan import CellPlan
from normlab.study.schema import Study
from normlab.study.sequential.looks import Order, batched, build_order, sizes
from normlab.study.sequential.sim import ExpectedSaving, expected_saving
from normlab.study.systems import cells as study_cells


def plan_savings(study: Study, cells: list[CellPlan], halfwidth: float, batch: int) -> None:
    """Each cell's expected saving, where its system runs in batches, set on its plan
    (``sequential``), at the rates its power was planned at."""
    orders: dict[str, Order] = {}
    for cell, planned in zip(study_cells(study), cells, strict=True):
        power = planned.power
        described = batched(cell.system)
        if described is None or power is None:
            continue
        if cell.system not in orders:
            orders[cell.system] = build_order(cell, study.seed or 0)
        order = orders[cell.system]
        units = sizes(order)
        assumed = described.assumed.model_validate(power.assumed)
        share = expected_saving(described, units, order.bound, halfwidth, batch, assumed)
        planned.sequential = ExpectedSaving(
            halfwidth=halfwidth,
            batch=batch,
            units=len(units),
            expected_units_run=round(len(units) * (1 - share), 1),
            share_saved=round(share, 3),
            calls_saved=round(planned.calls * share, 1),
            cost_saved=None if planned.cost is None else round(planned.cost * share, 4),
        )
