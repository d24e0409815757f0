"""``normlab study plan|run|report STUDY.yaml``: a comparison of subjects over systems.

Light at import, as every command module is: the systems, Inspect and the plan's dry runs are
imported when a command runs, so ``normlab --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from normlab.commands.options import JsonOption
from normlab.core.errors import InputError
from normlab.core.storage import log_location, mirror_folder
from normlab.runs.console import note, print_json, print_table, reports_errors, say

if TYPE_CHECKING:
    from normlab.study.plan import Power as PlanPower
    from normlab.study.schema import Study

ICC_DEFAULT = 0.05
"""``normlab.study.power.ICC``, here so that ``--help`` imports no study module."""

app = typer.Typer(
    no_args_is_help=True,
    help="A study: systems × subjects × roles, planned (calls, cost, power), run and reported.",
)

StudyArgument = Annotated[Path, typer.Argument(help="The study file (YAML).")]
StudyOutOption = Annotated[
    str | None,
    typer.Option(
        "--out",
        help="The study's folder, instead of the file's out: a path from here (or an s3://… "
        "URL); plan, run and report given the same --out agree. A shipped example runs as it is.",
    ),
]
BatchOption = Annotated[int, typer.Option(help="Units per batch (with --until-halfwidth).")]
"""``--batch``: the units a sequential cell runs between two looks at its interval, as ``run``
runs it and ``plan`` predicts it."""


def _load(path: Path, out: str | None = None) -> Study:
    """The study file, read and each system's options checked against its task; ``out`` (the
    command line's ``--out``) replaces the file's own."""
    from normlab.study.schema import check_options, check_roles, check_variants, load_study
    from normlab.study.systems import SYSTEMS

    study = load_study(path, out)
    check_roles(study, path, {name: SYSTEMS[name].roles() for name in study.systems})
    check_options(study, path, {name: SYSTEMS[name].factory() for name in study.systems})
    check_variants(study, path)
    return study


def local_folder(out: str) -> Path:
    """Where the study's own local files go: its out folder, or an object-storage out's mirror."""
    location = log_location(out)
    return location if isinstance(location, Path) else mirror_folder(location)


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def _units(count: float, unit: str) -> str:
    return f"{count:,.0f} {unit}{'' if round(count) == 1 else 's'}"


def _n(power: PlanPower) -> str:
    """A cell's n with its unit, and the clusters its interval resamples."""
    found = _units(power.n, power.unit)
    if power.cluster_unit and power.cluster_unit != power.unit and power.clusters:
        found += f" in {_units(power.clusters, power.cluster_unit)}"
    return found


