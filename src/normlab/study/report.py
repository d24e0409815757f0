"""``study report``: per system, the subjects ranked by the headline metric, with intervals,
and each cell's calls against the plan.

Every number is the system's own analysis of the cell's logs (``load_run`` and ``analyze``
through its face), so a study's table says what ``normlab SYSTEM analyze OUT/SYSTEM/SUBJECT``
says, and a resumed cell's samples are counted once. Planned calls come from ``OUT/plan.json``,
written by ``study plan``; a study never planned shows none. Paired differences between
subjects come from :mod:`normlab.study.compare`, the papers' numbers from
:mod:`normlab.study.papers`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel

from normlab.core.storage import log_location
from normlab.report import HtmlReport, Table
from normlab.stats import Interval
from normlab.study.compare import Comparisons, UnitValues, compare, units_of
from normlab.study.execute import measured
from normlab.study.location import local_logs
from normlab.study.papers import PaperRow, paper_rows
from normlab.study.plan import read_plan
from normlab.study.schema import Study
from normlab.study.systems import SYSTEMS, cells


class Ranked(BaseModel):
    rank: int
    subject: str
    value: float | None
    ci: Interval
    n: int
    samples: int
    calls: int
    planned_calls: int | None
    calls_over_plan: float | None
    paper: list[PaperRow] = []
    """The papers' number for this subject's model and this metric, when a paper reported it."""


class SystemReport(BaseModel):
    system: str
    metric: str
    unit: str
    subjects: list[Ranked]
    paired: Comparisons | None = None


class StudyReport(BaseModel):
    study: str
    systems: list[SystemReport]
    missing: list[str]
    """Cells with no logs yet (``study run`` has not reached them)."""


def report_study(study: Study) -> StudyReport:
    plan = read_plan(log_location(study.out))
    planned = {(c.system, c.subject): c.calls for c in plan.cells} if plan else {}
    by_system: dict[str, tuple[str, str, list[Ranked]]] = {}
    units: dict[tuple[str, str], UnitValues | None] = {}
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
        headline = system.headline(analysis)
        usage = system.usage(analysis)
        calls = measured(cell.system, analysis).calls
        plan_calls = planned.get((cell.system, cell.subject.name))
        metric, unit = (headline.metric, headline.unit) if headline else ("(none)", "unit")
        entry = by_system.setdefault(cell.system, (metric, unit, []))
        entry[2].append(
            Ranked(
                rank=0,
                subject=cell.subject.name,
                value=headline.estimate.value if headline else None,
                ci=headline.estimate.ci if headline else (None, None),
                n=headline.n if headline else 0,
                samples=usage.units if usage else 0,
                calls=calls,
                planned_calls=plan_calls,
                calls_over_plan=round(calls / plan_calls, 3) if plan_calls else None,
                paper=paper_rows(cell.system, metric, cell.model, cell.subject.agent),
            )
        )
    systems = []
    for name, (metric, unit, rows) in by_system.items():
        # Highest first; a subject with no value (nothing measured) last.
        ordered = sorted(rows, key=lambda r: (r.value is None, -(r.value or 0.0), r.subject))
        ranked = [row.model_copy(update={"rank": i + 1}) for i, row in enumerate(ordered)]
        paired = compare(name, unit, [(r.subject, units.get((name, r.subject))) for r in ranked])
        systems.append(
            SystemReport(system=name, metric=metric, unit=unit, subjects=ranked, paired=paired)
        )
    return StudyReport(study=study.name, systems=systems, missing=missing)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _paper(rows: list[PaperRow]) -> str:
    """The paper's value [interval] (n); ``—`` where the paper printed none (or no row)."""
    return (
        "; ".join(
            f"{_number(r.value)} [{_number(r.ci[0] if r.ci else None)}, "
            f"{_number(r.ci[1] if r.ci else None)}] (n {r.n if r.n is not None else '—'}, "
            f"{r.source.paper} {r.source.section})"
            for r in rows
        )
        or "—"
    )


def rows_of(system: SystemReport) -> list[list[str]]:
    """A system's table as text cells: rank, subject, metric [interval], n, calls / plan,
    and the paper's number where a paper reported this subject's model."""
    return [
        [
            str(r.rank),
            r.subject,
            f"{_number(r.value)} [{_number(r.ci[0])}, {_number(r.ci[1])}]",
            str(r.n),
            f"{r.calls} / {r.planned_calls if r.planned_calls is not None else '—'}",
            _paper(r.paper),
        ]
        for r in system.subjects
    ]


HEADER = ["rank", "subject", "value [95% CI]", "n", "calls / planned", "paper [95% CI] (n)"]
PAIRED_HEADER = ["first − second", "Δ [95% CI, unadjusted]", "shared units"]


def paired_rows(system: SystemReport) -> list[list[str]]:
    """A system's paired differences as text cells, best-ranked subject first in each pair."""
    if system.paired is None:
        return []
    return [
        [
            f"{p.first} − {p.second}",
            f"{_number(p.delta.value)} [{_number(p.delta.ci[0])}, {_number(p.delta.ci[1])}]",
            str(p.delta.n),
        ]
        for p in system.paired.pairs
    ]


def _sources(system: SystemReport) -> list[str]:
    """Each paper row shown, with where it was printed and what it lacks."""
    seen = {}
    for ranked in system.subjects:
        for row in ranked.paper:
            seen[row.model, row.metric] = (
                f"{row.model}: {row.source.paper}, {row.source.where} ({row.source.section}). "
                f"{row.note}"
            )
    return list(seen.values())


def write_html(report: StudyReport, folder: Path) -> Path:
    """``FOLDER/study-report.html``: the ranked tables with the papers' numbers and the paired
    differences, self-contained, written as every report is (shared templates, escaped text,
    credentials redacted, one atomic rename)."""
    page = HtmlReport(f"Study {report.study}")
    for system in report.systems:
        page.heading(f"{system.system}: {system.metric}")
        page.table(Table(f"{system.system}: subjects ranked", HEADER, rows_of(system)))
        for line in _sources(system):
            page.paragraph(line, "note")
        if system.paired is not None:
            page.heading(f"Paired differences ({system.paired.unit}s)", 3)
            if system.paired.pairs:
                page.table(Table("paired differences", PAIRED_HEADER, paired_rows(system)))
            page.paragraph(system.paired.note, "note")
    if report.missing:
        page.paragraph(f"Not run yet: {', '.join(report.missing)}")
    folder.mkdir(parents=True, exist_ok=True)
    return page.write(folder / "study-report.html")
