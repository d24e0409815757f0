"""``normlab crsec newcomer RUN --subject M``: a model joins a finished run's society.

Light at import, as the rest of ``normlab crsec``: the simulation, the analysis and the report
are imported when the command runs (``normlab.crsec.newcomer.setup``,
``normlab.crsec.newcomer.analysis``, ``normlab.crsec.newcomer.report``).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from normlab.commands.options import shared_options
from normlab.core.errors import InputError, RunIncompleteError, at_least
from normlab.core.logs import BASE_AGENT
from normlab.runs.console import note, print_json, print_table, reports_errors

if TYPE_CHECKING:
    from normlab.crsec.newcomer.analysis import NewcomerSummary
    from normlab.crsec.newcomer.setup import Newcomers

DEFAULT_HOURS = 4
"""Simulated hours after the newcomer arrives: half of the paper's 8-hour day, time for a
breach, its sanctions and a few hours that show whether the newcomer stopped."""


MAX_RUNS = 100
"""The most seeds one newcomer experiment runs (``--runs`` or as many ``--seeds``): each is a
whole continuation per arm, the control's included, so 100 is already hundreds of runs;
``--runs 1000000`` was accepted and would have planned a million folders."""
MAX_SEED = 2**31 - 1
"""The largest seed: seeds are 0 … 2³¹ − 1, the range of the seeds each call carries
(``normlab.norms.calls.call_seed``); ``--seeds -1`` was accepted and named a folder
``seed--1``."""


def parse_seeds(seeds: str | None, runs: int | None) -> list[int]:
    """``--seeds 0,1,2`` or ``--runs N`` (seeds 0 … N-1); seed 0 alone by default. At most
    ``MAX_RUNS`` of them, each in 0 … ``MAX_SEED``, else one line naming the option."""
    if seeds is not None and runs is not None:
        raise InputError("--seeds", "give --seeds or --runs, not both", field="seeds")
    if runs is not None:
        at_least("--runs", runs, 1)
        if runs > MAX_RUNS:
            raise InputError(
                "--runs", f"at most {MAX_RUNS} runs per experiment, got {runs}", field="runs"
            )
        return list(range(runs))
    if seeds is None:
        return [0]
    try:
        parsed = [int(part) for part in seeds.split(",") if part.strip()]
    except ValueError:
        raise InputError(
            "--seeds", f"{seeds!r} is not a list of integers (e.g. 0,1,2)", field="seeds"
        ) from None
    if not parsed:
        raise InputError("--seeds", "name at least one seed (e.g. 0,1,2)", field="seeds")
    outside = next((seed for seed in parsed if not 0 <= seed <= MAX_SEED), None)
    if outside is not None:
        raise InputError("--seeds", f"a seed is 0 … {MAX_SEED}, got {outside}", field="seeds")
    if len(parsed) > MAX_RUNS:
        raise InputError(
            "--seeds", f"at most {MAX_RUNS} seeds per experiment, got {len(parsed)}", field="seeds"
        )
    repeated = next((seed for seed in parsed if parsed.count(seed) > 1), None)
    if repeated is not None:
        # Quietly running it once would report fewer runs than the command line asked for.
        raise InputError(
            "--seeds", f"seed {repeated} is given twice: name each seed once", field="seeds"
        )
    return parsed


def join(
    request: Newcomers,
    judge: str | None = None,
    max_connections: int | None = None,
    max_calls: int | None = None,
) -> tuple[NewcomerSummary, Path, list[Path]]:
    """Make or find every run the request names (each agent and the control, with and without
    communication, each seed), run each to its end or its budget, measure them, and write
    ``newcomer_summary.json`` and the CRSEC report with its Newcomer section; the runs that
    stopped at their budget."""
    from normlab.crsec.newcomer.setup import finished_source, hours_done, plan
    from normlab.crsec.runner import measure_newcomers, simulate_runs
    from normlab.models import DEFAULT_MODEL

    config, _ = finished_source(request.source)
    judge_model = judge or config.models.get("judge", DEFAULT_MODEL)
    folders = plan(request)
    note(f"newcomer runs: {', '.join(str(folder) for folder in folders)}")
    stopped = simulate_runs(folders, max_calls, None, max_connections)
    if stopped and not any(hours_done(folder) for folder in folders):
        raise RunIncompleteError(
            f"{len(stopped)} run(s) stopped at their budget before their first hour was over: "
            "nothing to measure yet; give the same command again with a larger --max-calls"
        )
    summary, path = measure_newcomers(request.out, folders, judge_model, max_connections)
    return summary, path, stopped


@reports_errors
@shared_options
def newcomer_command(
    run: Annotated[Path, typer.Argument(help="A finished run directory (it is only read).")],
    *,
    subject: Annotated[str, typer.Option(help="The newcomer's model (any Inspect model).")],
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            help="base (the model alone, no norm database) or norm-memory (an empty personal "
            "norm database, as the society's agents keep); repeat to run both, paired.",
            show_default="base",
        ),
    ] = None,
    hours: Annotated[
        int, typer.Option(help="Simulated hours after the newcomer arrives.")
    ] = DEFAULT_HOURS,
    seeds: Annotated[
        str | None, typer.Option(help="Seeds of the continuation, e.g. 0,1,2 (default 0).")
    ] = None,
    runs: Annotated[int | None, typer.Option(help="Seeds 0 … N-1 (instead of --seeds).")] = None,
    model: Annotated[
        str | None,
        typer.Option("--model", help="The society's agents' model.", show_default="the run's"),
    ] = None,
    like: Annotated[
        str | None,
        typer.Option(
            help="The society agent the newcomer is a copy of (under a new name).",
            show_default="the one against most norms at stake",
        ),
    ] = None,
    occasion: Annotated[
        str | None,
        typer.Option(
            help="What the newcomer does every hour, after its name (e.g. 'feels like smoking "
            "a cigarette'): the same opportunity to breach a norm each hour.",
            show_default="the society file's occasion of each norm its template is against",
        ),
    ] = None,
    no_communication: Annotated[
        bool,
        typer.Option(
            "--no-communication",
            help="Also run every arm with conversations off (the no_communication ablation, "
            "from the same checkpoint and seeds): a newcomer that meets no sanction.",
        ),
    ] = False,
    max_calls: Annotated[
        int | None,
        typer.Option(
            help="Stop each run cleanly at a checkpoint once it made this many calls since the "
            "arrival (kept for resume: the same command, or normlab crsec resume FOLDER)."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            help="Folder of the newcomer runs, their summary and report.html "
            "(default: RUN-newcomer beside the run); the same command resumes it."
        ),
    ] = None,
    judge: str | None,
    max_connections: int | None,
    as_json: bool,
) -> None:
    """A model joins a finished run's society: time to adoption from its own compliance
    verdicts, conflicts, sanctions, the norms it holds and the society's drift corrected by a
    continuation without it; base model and norm-memory agent paired by seed."""
    from normlab.agents import resolve_agent
    from normlab.crsec.newcomer.report import newcomer_tables
    from normlab.crsec.newcomer.setup import check_hours, finished_source
    from normlab.models import DEFAULT_MODEL
    from normlab.models.preflight import check_models

    at_least("--max-calls", max_calls, 1)
    agents = [resolve_agent(name) for name in dict.fromkeys(agent or [BASE_AGENT])]
    chosen = parse_seeds(seeds, runs)
    config, _ = finished_source(run)
    check_hours(config, hours)
    check_models(
        {
            "--subject": subject,
            "--model": model or config.models["agent"],
            "--judge": judge or config.models.get("judge", DEFAULT_MODEL),
        }
    )
    folder = out or run.resolve().with_name(f"{run.resolve().name}-newcomer")
    from normlab.crsec.newcomer.setup import Newcomers

    request = Newcomers(
        run, folder, subject, agents, chosen, hours, like, model, no_communication, occasion
    )
    summary, path, stopped = join(request, judge, max_connections, max_calls)
    if as_json:
        print_json(summary)
    else:
        for table in newcomer_tables(summary):
            print_table(table)
    note(f"report: {path.resolve()}")
    if stopped:
        raise RunIncompleteError(
            f"{len(stopped)} run(s) stopped at their budget; give the same command again with "
            "a larger --max-calls to go on"
        )
