"""The ``normlab`` command: run, analyze and report the benchmarks; check models.

Every command reports bad input on one line naming file, line and field and
exits 2; an incomplete run exits 1 and resumes when run again.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Annotated

import typer
from inspect_ai.model import get_model

from normlab.cli_common import (
    JudgeOption,
    ModelOption,
    RoleOption,
    console,
    print_table,
    print_usage,
    reports_errors,
)
from normlab.core.logs import expand_paths
from normlab.losona.analysis import (
    LosonaAnalysis,
    TrialRecord,
    analyze,
    load_records,
    scenarios_from_logs,
)
from normlab.losona.dataset import Scenario, load_scenarios
from normlab.losona.report import (
    EMBEDDED_JUDGE_BANNER,
    has_headline_pairs,
    headline_table,
    paired_table,
    write_report,
)
from normlab.losona.runner import LosonaRun, run_losona
from normlab.models import DEFAULT_MODEL, is_embedded, parse_role_assignments
from normlab.report import Table, format_estimate, format_number, format_percent
from normlab.scene.cli import scene_app

app = typer.Typer(help=__doc__, no_args_is_help=True, add_completion=False)
models_app = typer.Typer(help="Check the models normlab can call.", no_args_is_help=True)
losona_app = typer.Typer(
    help="LoSoNA: local social norm adaptation (static).", no_args_is_help=True
)
app.add_typer(models_app, name="models")
app.add_typer(scene_app, name="scene")
audit_app = typer.Typer(help="Human audit of the judge (paper §7).", no_args_is_help=True)
app.add_typer(losona_app, name="losona")
losona_app.add_typer(audit_app, name="audit")

DEMO_SCENARIO_IDS = [
    "gift_pool_or_bill_split__no_apology_culture_norm__demos__leaving_present",
    "activity_log__deadpan_literalism_norm__demos__hill_repeats",
    "advice_request__banned_epistemic_hedging_norm__demos__orders_db_migration",
]
DEMO_CONDITIONS = ["naive", "norm_informed"]


def print_losona(analysis: LosonaAnalysis) -> None:
    print_table(headline_table(analysis))
    if has_headline_pairs(analysis):
        print_table(paired_table(analysis))
    judges = {judge for result in analysis.models.values() for judge in result.judge_models}
    if any(is_embedded(judge) for judge in judges):
        console.print(f"[yellow]Note:[/] {EMBEDDED_JUDGE_BANNER}")


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


@losona_app.command("validate")
@reports_errors
def losona_validate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Scenario JSONL files or folders (default: shipped)."),
    ] = None,
) -> None:
    """Lint scenarios: exit 0 when clean, 1 with one line per finding, 2 if unreadable."""
    from normlab.losona.dataset import SCENARIOS_PATH
    from normlab.losona.lint import lint_paths

    findings = lint_paths(paths or [SCENARIOS_PATH])
    for finding in findings:
        sys.stdout.write(finding.one_line() + "\n")
    if findings:
        raise typer.Exit(code=1)
    sys.stdout.write("clean\n")


PathsArgument = Annotated[
    list[Path], typer.Argument(help=".eval logs, folders of logs, or trial-record JSONL files.")
]
DataOption = Annotated[
    Path | None,
    typer.Option(help="Scenarios file for trial records that are not .eval logs."),
]


def _records_and_scenarios(
    paths: list[Path], data: Path | None
) -> tuple[list[TrialRecord], dict[str, Scenario]]:
    files = expand_paths(paths)
    scenarios = scenarios_from_logs(files)
    if data is not None:
        scenarios.update({s.scenario_id: s for s in load_scenarios(data)})
    return load_records(files), scenarios


@losona_app.command("rescore")
@reports_errors
def losona_rescore(
    paths: PathsArgument,
    judge: Annotated[str, typer.Option("--judge", help="The second judge model.")],
    data: DataOption = None,
    out: Annotated[Path, typer.Option(help="Folder for rescored trials and agreement.")] = Path(
        "rescore"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="Print the agreement as JSON.")] = False,
) -> None:
    """Re-judge a run with another judge: agreement, Cohen's kappa, disagreement table."""
    from normlab.losona.rescore import RESCORED_FILE, rescore

    records, scenarios = _records_and_scenarios(paths, data)
    result = rescore(records, scenarios, judge, out)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    kappa = format_number(result.cohen_kappa)
    console.print(
        f"{', '.join(result.original_judges)} vs {judge}: agreement "
        f"{format_estimate(result.agreement, result.agreement_ci)} (Wilson 95% CI), "
        f"kappa {kappa}, n = {result.n_compared} of {result.n_rows} rows "
        f"(parse failures: original {result.parse_failures['original']}, "
        f"rescored {result.parse_failures['rescored']})"
    )
    print_table(
        Table(
            caption="Disagreement table (rows: original judge; columns: rescoring judge)",
            header=["", "rescored complies", "rescored breach"],
            rows=[
                [
                    "original complies",
                    str(result.table["both_comply"]),
                    str(result.table["original_comply_rescored_breach"]),
                ],
                [
                    "original breach",
                    str(result.table["original_breach_rescored_comply"]),
                    str(result.table["both_breach"]),
                ],
            ],
        )
    )
    console.print(f"rescored trials: {(out / RESCORED_FILE).resolve()}")


