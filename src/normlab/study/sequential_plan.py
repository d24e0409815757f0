"""``study plan --until-halfwidth H``: each LoSoNA, SCENE and HSII cell's expected saving,
its stopping rule simulated at the plan's rates (``normlab.study.sequential_sim``) over the
units its bank's order holds (``normlab.study.sequential``)."""

from __future__ import annotations

from normlab.scene import SANCTIONS_PER_EPISODE
from normlab.study.plan import CellPlan
from normlab.study.schema import Study
from normlab.study.sequential import Order, batched, build_order, sizes
from normlab.study.sequential_sim import ExpectedSaving, expected_saving
from normlab.study.systems import cells as study_cells


def plan_savings(study: Study, cells: list[CellPlan], halfwidth: float, batch: int) -> None:
    """Each LoSoNA, SCENE and HSII cell's expected saving, set on its plan (``sequential``)."""
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
        share = expected_saving(
            described.model,
            units,
            order.bound,
            halfwidth,
            batch,
            power.assumed_rate,
            power.stages,
            power.sanctions_per_episode or SANCTIONS_PER_EPISODE,
        )
        planned.sequential = ExpectedSaving(
            halfwidth=halfwidth,
            batch=batch,
            units=len(units),
            expected_units_run=round(len(units) * (1 - share), 1),
            share_saved=round(share, 3),
            calls_saved=round(planned.calls * share, 1),
            cost_saved=None if planned.cost is None else round(planned.cost * share, 4),
        )
