"""``normlab scene …``: tuples, validate, run, analyze, report."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Annotated
from uuid import uuid4

import typer
from inspect_ai.model import get_model
from pydantic import ValidationError

from normlab.cli_common import (
    DEFAULT_MODEL,
    JudgeOption,
    ModelOption,
    RoleOption,
    console,
    print_table,
    print_usage,
    reports_errors,
)
from normlab.core.batch import run_batch_to_jsonl
from normlab.core.errors import InputError
from normlab.core.evalrun import run_task, slug
from normlab.models import is_embedded, parse_role_assignments
from normlab.scene.analysis import (
    EpisodeRecord,
    SceneAnalysis,
    aggregate,
    load_episode_records,
    usage_per_episode_by_model,
)
from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
from normlab.scene.generator import generate_scenario, scaffold_findings
from normlab.scene.report import (
    all_roles_table,
    annotated_transcript,
    headline_table,
    pairs_table,
    usage_table,
    write_report,
)
from normlab.scene.runtime import DEFAULT_MAX_TURNS
from normlab.scene.task import scene
from normlab.scene.taxonomy import SceneTuple, coverage_greedy_sample, load_dimensions

scene_app = typer.Typer(
    help="SCENE: interactive norm episodes with sanctions.", no_args_is_help=True
)

SCENE_ROLES = ("persona", "orchestrator", "judge", "auditor")
SAMPLE_TRANSCRIPTS = 3


@scene_app.command("tuples")
@reports_errors
def scene_tuples(
    sample: Annotated[int | None, typer.Option(help="Draw N tuples coverage-greedily.")] = None,
    reps: Annotated[int, typer.Option(help="Repetitions per drawn tuple (for a sweep plan).")] = 1,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the tuples as JSON lines.")
    ] = False,
) -> None:
    """Count the valid tuples (applicability filter, A.7) or draw a coverage-greedy sweep."""
    dimensions = load_dimensions()
    tuples = list(dimensions.valid_tuples())
    chosen = coverage_greedy_sample(dimensions, sample) if sample else tuples
    if as_json:
        for item in chosen:
            for rep in range(1, reps + 1):
                sys.stdout.write(json.dumps({**item.model_dump(), "rep": rep}) + "\n")
        return
    console.print(
        f"valid tuples: {len(tuples)} of {len(dimensions.events)} events × {len(dimensions.norms)} "
        f"norms × {len(dimensions.elicitors)} elicitors × {len(dimensions.sanctions)} sanctions × 2"
    )
    if sample:
        console.print(
            f"drawn: {len(chosen)} tuples × {reps} repetitions = {len(chosen) * reps} episodes"
        )
        for axis in ("event", "norm", "elicitor", "sanction", "precedent"):
            counts = Counter(str(getattr(item, axis)) for item in chosen)
            console.print(f"  {axis}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))


@scene_app.command("validate")
@reports_errors
def scene_validate(
    paths: Annotated[
        list[Path] | None, typer.Argument(help="Scenario JSONL files or folders.")
    ] = None,
) -> None:
    """Check scenarios: schema, tuple validity, hidden fields vs scaffold, norm-blind scaffold."""
    total, findings = 0, 0
    for path in paths or [SCENARIOS_PATH]:
        scenarios = load_scenarios(path)
        total += len(scenarios)
        for scenario in scenarios:
            for finding in scaffold_findings(scenario.scaffold):
                findings += 1
                sys.stdout.write(f"{path}: {scenario.scenario_id}: scaffold.{finding}\n")
    if findings:
        raise typer.Exit(code=1)
    console.print(f"clean: {total} scenarios")


@scene_app.command("generate")
@reports_errors
def scene_generate(
    model: ModelOption = DEFAULT_MODEL,
    event: Annotated[str | None, typer.Option(help="Tuple: event id.")] = None,
    norm: Annotated[str | None, typer.Option(help="Tuple: norm id.")] = None,
    elicitor: Annotated[str | None, typer.Option(help="Tuple: elicitor id.")] = None,
    sanction: Annotated[str | None, typer.Option(help="Tuple: sanction id.")] = None,
    precedent: Annotated[int, typer.Option(help="Tuple: precedent, 0 or 1.")] = 0,
    sample: Annotated[
        int | None, typer.Option(help="Instead of one tuple: N coverage-greedy tuples.")
    ] = None,
    repairs: Annotated[int, typer.Option(help="Repair rounds per stage.")] = 1,
    out: Annotated[Path, typer.Option(help="JSONL that valid scenarios are appended to.")] = Path(
        "scene_generated.jsonl"
    ),
) -> None:
    """Two-stage generation (norm-blind scaffold, then norm-aware hidden fields)."""
    dimensions = load_dimensions()
    if sample:
        tuples = coverage_greedy_sample(dimensions, sample)
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
    generator = get_model(model, role="generator")

    results = run_batch_to_jsonl(
        tuples,
        lambda item: generate_scenario(generator, item, dimensions, uuid4().hex[:6], repairs),
        lambda result: result.scenario,
        out,
        concurrency=generator.api.max_connections(),
        description="generating SCENE scenarios",
    )
    failed = [r for r in results if r.scenario is None]
    for result in failed:
        problems = "; ".join(result.problems[:3])
        console.print(f"not written {result.scene_tuple.slug()}: {problems}", markup=False)
    console.print(f"{len(results) - len(failed)} of {len(results)} written to {out.resolve()}")
    if failed:
        raise typer.Exit(code=1)


def print_scene(analysis: SceneAnalysis) -> None:
    print_table(headline_table(analysis))
    print_table(pairs_table(analysis))
    print_table(all_roles_table(analysis))
    print_table(usage_table(analysis))


def _analysis(records: list[EpisodeRecord], logs: list[Path]) -> SceneAnalysis:
    analysis = aggregate([r.outcome for r in records], load_dimensions())
    analysis.all_roles_per_episode = usage_per_episode_by_model(logs)
    return analysis


def _report(
    records: list[EpisodeRecord], logs: list[Path], out_dir: Path
) -> tuple[SceneAnalysis, Path]:
    analysis = _analysis(records, logs)
    sources = [str(path) for path in logs]
    samples = [
        (r.outcome, annotated_transcript(r.episode, r.labels)) for r in records[:SAMPLE_TRANSCRIPTS]
    ]
    embedded = any(is_embedded(model) for r in records for model in r.roles.values() if model)
    return analysis, write_report(analysis, samples, sources, embedded, out_dir)


@scene_app.command("run")
@reports_errors
def scene_run(
    model: ModelOption = DEFAULT_MODEL,
    judge: JudgeOption = None,
    role: RoleOption = None,
    tuples: Annotated[
        int | None, typer.Option(help="N scenarios, coverage-greedy over tuples.")
    ] = None,
    reps: Annotated[int, typer.Option(help="Episodes per scenario.")] = 1,
    max_turns: Annotated[
        int, typer.Option(help="Rounds per episode (paper: 8).")
    ] = DEFAULT_MAX_TURNS,
    labeller: Annotated[str, typer.Option(help="turns (B.6) or lists (§5.1).")] = "turns",
    data: Annotated[Path | None, typer.Option(help="Scenario JSONL file or folder.")] = None,
    log_dir: Annotated[Path | None, typer.Option(help="Where .eval logs go (resumable).")] = None,
    report_dir: Annotated[Path | None, typer.Option(help="Where report.html goes.")] = None,
) -> None:
    """Run SCENE episodes (or resume an interrupted run); print results, write the report."""
    roles = {name: DEFAULT_MODEL for name in SCENE_ROLES}
    roles.update(parse_role_assignments(role or []))
    if judge:
        roles["judge"] = judge
    task = scene(
        scenarios=str(data) if data else None,
        tuples=tuples,
        reps=reps,
        max_turns=max_turns,
        labeller=labeller,
    )
    folder = log_dir or Path("runs") / "scene" / slug(model)
    logs = run_task(task, folder, model, roles)
    records = load_episode_records(logs)
    analysis, report = _report(records, logs, report_dir or folder)
    print_scene(analysis)
    print_usage(logs)
    console.print(f"report: {report.resolve()}")


@scene_app.command("analyze")
@reports_errors
def scene_analyze(
    paths: Annotated[list[Path], typer.Argument(help="SCENE .eval logs or folders of logs.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the analysis as JSON.")] = False,
) -> None:
    """Repair rates, adaptation ρ, opposing pairs, fidelity and usage from SCENE logs."""
    records = load_episode_records(paths)
    analysis = _analysis(records, paths)
    if as_json:
        sys.stdout.write(analysis.model_dump_json(indent=2) + "\n")
    else:
        print_scene(analysis)


@scene_app.command("report")
@reports_errors
def scene_report(
    paths: Annotated[list[Path], typer.Argument(help="SCENE .eval logs or folders of logs.")],
    out: Annotated[Path, typer.Option(help="Folder for report.html.")] = Path("."),
) -> None:
    """Write report.html: repair by model and sanction, ρ, opposing pairs, sample episodes."""
    records = load_episode_records(paths)
    _, report = _report(records, paths, out)
    console.print(f"report: {report.resolve()}")
