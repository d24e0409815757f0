"""``normlab crsec …``: run | resume | analyze | report | trace | questionnaire | demo.

Light at import (``normlab crsec --help`` answers at once): each command imports what it
needs when it runs.
"""

from __future__ import annotations

from inspect import Parameter
from pathlib import Path
from typing import Annotated

import typer

from normlab.commands.options import JsonOption, option_group, option_parameter, shared_options
from normlab.core.errors import at_least
from normlab.core.outputs import apart_from_inputs, output_file, replace_file
from normlab.crsec.export.cli import export_command
from normlab.crsec.newcomer.cli import newcomer_command
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import ABLATIONS, Ablation
from normlab.crsec.sim.society import HOBBS_CAFE, load_society, scaled_society
from normlab.models import DEFAULT_MODEL, bind_roles
from normlab.models.preflight import check_models
from normlab.runs.console import note, print_json, reports_errors, say
from normlab.runs.folders import default_log_dir, roles_line

app = typer.Typer(no_args_is_help=True)
questionnaire_app = typer.Typer(
    help="Appendix D's human evaluation: export questionnaires, import ratings (Figure 4).",
    no_args_is_help=True,
)
app.add_typer(questionnaire_app, name="questionnaire")
app.command("export")(export_command)

ROLES = ("agent", "judge")

RunArgument = Annotated[Path, typer.Argument(help="A run directory.")]
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
SynthesisTriggerOption = Annotated[
    str,
    typer.Option(
        help="'paper' (the sum of qualified utilities past the society's threshold, 350 in "
        "Hobbs Cafe) or 'counter' (the authors' code's counter)."
    ),
]
MaxUtterancesOption = Annotated[
    int | None, typer.Option(help="Conversation length cap (default 6; faithful 10).")
]


def check_budget(max_calls: int | None, max_cost: float | None) -> None:
    """A budget below what any run spends would stop every run at its first checkpoint."""
    at_least("--max-calls", max_calls, 1)
    at_least("--max-cost", max_cost, 0)


ABLATION_EFFECTS: dict[Ablation, str] = {
    "no_entrepreneurs": "no norm entrepreneurs (no initial norms).",
    "no_communication": "no conversations.",
    "no_observation": "no norms identified from thoughts.",
    "no_evaluation": "accept every identified norm.",
    "no_synthesis": "no long-term synthesis.",
}
"""What each of the simulation's ablations switches off: the help of its flag."""


def _ablation(name: Ablation) -> Parameter:
    """The flag ``--no-…`` that switches one part of the model off (no ``--…`` to switch it
    back on: every part is on unless its flag is given)."""
    flag = typer.Option(f"--{name.replace('_', '-')}", help=f"Ablation: {ABLATION_EFFECTS[name]}")
    return option_parameter(name, Annotated[bool, flag], False)


def _ablations(**flags: bool) -> list[Ablation]:
    return [name for name in ABLATIONS if flags[name]]


with_ablations = option_group("ablations", [_ablation(name) for name in ABLATIONS], _ablations)
"""A command's ``ablations`` as one flag per ablation of the simulation (``ABLATIONS``, in
its order), each off unless given."""


@app.command("run")
@reports_errors
@with_ablations
@shared_options
def crsec_run(
    *,
    model: Annotated[
        str,
        typer.Option("--model", "-m", help="Every agent's model (any Inspect model string)."),
    ] = DEFAULT_MODEL,
    judge: str | None,
    role: list[str] | None,
    out: Annotated[
        Path | None,
        typer.Option(help="Run directory (with --runs N: a folder of run-1 … run-N)."),
    ] = None,
    society: Annotated[
        Path, typer.Option(help="Society file (JSON or YAML).", show_default="Hobbs Cafe")
    ] = HOBBS_CAFE,
    runs: Annotated[int, typer.Option(help="Independent runs (seeds seed … seed+N-1).")] = 1,
    seed: Annotated[int, typer.Option(help="Seed of the first run.")] = 0,
    days: Annotated[
        int | None, typer.Option(help="Simulated days (default: the society's; Hobbs Cafe: 2).")
    ] = None,
    hours: Annotated[
        str | None,
        typer.Option(help="Active hours START-END (default: the society's; Hobbs Cafe: 8-16)."),
    ] = None,
    agents: Annotated[
        str | None, typer.Option(help="Only these agents (comma-separated names).")
    ] = None,
    tick_minutes: Annotated[
        int | None, typer.Option(help="Minutes per tick (default: the society's; Hobbs Cafe: 5).")
    ] = None,
    faithful: Annotated[
        bool, typer.Option(help="One call per operation, as the paper describes.")
    ] = False,
    ablations: list[Ablation],
    synthesis_trigger: SynthesisTriggerOption = "paper",
    max_utterances: MaxUtterancesOption = None,
    classify_hint: Annotated[
        bool,
        typer.Option(
            help="The authors' code's steer in ClassifySpecificNorms (smoking-, noise-, "
            "tip-related; Fig. 15)."
        ),
    ] = False,
    max_calls: MaxCallsOption = None,
    max_cost: MaxCostOption = None,
    max_connections: int | None,
    report: ReportOption = True,
) -> None:
    """Simulate the society; progress per simulated hour; resumable; then analyze and report."""
    from normlab.crsec.runner import configure, simulate

    at_least("--runs", runs, 1)
    check_budget(max_calls, max_cost)
    roles = bind_roles(ROLES, judge, role)
    if not role or not any(item.startswith("agent=") for item in role):
        roles["agent"] = model
    folder = out or default_log_dir("crsec", roles["agent"], roles) / (
        "+".join(ablations) or "full"
    )
    folders = [folder] if runs == 1 else [folder / f"run-{i + 1}" for i in range(runs)]
    check_models({f"--role {name}": used for name, used in roles.items()})
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
    others = {name: used for name, used in roles.items() if name != "agent"}
    for line in roles_line(roles["agent"], others, subject="agent"):
        note(line)
    note(f"runs: {', '.join(str(f) for f in folders)}")
    simulate(folders, max_calls, max_cost, report, max_connections=max_connections)


