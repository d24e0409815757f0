"""``normlab hsii …``: run, analyze, report; the data program (validate, cut, generate);
COT complexity (cot); dataset clusters (clusters); a person answering cases (play); people
grading the judge's comparisons (grade export, grade import); demo.

Light at import (``normlab hsii --help`` answers at once): each command imports what it
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
    LogDirOption,
    MaxTokensOption,
    ModelOption,
    PathsArgument,
    ReasoningEffortOption,
    RoleOption,
    role_settings,
)
from normlab.commands.reading import export_logs, import_command
from normlab.commands.running import Flag, RunCommand, add_run_command
from normlab.core.errors import InputError, at_least
from normlab.core.outputs import apart_from_inputs, output_folder, replace_bytes, replace_file
from normlab.core.storage import log_paths
from normlab.hsii.bank.cli import add_build_commands
from normlab.hsii.curation.cli import add_curation_commands
from normlab.hsii.defaults import DEMO_EPSILON, DEMO_LIMIT, EPSILON, ROLES
from normlab.hsii.rules import FORMULAS, Formula
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import note, print_json, report_findings, reports_errors, say
from normlab.runs.folders import default_log_dir

if TYPE_CHECKING:
    from collections.abc import Iterator

    from normlab.hsii.analysis import Weights
    from normlab.hsii.audit import GradingResult
    from normlab.hsii.schemas import Case

app = typer.Typer(no_args_is_help=True)

add_build_commands(app)

grade_app = typer.Typer(
    help="Human grading of the judge's pairwise comparisons (r3, r4).", no_args_is_help=True
)
app.add_typer(grade_app, name="grade")

FormulaOption = Annotated[
    str,
    typer.Option(
        help="Headline score form: 'table' (every row of Table 1) or 'printed' (Eq. 1 as printed)."
    ),
]
TieWeightOption = Annotated[
    float, typer.Option(help="What a tie is worth in r3 and r4 (ToolEval: 0).")
]
ReadTieWeightOption = Annotated[
    float | None,
    typer.Option(
        "--tie-weight",
        help="What a tie is worth in r3 and r4 (default: what the run scored it with).",
    ),
]
AlphaOption = Annotated[float, typer.Option(help="α of the HSII score.")]
BetaOption = Annotated[float, typer.Option(help="β of the HSII score.")]
GammaOption = Annotated[float, typer.Option(help="γ of the HSII score.")]


def weights(
    formula: str, tie_weight: float | None, alpha: float, beta: float, gamma: float
) -> Weights:
    from normlab.hsii.analysis import Weights

    if formula not in FORMULAS:
        raise InputError("--formula", f"choose one of {', '.join(FORMULAS)}", field="formula")
    if tie_weight is not None and not 0.0 <= tie_weight <= 1.0:
        raise InputError("--tie-weight", "must lie between 0 and 1", field="tie_weight")
    chosen: Formula = "table" if formula == "table" else "printed"
    return Weights(alpha=alpha, beta=beta, gamma=gamma, tie_weight=tie_weight, formula=chosen)


@app.command("analyze")
@reports_errors
def hsii_analyze(
    paths: PathsArgument,
    formula: FormulaOption = "table",
    tie_weight: ReadTieWeightOption = None,
    alpha: AlphaOption = 1.0,
    beta: BetaOption = 1.0,
    gamma: GammaOption = 1.0,
    as_json: JsonOption = False,
) -> None:
    """r1–r4 and the HSII score (both forms) with intervals, from logs or trial records."""
    from normlab.hsii.analysis import analyze, load_analyzable
    from normlab.hsii.report import breakdown_table
    from normlab.hsii.runner import BENCHMARK
    from normlab.runs.benchmark import emit
    from normlab.runs.console import print_table

    run = load_analyzable(log_paths(paths))
    analysis = analyze(run, weights(formula, tie_weight, alpha, beta, gamma))
    emit(BENCHMARK, run, analysis, as_json)
    if not as_json:
        for model in analysis.models.values():
            if model.by_domain:
                print_table(breakdown_table(analysis, "domain"))
                break


@app.command("report")
@reports_errors
def hsii_report(
    paths: PathsArgument,
    out: Annotated[Path, typer.Option(help="Folder for report.html.")] = Path("."),
    formula: FormulaOption = "table",
    tie_weight: ReadTieWeightOption = None,
) -> None:
    """Write report.html: Tables 1 and 2, Figures 3 and 5, sample cases, usage and cost."""
    from normlab.hsii.analysis import analyze, load_analyzable
    from normlab.hsii.report import write_report

    output_folder(out, "--out")
    run = load_analyzable(log_paths(paths))
    path = write_report(run, analyze(run, weights(formula, tie_weight, 1.0, 1.0, 1.0)), out)
    note(f"report: {path.resolve()}")


CasesOption = Annotated[
    str | None,
    typer.Option("--cases", metavar="PATH|URL", help="Case JSONL file or folder, or its URL."),
]
LimitOption = Annotated[
    int | None, typer.Option(help="Only N cases, drawn across dialogues (one of each in turn).")
]
CaseOption = Annotated[list[str] | None, typer.Option("--case", help="Case id (repeatable).")]


add_run_command(
    app,
    RunCommand(
        "normlab.hsii.task:hsii",
        "normlab.hsii.runner:BENCHMARK",
        "Run HSII (or resume an interrupted run): r1–r4, the HSII score, the report.",
        flags={"cases": Flag(("--cases",), path=True), "case_ids": Flag(("--case",))},
    ),
)


@app.command("validate")
@reports_errors
def hsii_validate(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Dialogue or case JSONL files or folders (default: shipped)."),
    ] = None,
    news: Annotated[
        Path | None, typer.Option(help="Seed news, to check for copied runs (default: shipped).")
    ] = None,
) -> None:
    """Lint dialogues and cases: exit 0 when clean, 1 with one line per finding, 2 if unreadable.
    Fields a row carries beside a dialogue's or case's are kept as metadata, listed per file."""
    from normlab.core.fields import MetadataTally
    from normlab.hsii.dataset import CASES_PATH, DIALOGUES_PATH, NEWS_PATH
    from normlab.hsii.lint import lint_paths

    metadata = MetadataTally()
    rows, findings = lint_paths(paths or [DIALOGUES_PATH, CASES_PATH], news or NEWS_PATH, metadata)
    report_findings(findings, f"clean: {rows} rows", metadata)


@app.command("cut")
@reports_errors
def hsii_cut(
    dialogues: Annotated[Path, typer.Argument(help="Dialogue JSONL file or folder.")],
    out: Annotated[Path, typer.Option(help="Case JSONL to write.")] = Path("cases.jsonl"),
) -> None:
    """Cut dialogues into cases at assistant turns (≥ 2 prior messages, one addressee)."""
    from normlab.core.jsonio import write_jsonl
    from normlab.hsii.dataset import cuts, load_dialogues

    apart_from_inputs(out, [dialogues])
    written = 0

    def cases() -> Iterator[Case]:
        """Each case as it is written: each holds its history, so one at a time."""
        nonlocal written
        for dialogue in load_dialogues(dialogues):
            for case in cuts(dialogue):
                written += 1
                yield case

    write_jsonl(out, cases())
    say(f"{written} cases: {out.resolve()}")


@app.command("card")
@reports_errors
def hsii_card(
    out: Annotated[Path | None, typer.Option(help="Where to write (default: print).")] = None,
) -> None:
    """The bank's dataset card: counts per domain, characters, history lengths, transitions."""
    from normlab.hsii.bank.card import render_card
    from normlab.hsii.dataset import load_cases, load_dialogues, load_news

    card = render_card(load_news(), load_dialogues(), load_cases())
    if out is None:
        say(card)
    else:
        replace_file(out, card)
        say(f"dataset card: {out.resolve()}")