@app.command("plan")
@reports_errors
def plan(
    study_file: StudyArgument,
    as_json: JsonOption = False,
    target_halfwidth: Annotated[
        float, typer.Option(help="Interval half-width the sizes should reach.")
    ] = 0.05,
    assumed_rate: Annotated[
        float,
        typer.Option(
            help="The headline rate assumed for LoSoNA, SCENE and CRSEC (HSII's r1–r4 are "
            "the paper's GPT-4 row) where no pilot measured it."
        ),
    ] = 0.5,
    latency: Annotated[float, typer.Option(help="Seconds per call assumed for wall time.")] = 2.0,
    pilot: Annotated[
        str | None,
        typer.Option(help="A pilot study's out folder: power from its rates, not the assumed."),
    ] = None,
    icc: Annotated[
        float,
        typer.Option(
            help="Correlation of units within a cluster (SCENE's sanctions in a scenario, "
            "HSII's cases in a dialogue, CRSEC's agents in a run)."
        ),
    ] = ICC_DEFAULT,
    pair_correlation: Annotated[
        float,
        typer.Option(help="Correlation of two subjects' outcomes on a shared unit (0: none)."),
    ] = 0.0,
    calibrate: Annotated[
        bool,
        typer.Option(
            "--calibrate",
            help="Time the embedded model on this machine for the local wall time "
            "(two short calls) instead of the rates measured for the design.",
        ),
    ] = False,
    until_halfwidth: Annotated[
        float | None,
        typer.Option(
            help="Also predict what study run --until-halfwidth H would save, simulating "
            "its stopping rule at the plan's rates."
        ),
    ] = None,
    batch: BatchOption = 10,
    out: StudyOutOption = None,
) -> None:
    """Count every cell's calls and tokens by a scripted dry run; cost, wall time and power."""
    from normlab.report import Table
    from normlab.study.calibrate import calibrate_embedded
    from normlab.study.pilot import pilot_rates
    from normlab.study.plan import plan_study, write_plan

    study = _load(study_file, out)
    if until_halfwidth is not None:
        from normlab.study.sequential import Rule
        from normlab.study.systems import refuse_sequential_variants

        Rule(until_halfwidth, batch=batch).check(study.systems)  # before any dry run
        refuse_sequential_variants(study)
    rates = pilot_rates(pilot, list(study.systems)) if pilot else None
    speed = calibrate_embedded() if calibrate else None
    result = plan_study(
        study, latency, assumed_rate, target_halfwidth, rates, icc, pair_correlation, speed
    )
    if until_halfwidth is not None:
        from normlab.study.sequential.plan import plan_savings

        plan_savings(study, result.cells, until_halfwidth, batch)
    note(f"plan: {write_plan(result, log_location(study.out))}")
    if as_json:
        print_json(result)
        return
    rows = []
    for cell in result.cells:
        power = cell.power
        rows.append(
            [
                cell.system,
                cell.subject + (f" ({cell.variant})" if cell.variant else ""),
                f"{cell.calls:,}",
                f"{cell.input_tokens:,} / {cell.output_tokens:,}",
                _money(cell.cost),
                _money(cell.cost_corrected),
                f"{cell.wall_s_at_least:,.0f}",
                _n(power) if power else "—",
                f"±{power.halfwidth:.3f}" if power and power.halfwidth else "—",
                _mde(power.paired_mde if power else None),
                _units(power.sampled_for_target, power.sampled) if power else "—",
            ]
        )
    per_word = result.tokens_per_word
    header = ["system", "subject", "calls", "words in / out", "cost ≥",
              f"cost at {per_word['input']}/{per_word['output']} tokens per word", "wall ≥ s",
              "n", "95% half-width", "paired MDE", f"n for ±{target_halfwidth}"]  # fmt: skip
    print_table(Table(f"Plan of {result.study}", header, rows))
    for cell in result.cells:
        for judge in cell.extra_judges.values():
            say(f"extra judge {judge.model} on {cell.system}/{cell.subject}: {judge.calls} calls, "
                f"{judge.input_tokens:,} / {judge.output_tokens:,} tokens, {_money(judge.cost)} "
                "(in the cell's cost)")  # fmt: skip
    say(f"total cost: at least {_money(result.cost)} (the scripted words priced as tokens); "
        f"about {_money(result.cost_corrected)} at {per_word['input']} input and "
        f"{per_word['output']} output tokens per word, more for a model that reasons before "
        "it answers")  # fmt: skip
    for name, formula in result.formulas.items():
        say(f"{name}: {formula}")
    rate = result.local_rate
    measured = "measured now" if calibrate else "measured on a 2-core machine; --calibrate"
    say(f"assumed: latency {latency} s, {result.connections} connections, rate {assumed_rate}, "
        f"icc {icc}, pair correlation {pair_correlation}; local model {rate['prompt']:.0f} "
        f"prompt and {rate['generation']:.0f} generated tokens/s "
        f"({measured})")  # fmt: skip
    for cell in result.cells:
        if cell.power and cell.power.rate_source != "assumed":
            say(f"rates of {cell.system}/{cell.subject}: {cell.power.rate_source}")
        if cell.local_s:
            say(f"{cell.system}/{cell.subject}: the local model's time ≈ {cell.local_s:,.0f} s")
        found = cell.sequential
        if found is not None:
            say(f"{cell.system}/{cell.subject} until ±{found.halfwidth}: about "
                f"{found.expected_units_run:,.1f} of {found.units} units run, "
                f"{found.share_saved:.0%} saved ({found.calls_saved:,.0f} calls, "
                f"{_money(found.cost_saved)})")  # fmt: skip


