"""HSII's benchmark (``BENCHMARK``: Table 1 on the terminal, the report), ``run_hsii`` (a
run from start to report, for the web app and ``hsii play``) and the demo; loaded by the
command line only when a command runs, since it imports Inspect and matplotlib.
"""

from __future__ import annotations

from pathlib import Path

from normlab.hsii.analysis import HsiiAnalysis, HsiiRun, analyze, load_run
from normlab.hsii.defaults import DEMO_EPSILON, DEMO_LIMIT, ROLES
from normlab.hsii.report import table_one, table_two, write_report
from normlab.hsii.task import hsii
from normlab.runs import Benchmark, TaskRun, print_table


def show(run: HsiiRun, analysis: HsiiAnalysis) -> None:
    print_table(table_one(analysis))
    if analysis.cot:
        print_table(table_two(analysis))


BENCHMARK = Benchmark(
    "hsii", "case", ROLES, HsiiRun, HsiiAnalysis, load_run, analyze, show, write_report
)
"""HSII's read side (load, analyze, show, report) for ``hsii analyze``, ``report``, the web app
and studies."""
run_hsii = TaskRun(BENCHMARK, hsii)
"""Run (or resume) HSII with [`hsii`][normlab.hsii.hsii]'s arguments, print Table 1 and
write the report."""


def run_demo(out: Path, limit: int = DEMO_LIMIT, epsilon: int = DEMO_EPSILON) -> Path:
    """HSII on the embedded model: all four stages on a few cases with a short long run."""
    return run_hsii.demo(out, limit=limit, epsilon=epsilon)
