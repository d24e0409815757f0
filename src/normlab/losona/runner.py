"""LoSoNA for normlab's commands and programs: its read side
([`BENCHMARK`][normlab.losona.BENCHMARK]), a run from task to report
([`run_losona`][normlab.losona.run_losona]), the demo. Imports Inspect and matplotlib: the command
line imports it only when a command runs.
"""

from __future__ import annotations

from pathlib import Path

from normlab.losona.analysis import LosonaRun, analyze, load_run
from normlab.losona.defaults import ROLES
from normlab.losona.report import (
    absent_table,
    agent_inference_table,
    agent_table,
    has_agent_pairs,
    has_headline_pairs,
    headline_table,
    paired_table,
    write_report,
)
from normlab.losona.results import LosonaAnalysis
from normlab.losona.task import losona
from normlab.report import embedded_banner
from normlab.runs import Benchmark, TaskRun, note, print_table


def show(run: LosonaRun, analysis: LosonaAnalysis) -> None:
    print_table(headline_table(analysis))
    absent = absent_table(analysis)
    if absent.rows:
        print_table(absent)
    if has_headline_pairs(analysis):
        print_table(paired_table(analysis))
    if has_agent_pairs(analysis):
        print_table(agent_table(analysis))
    if analysis.agents:
        print_table(agent_inference_table(analysis))
    judges = [result.judge for result in analysis.models.values()]
    banner = embedded_banner({"judge": judges})
    if banner:
        note(f"Note: {banner}")


BENCHMARK = Benchmark(
    "losona", "trial", ROLES, LosonaRun, LosonaAnalysis, load_run, analyze, show, write_report
)
"""LoSoNA's read side (load, analyze, show, report) for ``losona analyze``, ``report``, the web
app and studies."""
run_losona = TaskRun(BENCHMARK, losona)
"""Run (or resume) LoSoNA with [`losona`][normlab.losona.losona]'s arguments, print the
analysis and write the report."""

DEMO_SCENARIO_IDS = [
    "gift_pool_or_bill_split__no_apology_culture_norm__demos__leaving_present",
    "advice_request__banned_epistemic_hedging_norm__demos__orders_db_migration",
]
DEMO_CONDITIONS = ["naive", "norm_informed"]


def run_demo(out: Path) -> Path:
    """LoSoNA on the embedded model: two scenarios, both conditions, one trial each."""
    return run_losona.demo(
        out, conditions=DEMO_CONDITIONS, scenario_ids=DEMO_SCENARIO_IDS, epochs=1
    )
