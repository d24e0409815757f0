"""``study report``: per system, the subjects ranked by the headline metric, with intervals,
and each cell's calls against the plan.

Every number is the system's own analysis of the cell's logs (``load_run`` and ``analyze``
through its face), so a study's table says what ``normlab SYSTEM analyze OUT/SYSTEM/SUBJECT``
says, and a resumed cell's samples are counted once. Planned calls come from ``OUT/plan.json``,
written by ``study plan``; a study never planned shows none. Paired differences between
subjects come from ``normlab.study.compare``, a second judge's agreement and ranking from
``normlab.study.judges``, the papers' numbers from ``normlab.study.papers``. The report
is written as HTML and as JSON (``study-report.json``, what ``--json`` prints), which the web
app's Compare page reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.files import read_bytes
from normlab.core.logs import subject_label
from normlab.core.outputs import replace_file
from normlab.core.storage import log_location
from normlab.report import HtmlReport, Table
from normlab.runs.headline import Headline, UnitValues, Verdicts
from normlab.stats import Interval
from normlab.study.compare import Comparisons, compare, units_of
from normlab.study.execute import measured
from normlab.study.judges import (
    JudgeComparison,
    Judged,
    compare_judges,
    judged_cell,
    verdict_items,
    verdicts_of,
)
from normlab.study.location import local_logs
from normlab.study.papers import PaperRow, paper_rows, setup_note
from normlab.study.plan import read_plan
from normlab.study.schema import Study
from normlab.study.sequential_report import SequentialReport, sequential_blocks, summarize
from normlab.study.systems import SYSTEMS, Cell, cells


class Ranked(BaseModel):
    rank: int
    """1 + the subjects this study shows to be better (see ``rank_subjects``): subjects
    it cannot tell apart share a rank."""
    subject: str
    model: str | None = None
    """The subject as its cell's logs name it (``MODEL + AGENT`` for an agent)."""
    value: float | None
    ci: Interval
    n: int
    unit: str = "unit"
    """What n counts (scenario, sanction, case, run)."""
    clusters: int | None = None
    """The independent clusters the interval resamples, where units are not independent."""
    cluster_unit: str | None = None
    samples: int
    calls: int
    planned_calls: int | None
    calls_over_plan: float | None
    paper: list[PaperRow] = []
    """The papers' number of the same quantity for this subject's model, when a paper has it."""
    notes: list[str] = []
    """What a reader must know of this row: a log whose model is not the study's, an interval
    that cannot be made, a paper row of another quantity."""
    tied_with: list[str] = []
    """Subjects this study cannot tell apart from this one."""


class SystemReport(BaseModel):
    system: str
    metric: str
    unit: str
    subjects: list[Ranked]
    paired: Comparisons | None = None
    judges: list[JudgeComparison] = []
    """The study's judge against each extra judge the system names (``judges:``)."""
    quantity: dict[str, str | int] = {}
    """What makes the headline the quantity it is (LoSoNA's K, SCENE's view, HSII's ε)."""
    setup: str | None = None
    """What the papers' numbers for this system were measured on."""
    ranking: str = ""
    """How the ranks were told apart."""


class StudyReport(BaseModel):
    """One ranked comparison of a study's subjects per system, each headline with its
    interval and beside the paper's own number; what ``study report --json`` prints."""

    study: str
    """The study's name."""
    systems: list[SystemReport]
    """One per system of the study, its subjects ranked."""
    missing: list[str]
    """Cells with no logs yet (``study run`` has not reached them)."""
    sequential: SequentialReport | None = None
    """Cells run in batches (``study run --until-halfwidth``): units run of planned, why each
    stopped, its sequence beside its fixed-n interval, the saving; ``None`` when none were."""


REPORT_JSON = "study-report.json"
"""What ``study report`` writes beside its HTML: the report as ``--json`` prints it."""
MAX_REPORT_BYTES = 64 << 20
"""A study report is kilobytes; a file this large under the name is not one (and the web app's
Compare page reads every one it finds)."""


def read_report(path: Path) -> StudyReport:
    """A ``study-report.json`` read back, or an [`InputError`][normlab.core.InputError] naming the
    file."""
    from pydantic import ValidationError

    data = read_bytes(path, MAX_REPORT_BYTES)  # regular files only: the web app lists these
    try:
        return StudyReport.model_validate_json(data)
    except (ValueError, ValidationError) as error:
        raise InputError(path, "not a study report") from error


