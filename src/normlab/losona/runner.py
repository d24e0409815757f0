"""LoSoNA run by normlab: the benchmark's read side, a run from start to report, the demo.

The command line (``cli.py``) and the web app call these; they import Inspect and the
report's matplotlib, so the command line imports this module only when a command runs.
"""

from __future__ import annotations

from pathlib import Path

from normlab.commands import Benchmark, finish_run, note, print_table
from normlab.losona.analysis import LosonaAnalysis, LosonaRun, analyze, load_run
from normlab.losona.report import (
    agent_inference_table,
    agent_table,
    has_agent_pairs,
    has_headline_pairs,
    headline_table,
    paired_table,
    write_report,
)
from normlab.losona.task import DEFAULT_EPOCHS, losona
from normlab.models import DEFAULT_MODEL, RoleSettings
from normlab.report import embedded_banner


def show(run: LosonaRun, analysis: LosonaAnalysis) -> None:
    print_table(headline_table(analysis))
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
    name="losona",
    unit="trial",
    load=load_run,
    analyze=analyze,
    show=show,
    write_report=write_report,
)


def run_losona(
    model: str,
    roles: dict[str, str],
    *,
    conditions: list[str] | None = None,
    scenario_ids: list[str] | None = None,
    limit: int | None = None,
    epochs: int = DEFAULT_EPOCHS,
    data: Path | None = None,
    temperature: str = "paper",
    judge_addenda: str = "default",
    settings: RoleSettings | None = None,
    log_dir: str | Path | None = None,
    report_dir: Path | None = None,
    as_json: bool = False,
    agent: str = "base",
    max_connections: int | None = None,
    shard: str | None = None,
) -> LosonaAnalysis:
    """Run (or resume) LoSoNA, print the analysis and write the report."""
    args = {
        "scenarios": str(data) if data else None,
        "conditions": conditions,
        "scenario_ids": scenario_ids,
        "limit_scenarios": limit,
        "epochs": epochs,
        "temperature": temperature,
        "judge_addenda": judge_addenda,
        "agent": agent,
        **(settings or RoleSettings()).task_args(),
    }
    return finish_run(
        BENCHMARK, losona, args, model, roles, log_dir, report_dir, as_json, max_connections,
        shard,
    )  # fmt: skip


DEMO_SCENARIO_IDS = [
    "gift_pool_or_bill_split__no_apology_culture_norm__demos__leaving_present",
    "advice_request__banned_epistemic_hedging_norm__demos__orders_db_migration",
]
DEMO_CONDITIONS = ["naive", "norm_informed"]


def run_demo(out: Path) -> Path:
    """LoSoNA on the embedded model: two scenarios, both conditions, one trial each."""
    folder = out / "losona"
    run_losona(
        DEFAULT_MODEL,
        {"judge": DEFAULT_MODEL},
        conditions=DEMO_CONDITIONS,
        scenario_ids=DEMO_SCENARIO_IDS,
        epochs=1,
        log_dir=folder,
        report_dir=folder,
    )
    return folder / "report.html"