@app.command("run")
@reports_errors
def run(
    study_file: StudyArgument,
    as_json: JsonOption = False,
    executor: Annotated[
        str, typer.Option(help="Where cells run: local, or ray (pip install normlab[ray]).")
    ] = "local",
    ray_address: Annotated[
        str | None,
        typer.Option(help="An existing Ray cluster (default: a local Ray instance)."),
    ] = None,
    until_halfwidth: Annotated[
        float | None,
        typer.Option(
            help="Run cells in batches of units and stop each once its headline's confidence "
            "sequence (valid at every stop) is at most this half-width, on its own scale."
        ),
    ] = None,
    until_decided: Annotated[
        bool,
        typer.Option(
            "--until-decided",
            help="Also stop a pair of subjects once their paired difference's sequence excludes 0.",
        ),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option(help="Stop the whole study before it would spend more US dollars."),
    ] = None,
    batch: BatchOption = 10,
    out: StudyOutOption = None,
) -> None:
    """Run every cell (a rerun skips finished cells and resumes unfinished ones); with
    --until-halfwidth, in batches until each cell's interval is narrow enough."""
    from normlab.study.execute import run_study
    from normlab.study.sequential import Rule

    rule = None
    if until_halfwidth is not None:
        rule = Rule(until_halfwidth, until_decided, max_cost, batch).check()
    elif until_decided or max_cost is not None:
        raise InputError("--until-halfwidth", "--until-decided and --max-cost need it")
    study = _load(study_file, out)
    if rule is not None:
        rule.check(study.systems)
    results = run_study(study, executor, ray_address, rule)
    from normlab.study.sequential.report import summarize

    summary = summarize(study)  # None unless a cell ran in batches
    if as_json:
        found = [result.model_dump() for result in results]
        print_json(
            {"cells": found, "sequential": summary.model_dump(mode="json")} if summary else found
        )
        return
    for result in results:
        state = "skipped (finished before)" if result.skipped else "finished"
        variant = f" ({result.variant})" if result.variant else ""
        say(f"{result.system}/{result.subject}{variant}: {state}, {result.samples} samples, "
            f"{result.calls} calls")  # fmt: skip
    if summary is not None:
        from normlab.study.sequential.report import sequential_blocks

        for part in sequential_blocks(summary):
            print_table(part) if not isinstance(part, str) else say(part)


@app.command("report")
@reports_errors
def report(
    study_file: StudyArgument,
    as_json: JsonOption = False,
    out: StudyOutOption = None,
) -> None:
    """Per system, the subjects ranked by the headline metric, with intervals and calls; the
    paired differences between subjects; a second judge's agreement and ranking."""
    from normlab.study.report import report_study, write_json
    from normlab.study.tables import report_blocks, write_html

    study = _load(study_file, out)
    result = report_study(study)
    folder = local_folder(study.out)
    path = write_html(result, folder)
    write_json(result, folder)
    note(f"report: {path.resolve()}")
    for label in result.missing:
        note(f"not run yet: {label}")
    if as_json:
        print_json(result)
        return
    for system in result.systems:
        for block in report_blocks(system):
            if block.table is not None:
                print_table(block.table)
            elif block.kind == "note":
                say(block.text)
    if result.sequential is not None:
        from normlab.study.sequential.report import sequential_blocks

        for part in sequential_blocks(result.sequential):
            print_table(part) if not isinstance(part, str) else say(part)


def _mde(value: float | None) -> str:
    """A detectable difference of rates above 1 is none at all: this n detects nothing."""
    if value is None:
        return "—"
    return f"{value:.3f}" if value < 1 else "none (n too small)"