@app.command("generate")
@reports_errors
def hsii_generate(
    model: ModelOption = DEFAULT_MODEL,
    news: Annotated[
        Path | None, typer.Option(help="Seed news JSONL.", show_default="shipped")
    ] = None,
    limit: Annotated[int | None, typer.Option(help="Only the first N paragraphs.")] = None,
    repairs: Annotated[int, typer.Option(help="Repair rounds per stage.")] = 1,
    out: Annotated[Path, typer.Option(help="Dialogue JSONL, appended to.")] = Path(
        "hsii_dialogues.jsonl"
    ),
    cases_out: Annotated[Path | None, typer.Option(help="Case JSONL (default: beside).")] = None,
) -> None:
    """Scene from news (Prompt-1), dialogue from scene (Prompt-2), linted, repaired, cut."""
    at_least("--repairs", repairs, 0)
    from inspect_ai.model import get_model

    from normlab.commands.generation import write_generated
    from normlab.core.jsonio import write_jsonl
    from normlab.hsii.bank.generator import generate_dialogue
    from normlab.hsii.dataset import NEWS_PATH, cut_dialogues, load_dialogues, load_news
    from normlab.models.preflight import check_models

    target = cases_out or out.with_name(f"{out.stem}_cases.jsonl")
    apart_from_inputs(out, [news])
    # The cases are cut from --out: written onto it, they would replace the dialogues.
    apart_from_inputs(target, [news, out], "--cases-out")
    paragraphs = load_news(news or NEWS_PATH)
    if limit is not None:
        if limit < 1:
            raise InputError("--limit", "must be at least 1", field="limit")
        paragraphs = paragraphs[:limit]
    check_models({"--model": model})
    generator = get_model(model, role="generator")
    try:
        write_generated(
            paragraphs,
            lambda paragraph: generate_dialogue(generator, paragraph, repairs),
            generator,
            out,
            "generating HSII dialogues",
        )
    finally:
        if out.exists():
            cases = cut_dialogues(load_dialogues(out))
            write_jsonl(target, cases)
            say(f"{len(cases)} cases: {target.resolve()}")


