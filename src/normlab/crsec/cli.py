"""``normlab crsec …``: run | resume | analyze | report | trace | questionnaire | demo."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from inspect_ai.model import GenerateConfig, Model, get_model
from pydantic import ValidationError

from normlab.commands import (
    JsonOption,
    JudgeOption,
    MaxConnectionsOption,
    ModelOption,
    RoleOption,
    bind_roles,
    default_log_dir,
    note,
    print_json,
    print_table,
    reports_errors,
    say,
)
from normlab.core.errors import InputError, NormlabError, RunIncompleteError, at_least
from normlab.core.jsonio import validation_field
from normlab.core.outputs import output_file
from normlab.crsec.metrics import CrsecAnalysis, analyze_runs, judge_jobs, load_runs
from normlab.crsec.questionnaire import PAPER_FIGURE_4, export, import_ratings
from normlab.crsec.report import (
    counts_table,
    emergence_table,
    operations_table,
    runs_table,
    write_report,
)
from normlab.crsec.rundir import RunDir
from normlab.crsec.schemas import ABLATIONS, Ablation, RunConfig, Society
from normlab.crsec.sim import Outcome, Simulation
from normlab.crsec.society import HOBBS_CAFE, load_society, scaled_society
from normlab.crsec.trace import trace
from normlab.models import DEFAULT_MODEL, ModelClient
from normlab.report import Table, format_estimate, usage_table

crsec_app = typer.Typer(
    help="CRSEC: a society of agents in which norms are created, spread, evaluated, "
    "synthesized and obeyed, over simulated days.",
    no_args_is_help=True,
)
questionnaire_app = typer.Typer(
    help="Appendix D's human evaluation: export questionnaires, import ratings (Figure 4).",
    no_args_is_help=True,
)
crsec_app.add_typer(questionnaire_app, name="questionnaire")

ROLES = ("agent", "judge")

RunsArgument = Annotated[list[Path], typer.Argument(help="Run directories.")]
MaxCallsOption = Annotated[
    int | None, typer.Option(help="Stop cleanly at a checkpoint once this many calls were made.")
]
MaxCostOption = Annotated[
    float | None,
    typer.Option(help="Stop cleanly at a checkpoint once this many dollars were spent."),
]
ReportOption = Annotated[
    bool, typer.Option("--report/--no-report", help="Analyze and write report.html at the end.")
]


def check_budget(max_calls: int | None, max_cost: float | None) -> None:
    """A budget below what any run spends would stop every run at its first checkpoint."""
    at_least("--max-calls", max_calls, 1)
    at_least("--max-cost", max_cost, 0)


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
    if agents:
        wanted = [name.strip() for name in agents.split(",") if name.strip()]
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
        prefix = f"{folder.name}: " if len(folders) > 1 else ""
        client = model_client(config.models, max_connections)
        simulation = Simulation(run, client, lambda line: note(prefix + line))
        try:
            return folder, await simulation.run(max_calls, max_cost)
        except NormlabError:
            raise
        except Exception as error:
            raise RunIncompleteError(
                f"{folder}: stopped at {simulation.clock.label(simulation.state.tick)} by "
                f"{type(error).__name__}: {error}; the last finished tick is checkpointed: "
                f"normlab crsec resume {folder}"
            ) from error

    return list(await asyncio.gather(*(one(folder) for folder in folders)))


def simulate(
    folders: list[Path],
    max_calls: int | None,
    max_cost: float | None,
    report: bool,
    judge: str | None = None,
    max_connections: int | None = None,
) -> None:
    """Run (or resume) the runs, say how each ended, then analyze and report them."""
    outcomes = asyncio.run(_simulate(folders, max_calls, max_cost, max_connections))
    stopped = [(folder, outcome) for folder, outcome in outcomes if outcome != "finished"]
    for folder, outcome in stopped:
        if outcome == "cost unknown":
            note(
                f"{folder}: stopped: --max-cost is set but the model reports no price; "
                "use --max-calls, or a model Inspect knows the price of"
            )
        else:
            note(f"{folder}: stopped at the budget; raise it and run normlab crsec resume {folder}")
    if report:
        out = folders[0].parent if len(folders) > 1 else folders[0]
        path = write_report(analyze(folders, judge, max_connections), out)
        note(f"report: {path.resolve()}")
    if stopped:
        raise RunIncompleteError(f"{len(stopped)} run(s) stopped before the end")


def analyze(
    folders: list[Path], judge: str | None, max_connections: int | None = None
) -> CrsecAnalysis:
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


def _ablations(**flags: bool) -> list[Ablation]:
    return [name for name in ABLATIONS if flags[name]]


@crsec_app.command("run")
@reports_errors
def crsec_run(
    model: ModelOption = DEFAULT_MODEL,
    judge: JudgeOption = None,
    role: RoleOption = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Run directory (with --runs N: a folder of run-1 … run-N)."),
    ] = None,
    society: Annotated[
        Path, typer.Option(help="Society file (JSON or YAML).", show_default="Hobbs Cafe")
    ] = HOBBS_CAFE,
    runs: Annotated[int, typer.Option(help="Independent runs (seeds seed … seed+N-1).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the first run.")] = 0,
    days: Annotated[int | None, typer.Option(help="Simulated days (default: society's).")] = None,
    hours: Annotated[str | None, typer.Option(help="Active hours START-END, e.g. 8-16.")] = None,
    agents: Annotated[
        str | None, typer.Option(help="Only these agents (comma-separated names).")
    ] = None,
    tick_minutes: Annotated[int | None, typer.Option(help="Minutes per tick.")] = None,
    faithful: Annotated[
        bool, typer.Option(help="One call per operation, as the paper describes.")
    ] = False,
    no_entrepreneurs: Annotated[
        bool, typer.Option(help="Ablation: no norm entrepreneurs (no initial norms).")
    ] = False,
    no_communication: Annotated[bool, typer.Option(help="Ablation: no conversations.")] = False,
    no_observation: Annotated[
        bool, typer.Option(help="Ablation: no norms identified from thoughts.")
    ] = False,
    no_evaluation: Annotated[
        bool, typer.Option(help="Ablation: accept every identified norm.")
    ] = False,
    no_synthesis: Annotated[bool, typer.Option(help="Ablation: no long-term synthesis.")] = False,
    synthesis_trigger: Annotated[
        str, typer.Option(help="paper (utilities sum past the threshold) or counter.")
    ] = "paper",
    max_utterances: Annotated[
        int | None, typer.Option(help="Conversation length cap (default 6; faithful 10).")
    ] = None,
    classify_hint: Annotated[
        bool, typer.Option(help="The authors' code's category hint in ClassifySpecificNorms.")
    ] = False,
    max_calls: MaxCallsOption = None,
    max_cost: MaxCostOption = None,
    max_connections: MaxConnectionsOption = None,
    report: ReportOption = True,
) -> None:
    """Simulate the society; progress per simulated hour; resumable; then analyze and report."""
    at_least("--runs", runs, 1)
    check_budget(max_calls, max_cost)
    roles = bind_roles(ROLES, judge, role)
    if not role or not any(item.startswith("agent=") for item in role):
        roles["agent"] = model
    ablations = _ablations(
        no_entrepreneurs=no_entrepreneurs,
        no_communication=no_communication,
        no_observation=no_observation,
        no_evaluation=no_evaluation,
        no_synthesis=no_synthesis,
    )
    folder = out or default_log_dir("crsec", roles["agent"], roles) / (
        "+".join(ablations) or "full"
    )
    folders = [folder] if runs == 1 else [folder / f"run-{i + 1}" for i in range(runs)]
    for index, run_folder in enumerate(folders):
        config = configure(
            society,
            roles,
            seed=seed + index,
            days=days,
            hours=hours,
            agents=agents,
            tick_minutes=tick_minutes,
            faithful=faithful,
            ablations=ablations,
            synthesis_trigger=synthesis_trigger,
            max_utterances=max_utterances,
            classify_hint=classify_hint,
        )
        RunDir(run_folder).create(config)
    note(f"runs: {', '.join(str(f) for f in folders)}")
    simulate(folders, max_calls, max_cost, report, max_connections=max_connections)


@crsec_app.command("resume")
@reports_errors
def crsec_resume(
    folders: RunsArgument,
    max_calls: MaxCallsOption = None,
    max_cost: MaxCostOption = None,
    max_connections: MaxConnectionsOption = None,
    report: ReportOption = True,
) -> None:
    """Continue runs from their last checkpoint (a finished run is left as it is)."""
    check_budget(max_calls, max_cost)
    for folder in folders:
        RunDir(folder).config()
    simulate(folders, max_calls, max_cost, report, max_connections=max_connections)


def show(analysis: CrsecAnalysis) -> None:
    print_table(emergence_table(analysis))
    for group in analysis.groups:
        print_table(counts_table(group))
    print_table(runs_table(analysis))
    print_table(operations_table(analysis))
    print_table(usage_table(analysis.usage, "simulated hour"))


@crsec_app.command("analyze")
@reports_errors
def crsec_analyze(
    folders: RunsArgument,
    judge: JudgeOption = None,
    as_json: JsonOption = False,
) -> None:
    """Figure 2's measures, emergence times and final shares (judge verdicts cached per run)."""
    analysis = analyze(folders, judge)
    if as_json:
        print_json(analysis)
    else:
        show(analysis)


