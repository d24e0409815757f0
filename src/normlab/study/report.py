"""``study report``: per system, the subjects ranked by the headline metric, with intervals,
and each cell's calls against the plan.

Every number is the system's own analysis of the cell's logs (``load_run`` and ``analyze``
through its face), so a study's table says what ``normlab SYSTEM analyze OUT/SYSTEM/SUBJECT``
says, and a resumed cell's samples are counted once. Planned calls come from ``OUT/plan.json``,
written by ``study plan``; a study never planned shows none.
"""

from __future__ import annotations

import html
from pathlib import Path

from pydantic import BaseModel

from normlab.stats import Interval
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


class SystemReport(BaseModel):
    system: str
    metric: str
    unit: str
    subjects: list[Ranked]


class StudyReport(BaseModel):
    study: str
    systems: list[SystemReport]
    missing: list[str]
    """Cells with no logs yet (``study run`` has not reached them)."""


def report_study(study: Study) -> StudyReport:
    out = Path(study.out)
    plan = read_plan(out)
    planned = {(c.system, c.subject): c.calls for c in plan.cells} if plan else {}
    by_system: dict[str, tuple[str, str, list[Ranked]]] = {}
    missing = []
    for cell in cells(study):
        if not cell.folder.is_dir() or not any(cell.folder.rglob("*.eval")):
            missing.append(cell.label)
            continue
        system = SYSTEMS[cell.system]
        analysis = system.analyze([cell.folder])
        headline = system.headline(analysis)
        usage = next(iter(analysis.usage.values()), None)
        calls = sum(r.calls + r.cache_hits for r in usage.roles.values()) if usage else 0
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
            )
        )
    systems = []
    for name, (metric, unit, rows) in by_system.items():
        # Highest first; a subject with no value (nothing measured) last.
        ordered = sorted(rows, key=lambda r: (r.value is None, -(r.value or 0.0), r.subject))
        ranked = [row.model_copy(update={"rank": i + 1}) for i, row in enumerate(ordered)]
        systems.append(SystemReport(system=name, metric=metric, unit=unit, subjects=ranked))
    return StudyReport(study=study.name, systems=systems, missing=missing)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def rows_of(system: SystemReport) -> list[list[str]]:
    """A system's table as text cells: rank, subject, metric [interval], n, calls / plan."""
    return [
        [
            str(r.rank),
            r.subject,
            f"{_number(r.value)} [{_number(r.ci[0])}, {_number(r.ci[1])}]",
            str(r.n),
            f"{r.calls} / {r.planned_calls if r.planned_calls is not None else '—'}",
        ]
        for r in system.subjects
    ]


HEADER = ["rank", "subject", "value [95% CI]", "n", "calls / planned"]


def write_html(report: StudyReport, folder: Path) -> Path:
    """``FOLDER/study-report.html``: the ranked tables, self-contained."""
    parts = [f"<h1>Study {html.escape(report.study)}</h1>"]
    for system in report.systems:
        parts.append(f"<h2>{html.escape(system.system)}: {html.escape(system.metric)}</h2>")
        head = "".join(f"<th>{html.escape(h)}</th>" for h in HEADER)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>"
            for row in rows_of(system)
        )
        parts.append(f"<table><tr>{head}</tr>{body}</table>")
    if report.missing:
        parts.append(f"<p>Not run yet: {html.escape(', '.join(report.missing))}</p>")
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "study-report.html"
    page = "<!doctype html><meta charset='utf-8'><title>study</title>" + "".join(parts)
    path.write_text(page, encoding="utf-8")
    return path
