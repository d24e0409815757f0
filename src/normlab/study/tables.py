"""``study report`` as people read it: per system the ranking table, the paired differences,
the second judges' agreement and rankings, sources and ties (``report_blocks``: the terminal's
tables and the web app's Compare page), and the HTML page (``write_html``), all from the
[`StudyReport`][normlab.study.StudyReport] ``normlab.study.report`` builds.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from normlab.report import HtmlReport, Table
from normlab.stats import Interval
from normlab.study.judges import JudgeComparison
from normlab.study.papers import PaperRow
from normlab.study.report import Ranked, StudyReport, SystemReport
from normlab.study.sequential.report import sequential_blocks
from normlab.study.variants import variant_blocks


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
    differences with the note on multiple comparisons, the judges' agreement and rankings,
    and its prompt variants' spread and ranking stability."""
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
    if system.variants is not None:
        found.append(Block("heading", "Prompt variants"))
        found += [
            Block("table", table=part) if isinstance(part, Table) else Block("note", part)
            for part in variant_blocks(name, system.variants)
        ]
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