@crsec_app.command("report")
@reports_errors
def crsec_report(
    folders: RunsArgument,
    out: Annotated[
        Path | None, typer.Option(help="Folder for report.html (default: the first run's).")
    ] = None,
    judge: JudgeOption = None,
) -> None:
    """Write report.html: Figure 2's panels, emergence, ablations, norm databases, cost."""
    path = write_report(analyze(folders, judge), out or folders[0])
    note(f"report: {path.resolve()}")


@crsec_app.command("society")
@reports_errors
def crsec_society(
    agents: Annotated[int, typer.Option(help="How many agents the society has.")],
    out: Annotated[Path, typer.Option(help="Where the society file (JSON) goes.")],
    society: Annotated[
        Path, typer.Option(help="The society to grow or cut.", show_default="Hobbs Cafe")
    ] = HOBBS_CAFE,
) -> None:
    """A society of N agents: the file's agents, then copies of them under new surnames."""
    at_least("--agents", agents, 2)
    output_file(out, "--out")
    grown = scaled_society(load_society(society), agents)
    out.write_text(grown.model_dump_json(indent=1) + "\n", encoding="utf-8")
    note(f"{len(grown.agents)} agents: {out.resolve()}")


@crsec_app.command("trace")
@reports_errors
def crsec_trace(
    folder: Annotated[Path, typer.Argument(help="A run directory.")],
    agent: Annotated[str, typer.Option(help="The agent to follow (full name).")],
    norm: Annotated[
        str | None, typer.Option(help="Only events about this norm at stake (its id).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Figure 3's case study: one agent and one norm through the run, as a timeline."""
    entries = trace(folder, agent, norm)
    if as_json:
        print_json([entry.model_dump() for entry in entries])
        return
    for entry in entries:
        say(f"{entry.time}  {entry.kind:<12} {entry.text}")
    if not entries:
        note("nothing in this run is about that agent and norm")


@questionnaire_app.command("export")
@reports_errors
def questionnaire_export(
    folders: RunsArgument,
    out: Annotated[Path, typer.Option(help="Folder for the questionnaires and ratings.csv.")],
    pairs: Annotated[int, typer.Option(help="Pairs per task and agent.")] = 20,
    seed: Annotated[int, typer.Option(help="Seed of the random choice of pairs.")] = 0,
) -> None:
    """One questionnaire per agent and run (8 tasks, random pairs), and ratings.csv to fill."""
    at_least("--pairs", pairs, 1)
    for folder in folders:
        RunDir(folder).config()
    path, rows = export(folders, out, seed, pairs)
    note(f"{rows} questions to rate: {path.resolve()} (questionnaires beside it)")


@questionnaire_app.command("import")
@reports_errors
def questionnaire_import(
    paths: Annotated[list[Path], typer.Argument(help="Filled ratings.csv files.")],
    as_json: JsonOption = False,
) -> None:
    """Figure 4: mean rating per module and overall, with 95% bootstrap intervals and n."""
    figure = import_ratings(paths)
    if as_json:
        print_json(figure)
        return
    rows = [
        [
            module,
            format_estimate(estimate, 2, percent=False, signed=False),
            f"{PAPER_FIGURE_4[module]:.2f}",
        ]
        for module, estimate in [*figure.modules.items(), ("overall", figure.overall)]
    ]
    print_table(
        Table(
            caption=f"Figure 4: ratings on the 7-point scale ({figure.questionnaires} "
            f"questionnaires; {figure.unrated} questions left unrated)",
            header=["module", "mean [95% CI] (n)", "paper"],
            rows=rows,
        )
    )


DEMO_AGENTS = "Bob Johnson,Carlos Gomez,Tamara Rodriguez"


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
            tick_minutes=30,
            faithful=False,
            ablations=[],
            synthesis_trigger="paper",
            max_utterances=4,
            classify_hint=False,
        )
        run.create(config)
    simulate([folder], None, None, report=False)
    path = write_report(analyze([folder], None), folder)
    progress(f"report: {path.resolve()}")
    return path


@crsec_app.command("demo")
@reports_errors
def crsec_demo(
    out: Annotated[Path, typer.Option(help="Where the demo's run goes.")] = Path("runs/demo"),
) -> None:
    """CRSEC on the embedded model: three agents, two simulated hours, offline in minutes."""
    run_demo(out)


__all__ = ["crsec_app", "run_demo"]