def write_json(report: StudyReport, folder: Path) -> Path:
    """``FOLDER/study-report.json``, whole or not at all."""
    folder.mkdir(parents=True, exist_ok=True)
    return replace_file(folder / REPORT_JSON, report.model_dump_json(indent=2))


def _judge_comparisons(
    study: Study,
    system: str,
    original: str,
    rows: list[Ranked],
    ours: dict[str, Verdicts],
    theirs: dict[str, dict[str, Judged]],
) -> list[JudgeComparison]:
    """Each extra judge of ``system`` against its cells' own judge."""
    judges = study.systems[system].judges
    values = [(r.subject, r.value) for r in rows]
    return [
        compare_judges(original, judge, verdict_items(system), values, theirs.get(judge, {}), ours)
        for judge in judges or []
    ]


def _options_quantity(cell: Cell) -> dict[str, str | int]:
    """The task options that are part of the headline's quantity (HSII's ε), as the cell
    runs them: its own value, else its task's default."""
    import inspect

    system = SYSTEMS[cell.system]
    if not system.quantity_options:
        return {}
    defaults = inspect.signature(system.factory()).parameters
    found: dict[str, str | int] = {}
    for name in system.quantity_options:
        value = cell.options.get(name, defaults[name].default if name in defaults else None)
        if isinstance(value, str | int):
            found[name] = value
    return found


def _expected_model(cell: Cell) -> str:
    """The subject as the cell's logs should name it."""
    if not SYSTEMS[cell.system].spec.subject_label:  # CRSEC's runs name every agent's model
        return cell.model
    return subject_label(cell.model, cell.subject.agent)


def _measured_model(cell: Cell, headline: Headline) -> str:
    """The model the cell's logs measured (the study file's where the logs name none)."""
    if headline.model is None or not SYSTEMS[cell.system].spec.subject_label:
        return headline.model or cell.model
    return headline.model.split(" + ", 1)[0]


def _model_notes(cell: Cell, headline: Headline) -> list[str]:
    """A cell whose logs measured another model than the study file names is not that model's
    number: said on its row (its paper row is the logs' model's)."""
    expected = _expected_model(cell)
    if headline.model is None or headline.model == expected:
        return []
    return [
        f"the logs in this cell measured {headline.model}, not {expected} as the study file "
        "names: this row is that model's"
    ]


def rank_subjects(ordered: list[Ranked], paired: Comparisons | None) -> tuple[list[Ranked], str]:
    """Each subject's rank, 1 + the subjects shown better than it: a pair is told apart when
    its paired family-wise 95% interval (Bonferroni over the system's pairs) excludes 0, or,
    for a system with no paired form (CRSEC), when the two subjects' 95% intervals do not
    overlap. Subjects not told apart share what separates them from the rest, never ranks 1
    and 2 on a difference the study cannot see; ``tied_with`` names them. ``ordered`` is best
    first; the ranking's rule, in words."""
    apart: dict[frozenset[str], bool] = {}
    if paired is not None and paired.pairs:
        for pair in paired.pairs:
            low, high = pair.familywise or (None, None)
            apart[frozenset((pair.first, pair.second))] = (
                low is not None and high is not None and (low > 0 or high < 0)
            )
        how = (
            "Ranks: 1 + the subjects shown better, where the paired difference's family-wise "
            "95% interval excludes 0; subjects it cannot tell apart share a rank."
        )
    else:
        for first, second in combinations(ordered, 2):
            (a_low, a_high), (b_low, b_high) = first.ci, second.ci
            known = None not in (a_low, a_high, b_low, b_high)
            apart[frozenset((first.subject, second.subject))] = known and (
                a_low > b_high or b_low > a_high  # type: ignore[operator]
            )
        how = (
            "Ranks: 1 + the subjects shown better, where the two 95% intervals do not overlap "
            "(no paired form); subjects whose intervals overlap, or lack one, share a rank."
        )
    ranked = []
    for index, row in enumerate(ordered):
        others = [o for o in ordered if o.subject != row.subject]
        better = [
            o
            for o in ordered[:index]
            if row.value is None
            or (o.value is not None and apart.get(frozenset((o.subject, row.subject)), False))
        ]
        tied = [
            o.subject
            for o in others
            if row.value is not None
            and o.value is not None
            and not apart.get(frozenset((o.subject, row.subject)), False)
        ]
        ranked.append(row.model_copy(update={"rank": 1 + len(better), "tied_with": tied}))
    return ranked, how


