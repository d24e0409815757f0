"""The ``normlab`` command: run, analyze and report the benchmarks; check models.

Every command reports bad input on one line naming file, line and field and
exits 2; an incomplete run exits 1 and resumes when run again.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table as RichTable

from normlab.core.errors import NormlabError
from normlab.losona.analysis import LosonaAnalysis, analyze, load_records
from normlab.losona.report import EMBEDDED_JUDGE_BANNER, headline_table, paired_table, write_report
from normlab.losona.runner import LosonaRun, run_losona
from normlab.models import DEFAULT_MODEL, is_embedded, parse_role_assignments
from normlab.report import Table

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)
models_app = typer.Typer(help="Check the models normlab can call.", no_args_is_help=True)
losona_app = typer.Typer(
    help="LoSoNA: local social norm adaptation (static).", no_args_is_help=True
)
app.add_typer(models_app, name="models")
app.add_typer(losona_app, name="losona")

# Off a terminal (CI logs, pipes) rich would assume 80 columns and truncate model names.
console = Console(width=None if sys.stdout.isatty() else 200)

CommandT = TypeVar("CommandT", bound=Callable[..., Any])

# Three of the shortest shipped scenarios, two conditions, K = 3: 36 model calls,
# about 3 minutes on 2 CPU cores (benchmarks/demo_time.py measures it).
DEMO_SCENARIO_IDS = [
    "gift_pool_or_bill_split__no_apology_culture_norm__demos__leaving_present",
    "activity_log__deadpan_literalism_norm__demos__hill_repeats",
    "advice_request__banned_epistemic_hedging_norm__demos__orders_db_migration",
]
DEMO_CONDITIONS = ["naive", "norm_informed"]


def reports_errors(command: CommandT) -> CommandT:
    """Turn normlab errors into one line on stderr and the error's exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except NormlabError as error:
            # Plain write: a one-line error must stay one line, never wrapped.
            sys.stderr.write(f"normlab: error: {error}\n")
            raise typer.Exit(code=error.exit_code) from None

    return wrapper  # type: ignore[return-value]


def print_table(table: Table) -> None:
    rich_table = RichTable(title=table.caption, show_lines=False)
    for column in table.header:
        rich_table.add_column(column, no_wrap=True)
    for row in table.rows:
        rich_table.add_row(*row)
    console.print(rich_table)


def print_losona(analysis: LosonaAnalysis) -> None:
    print_table(headline_table(analysis))
    if any(result.paired for result in analysis.models.values()):
        print_table(paired_table(analysis))
    judges = {judge for result in analysis.models.values() for judge in result.judge_models}
    if any(is_embedded(judge) for judge in judges):
        console.print(f"[yellow]Note:[/] {EMBEDDED_JUDGE_BANNER}")


ModelOption = Annotated[
    str, typer.Option("--model", "-m", help="Subject model (any Inspect model string).")
]
JudgeOption = Annotated[
    str | None, typer.Option("--judge", help="Judge model (default: the embedded model).")
]
RoleOption = Annotated[
    list[str] | None,
    typer.Option("--role", help="Assign a model to a role: NAME=MODEL (repeatable)."),
]


@models_app.command("check")
@reports_errors
def models_check(model: ModelOption = DEFAULT_MODEL) -> None:
    """Make one small call and print the reply, latency and tokens."""
    from normlab.models.check import check_model

    result = asyncio.run(check_model(model))
    console.print(f"model:   {result.model}")
    console.print(f"reply:   {result.reply}", markup=False)
    console.print(f"latency: {result.latency_s:.2f} s")
    console.print(
        f"tokens:  {result.input_tokens} in ({result.cached_input_tokens} cached), "
        f"{result.output_tokens} out"
    )


def print_usage(log_paths: list[Path]) -> None:
    from normlab.models.usage import usage_by_role

    for role, usage in sorted(usage_by_role(log_paths).items()):
        console.print(
            f"{role}: {usage.calls} calls, {usage.input_tokens} input tokens "
            f"({usage.cached_share:.0%} from prompt cache), {usage.output_tokens} output tokens"
        )


def _analyze_and_report(log_paths: list[Path], report_dir: Path) -> tuple[LosonaAnalysis, Path]:
    analysis = analyze(load_records(log_paths))
    report = write_report(analysis, [str(path) for path in log_paths], report_dir)
    return analysis, report


@losona_app.command("run")
@reports_errors
def losona_run(
    model: ModelOption = DEFAULT_MODEL,
    judge: JudgeOption = None,
    role: RoleOption = None,
    condition: Annotated[
        list[str] | None, typer.Option("--condition", "-c", help="Prompt condition (repeatable).")
    ] = None,
    scenario: Annotated[
        list[str] | None, typer.Option("--scenario", help="Scenario id (repeatable).")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N scenarios.")] = None,
    epochs: Annotated[int, typer.Option("--epochs", "-k", help="K trials per sample.")] = 3,
    data: Annotated[Path | None, typer.Option(help="Scenario JSONL file or folder.")] = None,
    log_dir: Annotated[Path | None, typer.Option(help="Where .eval logs go (resumable).")] = None,
    report_dir: Annotated[Path | None, typer.Option(help="Where report.html goes.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
) -> None:
    """Run LoSoNA (or resume an interrupted run), then print results and write the report."""
    roles = parse_role_assignments(role or [])
    if judge:
        roles["judge"] = judge
    run = LosonaRun(
        model=model,
        roles=roles,
        scenarios=data,
        scenario_ids=scenario,
        limit_scenarios=limit,
        conditions=condition,
        epochs=epochs,
        log_dir=log_dir,
    )
    logs = run_losona(run)
    analysis, report = _analyze_and_report(logs, report_dir or run.resolved_log_dir())
    if as_json:
        console.print_json(json.dumps(analysis.to_json_dict()))
    else:
        print_losona(analysis)
        print_usage(logs)
    console.print(f"report: {report.resolve()}")


@losona_app.command("analyze")
@reports_errors
def losona_analyze(
    paths: Annotated[list[Path], typer.Argument(help=".eval logs or trial-record JSONL files.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
) -> None:
    """Compute accuracy-at-K, CIs, paired deltas and breakdowns from logs or trial records."""
    analysis = analyze(load_records(paths))
    if as_json:
        sys.stdout.write(json.dumps(analysis.to_json_dict(), indent=2) + "\n")
    else:
        print_losona(analysis)


@losona_app.command("report")
@reports_errors
def losona_report(
    paths: Annotated[list[Path], typer.Argument(help=".eval logs or trial-record JSONL files.")],
    out: Annotated[Path, typer.Option(help="Folder for report.html.")] = Path("."),
) -> None:
    """Write report.html with Figures 2–4 and tables."""
    analysis = analyze(load_records(paths))
    report = write_report(analysis, [str(path) for path in paths], out)
    console.print(f"report: {report.resolve()}")


@app.command("demo")
@reports_errors
def demo(
    log_dir: Annotated[Path, typer.Option(help="Where the demo's logs go.")] = Path("runs/demo"),
) -> None:
    """LoSoNA on the embedded default model: a small subset that runs offline in minutes."""
    run = LosonaRun(
        scenario_ids=DEMO_SCENARIO_IDS,
        conditions=DEMO_CONDITIONS,
        log_dir=log_dir / "losona",
    )
    logs = run_losona(run)
    analysis, report = _analyze_and_report(logs, log_dir)
    print_losona(analysis)
    print_usage(logs)
    console.print(f"report: {report.resolve()}")


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    app()


if __name__ == "__main__":
    main()
