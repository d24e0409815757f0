"""Studies: systems × subjects × roles in one file, planned (calls, cost, power) before a paid
call, run cell by cell through each system's own run, and reported as one ranked comparison."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.study.execute import CellResult, Executor, LocalExecutor, run_study
    from normlab.study.plan import CellPlan, StudyPlan, plan_study, read_plan, write_plan
    from normlab.study.report import (
        REPORT_JSON,
        Block,
        StudyReport,
        read_report,
        report_blocks,
        report_study,
    )
    from normlab.study.schema import Study, load_study
    from normlab.study.sequential_report import SequentialReport, sequential_blocks
    from normlab.study.systems import Cell, cells
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "REPORT_JSON",
    "Block",
    "Cell",
    "CellPlan",
    "CellResult",
    "Executor",
    "LocalExecutor",
    "SequentialReport",
    "Study",
    "StudyPlan",
    "StudyReport",
    "cells",
    "load_study",
    "plan_study",
    "read_plan",
    "read_report",
    "report_blocks",
    "report_study",
    "run_study",
    "sequential_blocks",
    "write_plan",
]
