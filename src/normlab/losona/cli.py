"""``normlab losona …``: run, analyze, report; the data program (validate, generate, screen,
export); judge validation (rescore, audit export/import).

Light at import (``normlab losona --help`` answers at once): each command imports what it
needs when it runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from normlab.commands.options import (
    BlindCsvOption,
    JsonOption,
    JudgeOption,
    ModelOption,
    PathsArgument,
    ScenarioFilesArgument,
)
from normlab.commands.reading import add_read_commands, agreement_said, export_logs, import_command
from normlab.commands.running import Flag, RunCommand, add_run_command
from normlab.core.errors import at_least
from normlab.core.outputs import apart_from_inputs, output_folder
from normlab.core.storage import log_paths
from normlab.models.preflight import check_models
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import note, print_json, report_findings, reports_errors, say

if TYPE_CHECKING:
    from normlab.losona.audit import AuditResult

app = typer.Typer(no_args_is_help=True)
audit_app = typer.Typer(help="Human audit of the judge (paper §7).", no_args_is_help=True)
app.add_typer(audit_app, name="audit")

JudgeAddendaOption = Annotated[
    str,
    typer.Option(
        help="'default': Appendix C's judge prompt plus our edge-case instructions; "
        "'none': the bare Appendix C prompt."
    ),
]


RUN = RunCommand(
    "normlab.losona.task:losona",
    "normlab.losona.runner:BENCHMARK",
    "Run LoSoNA (or resume an interrupted run), then print results and write the report.",
    flags={
        "scenarios": Flag(("--data",), path=True),
        "conditions": Flag(("--condition", "-c")),
        "scenario_ids": Flag(("--scenario",)),
        "limit_scenarios": Flag(("--limit",)),
        "epochs": Flag(("--epochs", "-k")),
    },
    hidden=("judge",),
)
add_read_commands(app, RUN.load_benchmark)
add_run_command(app, RUN)


@app.command("validate")
@reports_errors
def losona_validate(paths: ScenarioFilesArgument = None) -> None:
    """Lint scenarios: exit 0 when clean, 1 with one line per finding, 2 if unreadable. Fields
    a row carries beside a scenario's are kept as metadata, and listed per file."""
    from normlab.core.fields import MetadataTally
    from normlab.losona.dataset import SCENARIOS_PATH
    from normlab.losona.lint import lint_paths

    metadata = MetadataTally()
    findings = lint_paths(paths or [SCENARIOS_PATH], metadata=metadata)
    report_findings(findings, "clean", metadata)


DataOption = Annotated[
    Path | None,
    typer.Option(help="Scenarios file for trial records that are not .eval logs."),
]


@app.command("rescore")
@reports_errors
def losona_rescore(
    paths: PathsArgument,
    judge: Annotated[str, typer.Option("--judge", help="The second judge model.")],
    judge_addenda: JudgeAddendaOption = "default",
    data: DataOption = None,
    out: Annotated[Path, typer.Option(help="Folder for rescored logs, trials and agreement.")] = (
        Path("rescore")
    ),
    as_json: JsonOption = False,
) -> None:
    """Re-judge a run with another judge: agreement, Cohen's kappa, disagreement table."""
    from normlab.losona.rescore import RESCORED_FILE, rescore
    from normlab.report import Table, format_number, format_rate
    from normlab.runs.console import print_table

    check_models({"--judge": judge})
    logs = log_paths(paths)
    # The rescored logs must not land among the logs read (the next analysis of that folder
    # would count every trial twice), nor replace one.
    apart_from_inputs(out, [*logs, data], whole=True)
    output_folder(out, "--out")
    result = rescore(logs, judge, out, data, judge_addenda)
    if as_json:
        print_json(result)
        return
    agreement = result.agreement
    say(
        f"{', '.join(result.original_judges)} vs {judge}: agreement "
        f"{format_rate(agreement.rate)} (Wilson 95% CI), "
        f"kappa {format_number(agreement.cohen_kappa)}, n = {agreement.n} of {result.n_rows} rows "
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
                    str(agreement.both_true),
                    str(agreement.first_true_second_false),
                ],
                [
                    "original breach",
                    str(agreement.first_false_second_true),
                    str(agreement.both_false),
                ],
            ],
        )
    )
    note(f"rescored trials: {(out / RESCORED_FILE).resolve()}")


