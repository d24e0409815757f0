"""``normlab scene …``: tuples, validate, run, analyze, report; the human audit of the judge's
labels and the auditor's fidelity verdicts (audit export, audit import).

Light at import (``normlab scene --help`` answers at once): each command imports what it
needs when it runs.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from normlab.commands.options import (
    BlindCsvOption,
    ModelOption,
    PathsArgument,
    ScenarioFilesArgument,
)
from normlab.commands.reading import add_read_commands, agreement_said, export_logs, import_command
from normlab.commands.running import Flag, RunCommand, add_run_command
from normlab.core.errors import InputError, at_least
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import report_findings, reports_errors, say
from normlab.scene.defaults import SAMPLERS

if TYPE_CHECKING:
    from normlab.scene.audit import SceneAuditResult
    from normlab.scene.taxonomy import SceneTuple

app = typer.Typer(no_args_is_help=True)

audit_app = typer.Typer(
    help="Human audit of the judge's turn labels and the auditor's fidelity verdicts.",
    no_args_is_help=True,
)
app.add_typer(audit_app, name="audit")


RUN = RunCommand(
    "normlab.scene.task:scene",
    "normlab.scene.runner:BENCHMARK",
    "Run SCENE episodes (or resume an interrupted run); print results, write the report.",
    flags={"scenarios": Flag(("--data",), path=True)},
    hidden=("scenario_ids",),
)
add_read_commands(app, RUN.load_benchmark)
add_run_command(app, RUN)


SamplerOption = Annotated[
    str,
    typer.Option(
        help="How to draw: 'coverage' (A.7: every axis value as evenly as possible) or "
        "'uniform' (§6: uniformly at random from the valid space, seeded)."
    ),
]
SeedOption = Annotated[int, typer.Option(help="Seed of the uniform sampler.")]


def _check_sampler(sampler: str) -> None:
    if sampler not in SAMPLERS:
        raise InputError("--sampler", f"choose one of {', '.join(SAMPLERS)}", field="sampler")


def _sample(sample: int, sampler: str, seed: int) -> list[SceneTuple]:
    from normlab.scene.taxonomy import load_dimensions, sample_tuples

    _check_sampler(sampler)
    dimensions = load_dimensions()
    total = sum(1 for _ in dimensions.valid_tuples())
    if not 1 <= sample <= total:
        raise InputError("--sample", f"must be between 1 and {total}", field="sample")
    return sample_tuples(dimensions, sample, sampler, seed)


@app.command("tuples")
@reports_errors
def scene_tuples(
    sample: Annotated[int | None, typer.Option(help="Draw N tuples (see --sampler).")] = None,
    sampler: SamplerOption = "coverage",
    seed: SeedOption = 0,
    reps: Annotated[int, typer.Option(help="Repetitions per drawn tuple (for a sweep plan).")] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the tuples as JSON lines.")
    ] = False,
) -> None:
    """Count the valid tuples (applicability filter, A.7) or draw a coverage-greedy sweep."""
    from normlab.scene.taxonomy import load_dimensions

    at_least("--reps", reps, 1)
    dimensions = load_dimensions()
    tuples = list(dimensions.valid_tuples())
    chosen = _sample(sample, sampler, seed) if sample is not None else tuples
    if as_json:
        for item in chosen:
            for rep in range(1, reps + 1):
                sys.stdout.write(json.dumps({**item.model_dump(), "rep": rep}) + "\n")
        return
    say(
        f"valid tuples: {len(tuples)} of {len(dimensions.events)} events × {len(dimensions.norms)} "
        f"norms × {len(dimensions.elicitors)} elicitors × {len(dimensions.sanctions)} sanctions × 2"
    )
    if sample is not None:
        say(
            f"drawn ({sampler}): {len(chosen)} tuples × {reps} repetitions = "
            f"{len(chosen) * reps} episodes"
        )
        for axis in ("event", "norm", "elicitor", "sanction", "precedent"):
            counts = Counter(str(getattr(item, axis)) for item in chosen)
            say(f"  {axis}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@app.command("validate")
@reports_errors
def scene_validate(paths: ScenarioFilesArgument = None) -> None:
    """Check scenarios: schema, tuple validity, hidden fields vs scaffold, norm-blind scaffold.
    Top-level fields a row carries beside a scenario's are kept as metadata, listed per file."""
    from normlab.core.fields import MetadataTally
    from normlab.scene.dataset import SCENARIOS_PATH
    from normlab.scene.lint import lint_paths

    metadata = MetadataTally()
    total, findings = lint_paths(paths or [SCENARIOS_PATH], metadata)
    report_findings(findings, f"clean: {total} scenarios", metadata)