@app.command("cot")
@reports_errors
def hsii_cot_command(
    model: ModelOption = DEFAULT_MODEL,
    cases: CasesOption = None,
    case: CaseOption = None,
    limit: LimitOption = None,
    cot: Annotated[
        list[str] | None, typer.Option("--cot", help="COT id (repeatable; default: all).")
    ] = None,
    cap: Annotated[int, typer.Option(help="N∞: rounds before unsolved (paper: 128).")] = 128,
    max_tokens: MaxTokensOption = None,
    reasoning_effort: ReasoningEffortOption = None,
    log_dir: LogDirOption = None,
    as_json: JsonOption = False,
) -> None:
    """COT complexity (Table 2): rounds of guided reflection until the target is right."""
    from normlab.core.evalrun import run_task
    from normlab.core.logs import read_samples
    from normlab.hsii.analysis import HsiiAnalysis
    from normlab.hsii.cot import cot_results
    from normlab.hsii.report import table_two
    from normlab.hsii.task import hsii_cot
    from normlab.runs import stdout_to_stderr
    from normlab.runs.console import print_table

    settings = role_settings(max_tokens, reasoning_effort, ROLES)
    task = hsii_cot(
        cases=str(cases) if cases else None,
        case_ids=case,
        limit=limit,
        cots=cot,
        cap=cap,
        max_tokens=settings.max_tokens,
        reasoning_effort=dict(settings.reasoning_effort),
    )
    folder = log_dir or default_log_dir("hsii_cot", model, {}) / f"cap-{cap}"
    with stdout_to_stderr(as_json):
        logs = run_task(task, folder, model, {})
    analysis = HsiiAnalysis(models={}, cot=cot_results(read_samples(logs)))
    if as_json:
        print_json({"cot": {k: v.model_dump(mode="json") for k, v in analysis.cot.items()}})
    else:
        print_table(table_two(analysis))
    note(f"logs: {folder.resolve()} (cap {cap}; add them to 'hsii report' for Table 2)")


@app.command("clusters")
@reports_errors
def hsii_clusters(
    cases: CasesOption = None,
    encoder: Annotated[
        str, typer.Option(help="'minilm' (offline all-MiniLM-L6-v2), 'tfidf', or a model folder.")
    ] = "minilm",
    eps: Annotated[
        float | None, typer.Option(help="DBSCAN eps (default: k-distance knee).")
    ] = None,
    min_samples: Annotated[int, typer.Option(help="DBSCAN min samples.")] = 5,
    projection: Annotated[str, typer.Option(help="'lsh' (random hyperplanes) or 'pca'.")] = "lsh",
    out: Annotated[Path, typer.Option(help="Folder for clusters.json and the figures.")] = Path(
        "hsii_clusters"
    ),
    as_json: JsonOption = False,
) -> None:
    """Dataset analysis (§6.2): embeddings, DBSCAN, the map (Fig. 3) and the radar (Fig. 5)."""
    from normlab.hsii.clusters import cluster_cases, map_figure, radar_figure
    from normlab.hsii.dataset import CASES_PATH, load_cases

    if projection not in ("lsh", "pca"):
        raise InputError("--projection", "choose 'lsh' or 'pca'", field="projection")
    if min_samples < 1:
        raise InputError("--min-samples", "must be at least 1", field="min_samples")
    analysis = cluster_cases(
        load_cases(cases or CASES_PATH),
        encoder,
        eps,
        min_samples,
        projection,  # type: ignore[arg-type]
    )
    out.mkdir(parents=True, exist_ok=True)
    replace_file(out / "clusters.json", analysis.model_dump_json(indent=1))
    replace_bytes(out / "figure3_map.png", map_figure(analysis))
    replace_bytes(out / "figure5_radar.png", radar_figure(analysis))
    summary = analysis.model_dump(mode="json", exclude={"assignments", "points"})
    if as_json:
        print_json(summary)
    else:
        say(
            f"{analysis.cases} cases, {analysis.encoder}: {len(analysis.clusters)} clusters, "
            f"noise {analysis.noise_share:.0%}, eps {analysis.eps:.3f}"
        )
        for cluster in analysis.clusters:
            say(f"  {cluster.share:5.1%}  {cluster.size:4d}  {cluster.name}")
    note(f"written: {out.resolve()}")