def report_study(study: Study) -> StudyReport:
    """Read every finished cell's logs once and compare the subjects per system; a cell
    with no logs yet is listed as missing, not dropped."""
    plan = read_plan(log_location(study.out))
    planned = {(c.system, c.subject): c.calls for c in plan.cells} if plan else {}
    by_system: dict[str, tuple[str, str, dict[str, str | int], list[Ranked]]] = {}
    units: dict[tuple[str, str], UnitValues | None] = {}
    original_judge: dict[str, str] = {}
    verdicts: dict[str, dict[str, Verdicts]] = {}
    """Per system and subject: the cell's own judge's per-unit verdicts."""
    judged: dict[str, dict[str, dict[str, Judged]]] = {}
    """Per system, extra judge and subject: that judge's headline and verdicts."""
    missing = []
    for cell in cells(study):
        system = SYSTEMS[cell.system]
        logs = local_logs(cell.folder, system.logs)
        if logs is None:
            missing.append(cell.label)
            continue
        run = system.load([logs])
        analysis = system.analyze_run(run)
        units[cell.system, cell.subject.name] = units_of(cell.system, run, analysis)
        extra = study.systems[cell.system].judges
        if extra:
            original_judge[cell.system] = cell.roles.get("judge", "(the task's default)")
            verdicts.setdefault(cell.system, {})[cell.subject.name] = verdicts_of(cell.system, run)
            for judge in extra:
                found = judged_cell(study, cell, judge)
                if found is not None:
                    by_judge = judged.setdefault(cell.system, {}).setdefault(judge, {})
                    by_judge[cell.subject.name] = found
        headline = system.headline(run, analysis)
        usage = system.usage(analysis)
        calls = measured(cell.system, analysis).calls
        plan_calls = planned.get((cell.system, cell.subject.name))
        metric, unit = (headline.metric, headline.unit) if headline else ("(none)", "unit")
        quantity = {**(headline.quantity if headline else {}), **_options_quantity(cell)}
        entry = by_system.setdefault(cell.system, (metric, unit, quantity, []))
        papers: list[PaperRow] = []
        notes: list[str] = []
        if headline is not None:
            notes += _model_notes(cell, headline)
            papers, other = paper_rows(
                cell.system,
                metric,
                _measured_model(cell, headline),
                cell.subject.agent,
                quantity,
            )
            notes += other
            if headline.note:
                notes.append(headline.note)
        entry[3].append(
            Ranked(
                rank=0,
                subject=cell.subject.name,
                model=headline.model if headline else None,
                value=headline.estimate.value if headline else None,
                ci=headline.estimate.ci if headline else (None, None),
                n=headline.n if headline else 0,
                unit=unit,
                clusters=headline.clusters if headline else None,
                cluster_unit=headline.cluster_unit if headline else None,
                samples=usage.units if usage else 0,
                calls=calls,
                planned_calls=plan_calls,
                calls_over_plan=round(calls / plan_calls, 3) if plan_calls else None,
                paper=papers,
                notes=notes,
            )
        )
    systems = []
    for name, (metric, unit, quantity, rows) in by_system.items():
        # Highest first; a subject with no value (nothing measured) last.
        ordered = sorted(rows, key=lambda r: (r.value is None, -(r.value or 0.0), r.subject))
        paired = compare(name, [(r.subject, units.get((name, r.subject))) for r in ordered])
        ranked, how = rank_subjects(ordered, paired)
        comparisons = _judge_comparisons(
            study,
            name,
            original_judge.get(name, ""),
            ranked,
            verdicts.get(name, {}),
            judged.get(name, {}),
        )
        systems.append(
            SystemReport(
                system=name,
                metric=metric,
                unit=unit,
                subjects=ranked,
                paired=paired,
                judges=comparisons,
                quantity=quantity,
                setup=setup_note(name),
                ranking=how,
            )
        )
    return StudyReport(
        study=study.name, systems=systems, missing=missing, sequential=summarize(study)
    )


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _bounds(ci: Interval) -> str:
    return f"[{_number(ci[0])}, {_number(ci[1])}]"