@audit_app.command("export")
@reports_errors
def audit_export(
    paths: PathsArgument,
    n: Annotated[int, typer.Option("--n", help="How many judged trials to sample.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed of the sample.")] = 0,
    data: DataOption = None,
    out: Annotated[Path, typer.Option(help="CSV to write (key file goes beside it).")] = Path(
        "audit.csv"
    ),
) -> None:
    """Write a random sample of judged trials as a CSV for blind human labelling."""
    from normlab.losona.audit import export_audit, key_path_for

    records, scenarios = _records_and_scenarios(paths, data)
    count = export_audit(records, scenarios, n, out, seed)
    console.print(f"{count} items: {out.resolve()} (fill 'human_complies' with yes/no)")
    console.print(f"key: {key_path_for(out).resolve()} (judge labels; keep it away from labellers)")


@audit_app.command("import")
@reports_errors
def audit_import(
    csv_path: Annotated[Path, typer.Argument(help="The labelled audit CSV.")],
    key: Annotated[Path | None, typer.Option(help="Key file (default: beside the CSV).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the result as JSON.")] = False,
) -> None:
    """Agreement of human labels with the judge; false positives and negatives (§7)."""
    from normlab.losona.audit import import_audit

    result = import_audit(csv_path, key)
    if as_json:
        sys.stdout.write(result.model_dump_json(indent=2) + "\n")
        return
    kappa = format_number(result.cohen_kappa)
    console.print(
        f"human vs judge ({', '.join(result.judge_models)}): agreement "
        f"{format_estimate(result.agreement, result.agreement_ci)} (Wilson 95% CI), kappa {kappa}, "
        f"n = {result.n_labelled} labelled ({result.n_unlabelled} left blank)"
    )
    console.print(
        f"compliant: judge {format_percent(result.judge_compliant_share)}, "
        f"human {format_percent(result.human_compliant_share)}; "
        f"false positives {result.false_positives}, false negatives {result.false_negatives}"
    )


@losona_app.command("export")
@reports_errors
def losona_export(
    out: Annotated[Path, typer.Option(help="Folder for the Hugging Face layout.")] = Path(
        "losona-dataset"
    ),
    data: Annotated[
        Path | None, typer.Option(help="Scenarios to export (default: shipped).")
    ] = None,
) -> None:
    """Write the scenarios as a Hugging Face dataset (data/*.jsonl + dataset card)."""
    from normlab.losona.dataset import SCENARIOS_PATH
    from normlab.losona.export import export_dataset
    from normlab.losona.taxonomy import load_taxonomy

    scenarios = load_scenarios(data or SCENARIOS_PATH)
    path = export_dataset(scenarios, load_taxonomy(), out)
    console.print(f"{len(scenarios)} scenarios: {path.resolve()}")
    console.print(f"dataset card: {(out / 'README.md').resolve()}")


@losona_app.command("generate")
@reports_errors
def losona_generate(
    event: Annotated[str, typer.Option("--event", help="Event type id.")],
    norm: Annotated[str, typer.Option("--norm", help="Norm id.")],
    model: ModelOption = DEFAULT_MODEL,
    venue: Annotated[str, typer.Option(help="Venue label, e.g. workplace.")] = "workplace",
    count: Annotated[int, typer.Option(help="How many candidates to generate.")] = 1,
    repairs: Annotated[int, typer.Option(help="Repair rounds after lint findings.")] = 2,
    out: Annotated[
        Path, typer.Option(help="JSONL file that valid candidates are appended to.")
    ] = Path("generated.jsonl"),
) -> None:
    """Generate candidate scenarios for one (event, norm) cell; only lint-clean ones are written."""
    from normlab.core.batch import run_batch_to_jsonl
    from normlab.losona.generator import GenerationRequest, generate_scenario
    from normlab.losona.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    request = GenerationRequest(event_id=event, norm_id=norm, venue=venue)
    request.validate(taxonomy)
    generator = get_model(model, role="generator")

    outcomes = run_batch_to_jsonl(
        list(range(count)),
        lambda _: generate_scenario(generator, request, taxonomy, repairs),
        lambda outcome: outcome.scenario,
        out,
        concurrency=generator.api.max_connections(),
        description=f"generating ({event}, {norm})",
    )
    failed = 0
    for index, outcome in enumerate(outcomes, start=1):
        if outcome.scenario is not None:
            console.print(
                f"candidate {index}: written {outcome.scenario.scenario_id}", markup=False
            )
        else:
            failed += 1
            problems = "; ".join(outcome.problems[:5])
            console.print(
                f"candidate {index}: not written after {outcome.attempts} calls: {problems}",
                markup=False,
            )
    console.print(f"{count - failed} of {count} written to {out.resolve()}")
    if failed:
        raise typer.Exit(code=1)


@losona_app.command("screen")
@reports_errors
def losona_screen(
    path: Annotated[Path, typer.Argument(help="Candidate scenarios (JSONL file or folder).")],
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="Screening model (repeatable; default embedded)."),
    ] = None,
    judge: JudgeOption = None,
    samples: Annotated[int, typer.Option(help="Baseline replies per screening model.")] = 1,
    out: Annotated[Path, typer.Option(help="Folder for accepted/rejected files.")] = Path(
        "screening"
    ),
) -> None:
    """No-demonstration screening: reject candidates that a baseline already answers compliantly."""
    from normlab.losona.screening import screen

    results = screen(
        load_scenarios(path), model or [DEFAULT_MODEL], judge or DEFAULT_MODEL, samples, out
    )
    accepted = sum(result.decision == "accepted" for result in results)
    for result in results:
        if result.decision == "rejected":
            console.print(
                f"rejected {result.scenario.scenario_id}: {result.reasons[0]}", markup=False
            )
    console.print(
        f"accepted {accepted} of {len(results)}: {(out / 'accepted.jsonl').resolve()}; "
        f"rejected: {(out / 'rejected.jsonl').resolve()}"
    )


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
