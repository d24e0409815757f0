"""Sequential study runs (``study run --until-halfwidth`` / ``--until-decided``): each cell in
batches of units, in a seeded order fixed up front, stopped when its headline's confidence
sequence is narrow enough or its pair is told apart; the whole study stopped at a budget.

The rooms: ``looks`` (the rule, the order of units, a cell's state, its sequences), ``run``
(the batches and the looks after each), ``sim`` (simulated studies, for a plan's expected
saving and ``benchmarks.sequential_coverage``), ``plan`` (``study plan --until-halfwidth``)
and ``report`` (what a report shows of it). What a unit is and how it is drawn is each
system's own (``normlab.runs.statistics``).
"""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.study.sequential.looks import (
        ALPHA,
        Batch,
        CellState,
        Order,
        Rule,
        RuleRecord,
        Sequence,
        Unit,
        batched,
        build_order,
        excludes_zero,
        measure,
        order_for,
        paired_sequence,
        read_state,
        sequence,
        sizes,
        write_state,
    )
    from normlab.study.sequential.plan import plan_savings
    from normlab.study.sequential.report import SequentialReport, sequential_blocks, summarize
    from normlab.study.sequential.run import (
        EVERY_UNIT,
        Look,
        batched_result,
        look,
        run_sequential,
        sequential_cells,
    )
    from normlab.study.sequential.sim import (
        ExpectedSaving,
        expected_saving,
        sequences,
        units_at_stop,
    )
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "ALPHA",
    "EVERY_UNIT",
    "Batch",
    "CellState",
    "ExpectedSaving",
    "Look",
    "Order",
    "Rule",
    "RuleRecord",
    "Sequence",
    "SequentialReport",
    "Unit",
    "batched",
    "batched_result",
    "build_order",
    "excludes_zero",
    "expected_saving",
    "look",
    "measure",
    "order_for",
    "paired_sequence",
    "plan_savings",
    "read_state",
    "run_sequential",
    "sequence",
    "sequences",
    "sequential_blocks",
    "sequential_cells",
    "sizes",
    "summarize",
    "units_at_stop",
    "write_state",
]