def _interval(value: float | None, ci: Interval) -> str:
    return f"{_number(value)} {_bounds(ci)}"


def _paper(rows: list[PaperRow]) -> str:
    """The paper's value [interval] (n); ``—`` where the paper printed none (or no row)."""
    return (
        "; ".join(
            f"{_interval(r.value, r.ci or (None, None))} (n {r.n if r.n is not None else '—'}, "
            f"{r.source.paper} {r.source.section})"
            for r in rows
        )
        or "—"
    )


def _count(n: int, unit: str) -> str:
    return f"{n:,} {unit}{'' if n == 1 else 's'}"


def n_label(row: Ranked) -> str:
    """n with its unit, and the clusters its interval resamples where units are not
    independent: ``12 sanctions in 5 scenarios``."""
    found = _count(row.n, row.unit)
    if row.cluster_unit and row.clusters is not None and row.cluster_unit != row.unit:
        found += f" in {_count(row.clusters, row.cluster_unit)}"
    return found


def rank_label(row: Ranked, rows: list[Ranked]) -> str:
    """The rank, marked ``=`` where another subject shares it."""
    shared = any(o.rank == row.rank and o.subject != row.subject for o in rows)
    return f"{row.rank}=" if shared else str(row.rank)


def rows_of(system: SystemReport) -> list[list[str]]:
    """A system's table as text cells: rank, subject, the model its logs name, metric
    [interval], n with its unit, calls / plan, and the paper's number where a paper reported
    this quantity for this model."""
    return [
        [
            rank_label(r, system.subjects),
            r.subject,
            r.model or "—",
            _interval(r.value, r.ci),
            n_label(r),
            f"{r.calls} / {r.planned_calls if r.planned_calls is not None else '—'}",
            _paper(r.paper),
        ]
        for r in system.subjects
    ]


HEADER = [
    "rank",
    "subject",
    "model (logs)",
    "value [95% CI]",
    "n",
    "calls / planned",
    "paper [95% CI] (n)",
]
PAIRED_HEADER = [
    "first − second",
    "Δ [95% CI, unadjusted]",
    "family-wise 95% CI (Bonferroni)",
    "shared units",
]


def paired_rows(system: SystemReport) -> list[list[str]]:
    """A system's paired differences as text cells, best-ranked subject first in each pair."""
    if system.paired is None:
        return []
    return [
        [
            f"{p.first} − {p.second}",
            _interval(p.delta.value, p.delta.ci),
            "—" if p.familywise is None else _bounds(p.familywise),
            str(p.delta.n),
        ]
        for p in system.paired.pairs
    ]


AGREEMENT_HEADER = [
    "judges (study's vs extra)",
    "agreement [95% CI] (k/n)",
    "Cohen's κ [95% CI]",
    "items (clusters)",
    "ranking changes",
    "Kendall's τ",
]


def judge_rows(system: SystemReport) -> list[list[str]]:
    """Per extra judge: agreement with the study's judge, κ, and whether the ranking holds."""
    rows = []
    for j in system.judges:
        rate = j.agreement.rate
        changed = "—" if j.changed is None else "yes" if j.changed else "no"
        rows.append(
            [
                f"{j.original} vs {j.judge}",
                f"{_interval(rate.value, rate.ci)} ({rate.k}/{rate.n})",
                _interval(j.kappa.value, j.kappa.ci),
                f"{j.kappa.n} ({j.clusters})",
                changed,
                _number(j.kendall_tau),
            ]
        )
    return rows


RANKING_HEADER = ["rank", "study's judge", "extra judge", "value [95% CI] (extra judge)", "n"]


def ranking_rows(judge: JudgeComparison) -> list[list[str]]:
    """The two judges' rankings side by side, rank by rank."""
    return [
        [
            str(row.rank),
            judge.original_ranking[index] if index < len(judge.original_ranking) else "—",
            row.subject,
            _interval(row.value, row.ci),
            str(row.n),
        ]
        for index, row in enumerate(judge.ranking)
    ]