@app.command("generate")
@reports_errors
def scene_generate(
    model: ModelOption = DEFAULT_MODEL,
    event: Annotated[str | None, typer.Option(help="Tuple: event id.")] = None,
    norm: Annotated[str | None, typer.Option(help="Tuple: norm id.")] = None,
    elicitor: Annotated[str | None, typer.Option(help="Tuple: elicitor id.")] = None,
    sanction: Annotated[str | None, typer.Option(help="Tuple: sanction id.")] = None,
    precedent: Annotated[int, typer.Option(help="Tuple: precedent, 0 or 1.")] = 0,
    sample: Annotated[
        int | None, typer.Option(help="Instead of one tuple: N tuples drawn by --sampler.")
    ] = None,
    sampler: SamplerOption = "coverage",
    seed: SeedOption = 0,
    repairs: Annotated[int, typer.Option(help="Repair rounds per stage.")] = 1,
    out: Annotated[Path, typer.Option(help="JSONL that valid scenarios are appended to.")] = Path(
        "scene_generated.jsonl"
    ),
) -> None:
    """Two-stage generation (norm-blind scaffold, then norm-aware hidden fields)."""
    from uuid import uuid4

    from inspect_ai.model import get_model
    from pydantic import ValidationError

    from normlab.commands.generation import write_generated
    from normlab.models.preflight import check_models
    from normlab.scene.generator import generate_scenario
    from normlab.scene.taxonomy import SceneTuple, load_dimensions

    at_least("--repairs", repairs, 0)
    dimensions = load_dimensions()
    if sample is not None:
        tuples = _sample(sample, sampler, seed)
    else:
        try:
            chosen = SceneTuple(
                event=event or "",
                norm=norm or "",
                elicitor=elicitor or "",
                sanction=sanction or "",
                precedent=precedent,  # type: ignore[arg-type]
            )
        except ValidationError as error:
            raise InputError("--precedent", "must be 0 or 1", field="precedent") from error
        if not dimensions.is_valid(chosen):
            raise InputError(
                "--event", f"{chosen.slug()} is not a valid tuple (A.7)", field="tuple"
            )
        tuples = [chosen]
    check_models({"--model": model})
    generator = get_model(model, role="generator")
    write_generated(
        tuples,
        lambda item: generate_scenario(generator, item, dimensions, uuid4().hex[:6], repairs),
        generator,
        out,
        "generating SCENE scenarios",
    )


@audit_app.command("export")
@reports_errors
def audit_export(
    paths: PathsArgument,
    n: Annotated[int, typer.Option("--n", help="How many yes/no questions to write.")] = 50,
    seed: Annotated[int, typer.Option(help="Random seed of the episodes and questions.")] = 0,
    out: BlindCsvOption = Path("scene_audit.csv"),
) -> None:
    """Write yes/no questions on sampled episodes (turn labels, fidelity) for blind answers."""
    from normlab.scene.audit import export_audit, key_path_for

    count = export_audit(export_logs(paths, out), out, n, seed)
    say(f"{count} questions: {out.resolve()} (fill 'human_answer' with yes/no)")
    say(f"key: {key_path_for(out).resolve()} (model labels; keep it away from raters)")


@import_command(audit_app, "normlab.scene.audit:import_audit", "The answered audit CSV.")
def _show_audit(result: SceneAuditResult) -> None:
    """Agreement (and Cohen's kappa) of human answers with the judge, overall and per kind."""
    from normlab.report import format_number, format_rate

    said = agreement_said(
        "models", result.judge_models, result.agreement, result.n_unlabelled, "answered"
    )
    say(f"{said} over {result.episodes} episodes")
    for kind, by_kind in result.by_kind.items():
        say(
            f"  {kind}: agreement {format_rate(by_kind.rate)}, "
            f"kappa {format_number(by_kind.cohen_kappa)}; model yes / human no "
            f"{by_kind.first_true_second_false}, model no / human yes "
            f"{by_kind.first_false_second_true}"
        )


@app.command("demo")
@reports_errors
def scene_demo(
    out: Annotated[Path, typer.Option(help="Where the demo's run goes.")] = Path("runs/demo"),
) -> None:
    """SCENE on the embedded model: one short episode, offline in a few minutes."""
    from normlab.scene.runner import run_demo

    run_demo(out)
