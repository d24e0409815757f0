"""HSII run by normlab: the benchmark's read side, a run from start to report, the demo.

The command line (``cli.py``) and the web app call these; they import Inspect and the
report's matplotlib, so the command line imports this module only when a command runs.
"""

from __future__ import annotations

from pathlib import Path

from normlab.commands import Benchmark, bind_roles, finish_run, print_table
from normlab.hsii.analysis import HsiiAnalysis, HsiiRun, analyze, load_run
from normlab.hsii.defaults import DEMO_EPSILON, DEMO_LIMIT, EPSILON, ROLES
from normlab.hsii.report import table_one, table_two, write_report
from normlab.hsii.task import hsii
from normlab.models import DEFAULT_MODEL, RoleSettings


def show(run: HsiiRun, analysis: HsiiAnalysis) -> None:
    print_table(table_one(analysis))
    if analysis.cot:
        print_table(table_two(analysis))


BENCHMARK = Benchmark(
    name="hsii", unit="case", load=load_run, analyze=analyze, show=show, write_report=write_report
)


def run_hsii(
    model: str,
    roles: dict[str, str],
    *,
    cases: Path | None = None,
    case_ids: list[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    epsilon: int = EPSILON,
    tie_weight: float = 0.0,
    settings: RoleSettings | None = None,
    log_dir: str | Path | None = None,
    report_dir: Path | None = None,
    as_json: bool = False,
    max_connections: int | None = None,
    shard: str | None = None,
) -> HsiiAnalysis:
    """Run (or resume) HSII, print Table 1 and write the report."""
    args = {
        "cases": str(cases) if cases else None,
        "case_ids": case_ids,
        "limit": limit,
        "seed": seed,
        "epsilon": epsilon,
        "tie_weight": tie_weight,
        **(settings or RoleSettings()).task_args(),
    }
    return finish_run(
        BENCHMARK, hsii, args, model, roles, log_dir, report_dir, as_json, max_connections,
        shard,
    )  # fmt: skip


def run_demo(out: Path, limit: int = DEMO_LIMIT, epsilon: int = DEMO_EPSILON) -> Path:
    """HSII on the embedded model: all four stages on a few cases with a short long run."""
    folder = out / "hsii"
    run_hsii(
        DEFAULT_MODEL,
        bind_roles(ROLES, None, None),
        limit=limit,
        epsilon=epsilon,
        log_dir=folder,
        report_dir=folder,
    )
    return folder / "report.html"
