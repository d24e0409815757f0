"""Studies: systems × subjects × roles in one file, planned (calls, cost, power) before a paid
call, run cell by cell through each system's own run, and reported as one ranked comparison."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.study.report import REPORT_JSON, StudyReport, read_report, report_study
    from normlab.study.schema import Study, load_study
    from normlab.study.sequential.report import SequentialReport, sequential_blocks
    from normlab.study.tables import Block, report_blocks
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "REPORT_JSON",
    "Block",
    "SequentialReport",
    "Study",
    "StudyReport",
    "load_study",
    "read_report",
    "report_blocks",
    "report_study",
    "sequential_blocks",
]