@app.command("play")
@reports_errors
def hsii_play(
    name: Annotated[str, typer.Option(help="Your name: answers are scored as human/NAME.")],
    judge: JudgeOption = None,
    role: RoleOption = None,
    cases: CasesOption = None,
    case: CaseOption = None,
    limit: Annotated[int | None, typer.Option(help="How many cases to answer.")] = 3,
    epsilon: Annotated[int, typer.Option(help="Turns of the long run (paper: 7).")] = EPSILON,
    log_dir: LogDirOption = None,
) -> None:
    """Answer cases yourself in the terminal (Table 1's human row), scored like any model."""
    from normlab.hsii.play import terminal_answerer
    from normlab.hsii.runner import run_hsii
    from normlab.models import answering, bind_roles
    from normlab.runs.benchmark import RunOptions

    with answering(name, terminal_answerer()):
        run_hsii(
            f"human/{name}",
            bind_roles(ROLES, judge, role),
            RunOptions(log_dir=log_dir),
            cases=str(cases) if cases else None,
            case_ids=case,
            limit=limit,
            epsilon=epsilon,
        )


@grade_app.command("export")
@reports_errors
def grade_export(
    paths: PathsArgument,
    n: Annotated[
        int | None,
        typer.Option("--n", help="How many comparisons (pairs) to sample; all if unset."),
    ] = None,
    seed: Annotated[int, typer.Option(help="Random seed of the sample and the row order.")] = 0,
    stage: Annotated[
        list[str] | None,
        typer.Option(
            help="'first' (vs the golden, r3), 'long' (vs the reference, r4); repeatable."
        ),
    ] = None,
    out: BlindCsvOption = Path("grading.csv"),
) -> None:
    """Write the judge's comparisons, each in both orders, as a CSV for blind human grading."""
    from normlab.hsii.audit import QUESTION, STAGES, export_grading, key_path_for

    count = export_grading(export_logs(paths, out), out, n, seed, stages=stage or STAGES)
    say(f"{count} rows ({count // 2} pair(s), each in both orders): {out.resolve()}")
    say(f"fill 'human_verdict': {QUESTION}")
    say(f"key: {key_path_for(out).resolve()} (sides and judge verdicts; keep it from graders)")


@import_command(grade_app, "normlab.hsii.audit:import_grading", "The graded CSV.")
def _show_grading(result: GradingResult) -> None:
    """Human win rates (ToolEval's rule, both orders) and agreement with the judge per order."""
    from normlab.report import format_agreement, format_rate

    say(
        f"human win rate vs golden (r3): {format_rate(result.r3_rate)} of pairs graded in both "
        f"orders ({result.ties} ties); judge on the same pairs {format_rate(result.judge_r3_rate)}"
    )
    if result.r4_rate.n:
        say(
            f"human win rate vs reference (r4): {format_rate(result.r4_rate)}; "
            f"judge {format_rate(result.judge_r4_rate)}"
        )
    agreement = result.agreement
    say(
        f"human vs judge ({', '.join(result.judge_models) or 'no judge verdicts'}), per order: "
        f"subject preferred, agreement {format_agreement(agreement)}; "
        f"same verdict {format_rate(result.verdict_agreement)}"
    )
    say(
        f"{result.n_rows} rows, {result.n_unlabelled} left blank, {result.incomplete_pairs} pairs "
        f"graded in one order only; subjects: {', '.join(result.subject_models)}"
    )


@app.command("demo")
@reports_errors
def hsii_demo(
    out: Annotated[Path, typer.Option(help="Where the demo's run goes.")] = Path("runs/demo"),
    limit: Annotated[int, typer.Option(help="Cases.")] = DEMO_LIMIT,
    epsilon: Annotated[int, typer.Option(help="Turns of the long run.")] = DEMO_EPSILON,
) -> None:
    """HSII on the embedded model: a case, all four stages, offline in a minute or two."""
    from normlab.hsii.runner import run_demo

    run_demo(out, limit, epsilon)


add_curation_commands(app)