@audit_app.command("export")
@reports_errors
def audit_export(
    paths: PathsArgument,
    n: Annotated[int, typer.Option("--n", help="How many judged trials to sample.")] = 100,
    seed: Annotated[int, typer.Option(help="Random seed of the sample.")] = 0,
    data: DataOption = None,
    out: BlindCsvOption = Path("audit.csv"),
) -> None:
    """Write a random sample of judged trials as a CSV for blind human labelling."""
    from normlab.core.csvio import key_path_for
    from normlab.losona.audit import export_audit
    from normlab.losona.rescore import records_and_scenarios

    logs = export_logs(paths, out, data)
    records, scenarios = records_and_scenarios(logs, data)
    count = export_audit(records, scenarios, n, out, seed)
    say(f"{count} items: {out.resolve()} (fill 'human_complies' with yes/no)")
    say(f"key: {key_path_for(out).resolve()} (judge labels; keep it away from labellers)")


@import_command(audit_app, "normlab.losona.audit:import_audit", "The labelled audit CSV.")
def _show_audit(result: AuditResult) -> None:
    """Agreement of human labels with the judge; false positives and negatives (§7)."""
    from normlab.report import format_percent

    agreement, unlabelled = result.agreement, result.n_unlabelled
    say(agreement_said("judge", result.judge_models, agreement, unlabelled, "labelled"))
    say(
        f"compliant: judge {format_percent(result.judge_compliant_share)}, "
        f"human {format_percent(result.human_compliant_share)}; "
        f"false positives {result.false_positives}, false negatives {result.false_negatives}"
    )


@app.command("export")
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
    from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios
    from normlab.losona.export import export_dataset
    from normlab.losona.taxonomy import load_taxonomy

    apart_from_inputs(out, [data or SCENARIOS_PATH])
    output_folder(out, "--out")
    scenarios = load_scenarios(data or SCENARIOS_PATH)
    path = export_dataset(scenarios, load_taxonomy(), out)
    say(f"{len(scenarios)} scenarios: {path.resolve()}")
    say(f"dataset card: {(out / 'README.md').resolve()}")


@app.command("generate")
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
    at_least("--count", count, 1)
    at_least("--repairs", repairs, 0)
    from inspect_ai.model import get_model

    from normlab.commands.generation import write_generated
    from normlab.losona.generator import GenerationRequest, generate_scenario
    from normlab.losona.taxonomy import load_taxonomy
    from normlab.models.preflight import check_models

    taxonomy = load_taxonomy()
    request = GenerationRequest(event_id=event, norm_id=norm, venue=venue)
    request.validate(taxonomy)
    check_models({"--model": model})
    generator = get_model(model, role="generator")
    write_generated(
        list(range(count)),
        lambda _: generate_scenario(generator, request, taxonomy, repairs),
        generator,
        out,
        f"generating ({event}, {norm})",
    )


@app.command("screen")
@reports_errors
def losona_screen(
    path: Annotated[Path, typer.Argument(help="Candidate scenarios (JSONL file or folder).")],
    model: Annotated[
        list[str] | None,
        typer.Option("--model", "-m", help="Screening model (repeatable; default embedded)."),
    ] = None,
    judge: JudgeOption = None,
    samples: Annotated[int, typer.Option(help="Baseline replies per screening model.")] = 1,
    out: Annotated[Path, typer.Option(help="Folder for logs and accepted/rejected files.")] = (
        Path("screening")
    ),
) -> None:
    """No-demonstration screening: reject candidates that a baseline already answers compliantly."""
    from normlab.losona.dataset import load_scenarios
    from normlab.losona.screening import screen

    screeners = model or [DEFAULT_MODEL]
    # Its accepted and rejected files must not replace the candidates, nor join them.
    apart_from_inputs(out, [path], whole=True)
    check_models([*(("--model", name) for name in screeners), ("--judge", judge or DEFAULT_MODEL)])
    results = screen(load_scenarios(path), screeners, judge or DEFAULT_MODEL, samples, out)
    accepted = sum(result.decision == "accepted" for result in results)
    for result in results:
        if result.decision == "rejected":
            say(f"rejected {result.scenario.scenario_id}: {result.reasons[0]}")
    say(
        f"accepted {accepted} of {len(results)}: {(out / 'accepted.jsonl').resolve()}; "
        f"rejected: {(out / 'rejected.jsonl').resolve()}"
    )


@app.command("demo")
@reports_errors
def losona_demo(
    out: Annotated[Path, typer.Option(help="Where the demo's run goes.")] = Path("runs/demo"),
) -> None:
    """LoSoNA on the embedded model: two scenarios, both conditions, offline in a minute or two."""
    from normlab.losona.runner import run_demo

    run_demo(out)