@app.command("resume")
@reports_errors
@shared_options
def crsec_resume(
    folders: RunsArgument,
    *,
    max_calls: MaxCallsOption = None,
    max_cost: MaxCostOption = None,
    max_connections: int | None,
    report: ReportOption = True,
) -> None:
    """Continue runs from their last checkpoint (a finished run is left as it is); a newcomer
    run (crsec newcomer) goes on as one, its --max-calls counting its calls since the arrival,
    and its report is its experiment's; a newcomer experiment's folder (its --out) resumes
    every run in it."""
    from normlab.crsec.runner import run_folders, simulate

    check_budget(max_calls, max_cost)
    folders = run_folders(folders)
    for folder in folders:
        models = RunDir(folder).config().models
        check_models({f"{folder}: {name}": used for name, used in models.items()})
    simulate(folders, max_calls, max_cost, report, max_connections=max_connections)


@app.command("analyze")
@reports_errors
@shared_options
def crsec_analyze(folders: RunsArgument, *, judge: str | None, as_json: bool) -> None:
    """Figure 2's measures, emergence times and final shares (judge verdicts cached per run)."""
    from normlab.crsec.runner import analyze, show

    analysis = analyze(folders, judge)
    if as_json:
        print_json(analysis)
    else:
        show(analysis)


@app.command("report")
@reports_errors
@shared_options
def crsec_report(
    folders: RunsArgument,
    *,
    out: Annotated[
        Path | None, typer.Option(help="Folder for report.html (default: the first run's).")
    ] = None,
    judge: str | None,
) -> None:
    """Write report.html: Figure 2's panels, emergence, ablations, norm databases, cost."""
    from normlab.crsec.analysis.report import write_report
    from normlab.crsec.runner import analyze

    path = write_report(analyze(folders, judge), out or folders[0])
    note(f"report: {path.resolve()}")


@app.command("society")
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
    apart_from_inputs(out, [society])
    output_file(out, "--out")
    grown = scaled_society(load_society(society), agents)
    replace_file(out, grown.model_dump_json(indent=1) + "\n")
    note(f"{len(grown.agents)} agents: {out.resolve()}")


@app.command("trace")
@reports_errors
def crsec_trace(
    folder: RunArgument,
    agent: Annotated[str, typer.Option(help="The agent to follow (full name).")],
    norm: Annotated[
        str | None, typer.Option(help="Only events about this norm at stake (its id).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Figure 3's case study: one agent and one norm through the run, as a timeline."""
    from normlab.crsec.analysis.trace import trace

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
    from normlab.crsec.analysis.questionnaire import write_questionnaires

    at_least("--pairs", pairs, 1)
    apart_from_inputs(out, folders)
    for folder in folders:
        RunDir(folder).config()
    path, rows = write_questionnaires(folders, out, seed, pairs)
    note(f"{rows} questions to rate: {path.resolve()} (questionnaires beside it)")


@questionnaire_app.command("import")
@reports_errors
def questionnaire_import(
    paths: Annotated[list[Path], typer.Argument(help="Filled ratings.csv files.")],
    as_json: JsonOption = False,
) -> None:
    """Figure 4: mean rating per module and overall, with 95% bootstrap intervals and n."""
    from normlab.crsec.analysis.questionnaire import PAPER_FIGURE_4, import_ratings
    from normlab.report import Table, format_estimate
    from normlab.runs.console import print_table

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


@app.command("demo")
@reports_errors
def crsec_demo(
    out: Annotated[Path, typer.Option(help="Where the demo's run goes.")] = Path("runs/demo"),
) -> None:
    """CRSEC on the embedded model: two agents, two simulated hours, offline in minutes."""
    from normlab.crsec.runner import run_demo

    run_demo(out)


# Last in the group's help, as before the command moved to its own module.
app.command("newcomer")(newcomer_command)