def judge_notes(judge: JudgeComparison) -> list[str]:
    """What a reader of the agreement table must know: what an item is, what is missing."""
    notes = [f"{judge.judge}: items are {judge.items}."]
    if judge.missing:
        notes.append(f"{judge.judge} has not judged: {', '.join(judge.missing)} (study run).")
    return notes


def _sources(system: SystemReport) -> list[str]:
    """Each paper row shown, with where it was printed and what it lacks; what the papers'
    numbers were measured on; and each row's own notes."""
    seen = {}
    for ranked in system.subjects:
        for row in ranked.paper:
            seen[row.model, row.metric] = (
                f"{row.model}: {row.source.paper}, {row.source.where} ({row.source.section}). "
                f"{row.note}"
            )
    found = list(seen.values())
    if seen and system.setup:
        found.append(f"Not the same study: {system.setup}")
    for ranked in system.subjects:
        found += [f"{ranked.subject}: {note}" for note in ranked.notes]
    if system.quantity:
        found.append(
            f"{system.metric} at "
            + ", ".join(f"{key} = {value}" for key, value in system.quantity.items())
            + "."
        )
    if len(system.subjects) > 1:
        found += [system.ranking, _ties(system)]
    return [line for line in found if line]


def _ties(system: SystemReport) -> str:
    """The pairs this study cannot tell apart, in words."""
    pairs = sorted(
        {tuple(sorted((r.subject, other))) for r in system.subjects for other in r.tied_with}
    )
    if not pairs:
        return ""
    return "Not told apart by this study: " + "; ".join(f"{a} and {b}" for a, b in pairs) + "."


@dataclass(frozen=True)
class Block:
    """One piece of a system's part of the report, in order: a sub-heading, a table or a
    note. The HTML report, the terminal and the web app's Compare page all show these, so
    the three say the same thing in the same words."""

    kind: Literal["heading", "table", "note"]
    text: str = ""
    table: Table | None = None


def report_blocks(system: SystemReport) -> list[Block]:
    """A system's ranked table with the papers' numbers and their sources, its paired
    differences with the note on multiple comparisons, and the judges' agreement and
    rankings."""
    name = system.system
    found = [Block("table", table=Table(f"{name}: {system.metric}", HEADER, rows_of(system)))]
    found += [Block("note", line) for line in _sources(system)]
    if system.paired is not None:
        unit = f"{system.paired.unit}s"
        found.append(Block("heading", f"Paired differences ({unit})"))
        if system.paired.pairs:
            caption = f"{name}: paired differences ({unit})"
            found.append(Block("table", table=Table(caption, PAIRED_HEADER, paired_rows(system))))
        found.append(Block("note", system.paired.note))
    if system.judges:
        found.append(Block("heading", "Two judges"))
        caption = f"{name}: two judges"
        found.append(Block("table", table=Table(caption, AGREEMENT_HEADER, judge_rows(system))))
        for judge in system.judges:
            caption = f"{name}: ranking by {judge.judge}"
            found.append(Block("table", table=Table(caption, RANKING_HEADER, ranking_rows(judge))))
            found += [Block("note", line) for line in judge_notes(judge)]
    return found


def write_html(report: StudyReport, folder: Path) -> Path:
    """``FOLDER/study-report.html``: every system's blocks
    ([`report_blocks`][normlab.study.report_blocks]), self-contained, written as every report is
    (shared templates, escaped text, credentials redacted, one atomic rename)."""
    page = HtmlReport(f"Study {report.study}")
    for system in report.systems:
        page.heading(f"{system.system}: {system.metric}")
        for block in report_blocks(system):
            if block.table is not None:
                page.table(block.table)
            elif block.kind == "heading":
                page.heading(block.text, 3)
            else:
                page.paragraph(block.text, "note")
    if report.sequential is not None:
        page.heading("Sequential run")
        for part in sequential_blocks(report.sequential):
            if isinstance(part, Table):
                page.table(part)
            else:
                page.paragraph(part, "note")
    if report.missing:
        page.paragraph(f"Not run yet: {', '.join(report.missing)}")
    folder.mkdir(parents=True, exist_ok=True)
    return page.write(folder / "study-report.html")
