"""CRSEC run by normlab: a run's configuration, simulating runs to their end, the analysis
with its judge, the tables, the demo.

The command line (``cli.py``) calls these; they import Inspect and the report's matplotlib,
so the command line imports this module only when a command runs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, Model, get_model
from pydantic import ValidationError

from normlab.core.errors import InputError, RunIncompleteError
from normlab.core.jsonio import validation_field
from normlab.core.outputs import replace_file
from normlab.core.progress import bars, on_terminal
from normlab.crsec.analysis.figure2 import CrsecAnalysis, analyze_runs, judge_jobs, load_runs
from normlab.crsec.analysis.report import (
    counts_table,
    emergence_table,
    operations_table,
    runs_table,
    write_report,
)
from normlab.crsec.newcomer.analysis import NewcomerSummary, analyze_newcomers
from normlab.crsec.newcomer.report import NewcomerSection
from normlab.crsec.newcomer.setup import joined, newcomer_folders, read_setup
from normlab.crsec.sim.loop import Outcome, Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import Ablation, RunConfig, Society
from normlab.crsec.sim.society import HOBBS_CAFE, load_society
from normlab.models import DEFAULT_MODEL, ModelClient
from normlab.report import usage_table
from normlab.runs import note, print_table


def model_client(models: dict[str, str], max_connections: int | None = None) -> ModelClient:
    """A client for the roles' models; ``max_connections`` calls at once per model (default:
    the provider's own limit, or Inspect's adaptive one)."""
    config = GenerateConfig(max_connections=max_connections)
    resolved: dict[str, Model] = {}

    def model(role: str) -> Model:
        if role not in resolved:
            resolved[role] = get_model(models[role], config=config)
        return resolved[role]

    return ModelClient(model)


def _hours(text: str | None, society: Society) -> tuple[int, int]:
    if text is None:
        return society.active_hours
    try:
        start, end = (int(part) for part in text.split("-"))
    except ValueError:
        raise InputError(
            "--hours", f"{text!r} is not START-END (e.g. 8-16)", field="hours"
        ) from None
    return start, end


def configure(
    society_file: Path,
    models: dict[str, str],
    *,
    seed: int,
    days: int | None,
    hours: str | None,
    agents: str | None,
    tick_minutes: int | None,
    faithful: bool,
    ablations: list[Ablation],
    synthesis_trigger: str,
    max_utterances: int | None,
    classify_hint: bool,
) -> RunConfig:
    """A run's config: the society file with the command line's overrides applied."""
    society = load_society(society_file)
    changes: dict[str, Any] = {"active_hours": _hours(hours, society)}
    if days is not None:
        changes["days"] = days
    if tick_minutes is not None:
        changes["tick_minutes"] = tick_minutes
    if agents is not None:
        wanted = [name.strip() for name in agents.split(",") if name.strip()]
        if len(set(wanted)) < 2:
            raise InputError(
                "--agents",
                f"name at least two agents of {society_file.name} (comma-separated)",
                field="agents",
            )
        known = {agent.name for agent in society.agents}
        unknown = [name for name in wanted if name not in known]
        if unknown:
            raise InputError(
                "--agents", f"{unknown[0]!r} is not in {society_file.name}", field="agents"
            )
        changes["agents"] = [agent for agent in society.agents if agent.name in wanted]
    if synthesis_trigger not in ("paper", "counter"):
        raise InputError(
            "--synthesis-trigger", "choose paper or counter", field="synthesis_trigger"
        )
    # Both validate command-line values (--days, --max-utterances…): one line, never a traceback.
    try:
        return RunConfig(
            society=Society.model_validate({**society.model_dump(), **changes}),
            society_file=str(society_file),
            seed=seed,
            models=models,
            faithful=faithful,
            ablations=ablations,
            synthesis_trigger="paper" if synthesis_trigger == "paper" else "counter",
            max_utterances=(10 if faithful else 6) if max_utterances is None else max_utterances,
            classify_hint=classify_hint,
        )
    except ValidationError as error:
        where, problem = validation_field(error)
        raise InputError("options", problem, field=where or None) from None


async def _simulate(
    folders: list[Path],
    max_calls: int | None,
    max_cost: float | None,
    max_connections: int | None,
) -> list[tuple[Path, Outcome]]:
    async def one(folder: Path) -> tuple[Path, Outcome]:
        run = RunDir(folder)
        config = run.config()
        budget = run.budget().raised(max_calls, max_cost)
        run.save_budget(budget)
        setup = read_setup(folder)
        prefix = f"{folder.name}: " if len(folders) > 1 else ""
        if setup is not None:
            prefix = f"{setup.label} seed {setup.seed}: "
        client = model_client(config.models, max_connections)
        simulation = Simulation(
            run, client, lambda line: note(prefix + line), tick_lines=not on_terminal()
        )
        label = prefix.rstrip(": ") or folder.name
        simulation.on_tick = shown.add(label, simulation.end_tick, simulation.state.tick)
        if setup is not None:
            # A newcomer run (crsec newcomer) goes on as one: its end, roles and budget.
            joined(simulation, setup)
        go_on = f"normlab crsec resume {folder}"
        return folder, await simulation.run_or_stop(go_on, budget.max_calls, budget.max_cost)

    with bars() as shown:
        return list(await asyncio.gather(*(one(folder) for folder in folders)))


def run_folders(folders: list[Path]) -> list[Path]:
    """The runs ``folders`` name: a run folder itself, and for the ``--out`` folder of a
    newcomer experiment (``crsec newcomer``: no run of its own, its runs in ``ARM/seed-S``)
    every run in it, so that ``crsec resume OUT`` goes on with the whole experiment."""
    found: list[Path] = []
    for folder in folders:
        runs = [] if RunDir(folder).exists() else newcomer_folders(folder)
        found += runs or [folder]
    return list(dict.fromkeys(found))


def simulate_runs(
    folders: list[Path],
    max_calls: int | None,
    max_cost: float | None,
    max_connections: int | None = None,
) -> list[Path]:
    """Run (or resume) the runs, plain or newcomer runs; say how each that stopped early
    ended; those folders. A budget of a newcomer run counts its calls since the arrival."""
    outcomes = asyncio.run(_simulate(folders, max_calls, max_cost, max_connections))
    stopped = [(folder, outcome) for folder, outcome in outcomes if outcome != "finished"]
    for folder, outcome in stopped:
        if outcome == "cost unknown":
            note(
                f"{folder}: stopped: --max-cost is set but the model reports no price; "
                "use --max-calls, or a model Inspect knows the price of"
            )
        else:
            budget = RunDir(folder).budget().describe()
            # A newcomer run goes on with its whole experiment, which its report measures.
            whole = folder.parent.parent if read_setup(folder) is not None else folder
            note(
                f"{folder}: stopped at its budget ({budget}, kept for resume); to go on, raise "
                f"it: normlab crsec resume {whole} --max-calls N"
            )
    return [folder for folder, _ in stopped]


def simulate(
    folders: list[Path],
    max_calls: int | None,
    max_cost: float | None,
    report: bool,
    judge: str | None = None,
    max_connections: int | None = None,
) -> None:
    """Run (or resume) the runs, say how each ended, then analyze and report them: plain runs
    together, newcomer runs with every run of their experiment (``measure_newcomers``)."""
    stopped = simulate_runs(folders, max_calls, max_cost, max_connections)
    if report:
        plain = [folder for folder in folders if read_setup(folder) is None]
        if plain:
            out = plain[0].parent if len(plain) > 1 else plain[0]
            path = write_report(analyze(plain, judge, max_connections), out)
            note(f"report: {path.resolve()}")
        experiments = {folder.parent.parent for folder in folders if folder not in plain}
        for out in sorted(experiments):
            _, path = measure_newcomers(out, newcomer_folders(out), judge, max_connections)
            note(f"report: {path.resolve()}")
    if stopped:
        raise RunIncompleteError(f"{len(stopped)} run(s) stopped before the end")


NEWCOMER_SUMMARY = "newcomer_summary.json"


def measure_newcomers(
    out: Path, folders: list[Path], judge: str | None, max_connections: int | None = None
) -> tuple[NewcomerSummary, Path]:
    """Measure newcomer runs of one experiment (``out``: their folder, where the judge's
    verdicts are cached): ``newcomer_summary.json`` and the CRSEC report with its Newcomer
    section."""
    model = judge or RunDir(folders[0]).config().models.get("judge", DEFAULT_MODEL)
    done = 0

    def progress() -> None:
        nonlocal done
        done += 1
        if done % 50 == 0:
            note(f"judge: {done} verdicts")

    client = model_client({"judge": model}, max_connections)
    summary, analysis = asyncio.run(analyze_newcomers(folders, client, model, out, progress))
    replace_file(out / NEWCOMER_SUMMARY, summary.model_dump_json(indent=1) + "\n")
    return summary, write_report(analysis, out, NewcomerSection(summary))


def analyze(
    folders: list[Path], judge: str | None, max_connections: int | None = None
) -> CrsecAnalysis:
    """Figure 2's measures of the run folders: the judge (``judge``, else the one each run
    named) reads every agent's norms, plans and actions once; its verdicts are cached in the
    run folder, so analysing again asks nothing new."""
    loaded = load_runs(folders)
    model = judge or loaded[0].config.models.get("judge", DEFAULT_MODEL)
    needed = judge_jobs(loaded)
    done = 0

    def progress() -> None:
        nonlocal done
        done += 1
        if done % 50 == 0 or done == needed:
            note(f"judge: {done}/{needed} verdicts")

    client = model_client({"judge": model}, max_connections)
    return asyncio.run(analyze_runs(loaded, client, model, progress))


def show(analysis: CrsecAnalysis) -> None:
    print_table(emergence_table(analysis))
    for group in analysis.groups:
        print_table(counts_table(group))
    print_table(runs_table(analysis))
    print_table(operations_table(analysis))
    print_table(usage_table(analysis.usage, "simulated hour"))


DEMO_AGENTS = "Bob Johnson,Tamara Rodriguez"


def run_demo(out: Path, progress: Callable[[str], None] = note) -> Path:
    """A few agents for a couple of simulated hours on the embedded model, then the report."""
    folder = out / "crsec"
    run = RunDir(folder)
    if not run.exists():
        config = configure(
            HOBBS_CAFE,
            {"agent": DEFAULT_MODEL, "judge": DEFAULT_MODEL},
            seed=0,
            days=1,
            hours="9-11",
            agents=DEMO_AGENTS,
            tick_minutes=60,
            faithful=False,
            ablations=[],
            synthesis_trigger="paper",
            max_utterances=2,
            classify_hint=False,
        )
        run.create(config)
    simulate([folder], None, None, report=False)
    path = write_report(analyze([folder], None), folder)
    progress(f"report: {path.resolve()}")
    return path
