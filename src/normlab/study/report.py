"""``study report``: per system, the subjects ranked by the headline metric, with intervals,
and each cell's calls against the plan.

Every number is the system's own analysis of the cell's logs (``load_run`` and ``analyze``
through its face), so a study's table says what ``normlab SYSTEM analyze OUT/SYSTEM/SUBJECT``
says, and a resumed cell's samples are counted once. Planned calls come from ``OUT/plan.json``,
written by ``study plan``; a study never planned shows none. Paired differences between
subjects come from ``normlab.study.compare``, a second judge's agreement and ranking from
``normlab.study.judges``, the papers' numbers from ``normlab.study.papers``, the spread
across prompt variants from ``normlab.study.variants``. The report
is written as HTML and as JSON (``study-report.json``, what ``--json`` prints), which the web
app's Compare page reads.
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.files import read_bytes
from normlab.core.logs import subject_label
from normlab.core.outputs import replace_file
from normlab.core.storage import log_location
from normlab.core.variants import PAPER
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
from normlab.study.papers import PaperRow, paper_rows, setup_note
from normlab.study.plan import read_plan
from normlab.study.schema import Study
from normlab.study.sequential.report import SequentialReport, summarize
from normlab.study.systems import SYSTEMS, Cell, cells, read_cells
from normlab.study.variant_logs import logged_variant
from normlab.study.variants import Measured, Sensitivity, sensitivities


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
    variants: Sensitivity | None = None
    """Under prompt variants (``variants:``): each subject's headline per variant, the
    spread, the differences from the paper's prompt and the ranking's stability."""


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
    if not SYSTEMS[cell.system].parts.subject_label:  # CRSEC's runs name every agent's model
        return cell.model
    return subject_label(cell.model, cell.subject.agent)


def _measured_model(cell: Cell, headline: Headline) -> str:
    """The model the cell's logs measured (the study file's where the logs name none)."""
    if headline.model is None or not SYSTEMS[cell.system].parts.subject_label:
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


def _variant_notes(cell: Cell) -> list[str]:
    """A cell of the study's own whose logs ran a prompt variant (``options.variant``) is not
    the paper's prompt's number: said on its row, as its logs name the variant."""
    logged = logged_variant(cell)
    if logged is None or logged.spec == PAPER:
        return []
    return [f"prompt variant {logged.label} ({logged.description}), as its logs record"]


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
    planned = (
        {(c.system, c.subject): c.calls for c in plan.cells if c.variant is None} if plan else {}
    )
    by_system: dict[str, tuple[str, str, dict[str, str | int], list[Ranked]]] = {}
    units: dict[tuple[str, str], UnitValues | None] = {}
    original_judge: dict[str, str] = {}
    verdicts: dict[str, dict[str, Verdicts]] = {}
    """Per system and subject: the cell's own judge's per-unit verdicts."""
    judged: dict[str, dict[str, dict[str, Judged]]] = {}
    """Per system, extra judge and subject: that judge's headline and verdicts."""
    missing: list[str] = []
    paper: dict[tuple[str, str], Measured] = {}
    """Per system and subject: the paper's prompt's cell, as the sensitivity reads it."""
    for cell, system, run, analysis in read_cells(cells(study), missing):
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
        paper[cell.system, cell.subject.name] = (headline, units[cell.system, cell.subject.name])
        usage = system.usage(analysis)
        calls = measured(cell.system, analysis).calls
        plan_calls = planned.get((cell.system, cell.subject.name))
        metric, unit = (headline.metric, headline.unit) if headline else ("(none)", "unit")
        quantity = {**(headline.quantity if headline else {}), **_options_quantity(cell)}
        entry = by_system.setdefault(cell.system, (metric, unit, quantity, []))
        papers: list[PaperRow] = []
        notes: list[str] = []
        notes += _variant_notes(cell)
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
    sensitive, not_run = sensitivities(study, paper)
    missing += not_run
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
                variants=sensitive.get(name),
            )
        )
    return StudyReport(
        study=study.name, systems=systems, missing=missing, sequential=summarize(study)
    )
