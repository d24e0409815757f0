"""The Compare page: a study's report (issue 23) in the browser, read-only.

A study is found under the served folder as ``normlab study report`` leaves it
(``study-report.json`` beside ``study-report.html`` in the study's ``out``) or as its study
file (YAML with ``systems`` and ``subjects``), whose report is computed on the request from the
cells' logs by the same ``normlab.study.report_study`` the command runs, so the page shows
the same [`StudyReport`][normlab.study.StudyReport] that ``study report --json`` prints, in the same
tables ([`normlab.study.report_blocks`][normlab.study.report_blocks]): per system the subjects
ranked with intervals and the papers' numbers, the paired differences with the note on multiple
comparisons, the judges' agreement and rankings.

Every request is taken as hostile, as the rest of the app takes it: the owner's pages only,
the path checked to stay inside the served folder (``normlab.web.runs.inside``), a study
file whose ``out`` lies outside that folder or in object storage refused (the page would read
what was not served, or reach the network), nothing written, every text escaped by the
templates and redacted of credentials.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from normlab.core.errors import InputError
from normlab.core.secrets import redact_text
from normlab.core.yamlio import read_yaml
from normlab.report import Table
from normlab.web.pages import OwnerOnly, PagesDep
from normlab.web.runs import inside

if TYPE_CHECKING:
    from normlab.study import Block, StudyReport

STUDY_SUFFIXES = (".yaml", ".yml")
MAX_STUDY_FILE = 1_000_000
"""Bytes: a YAML file larger than this is no study file (and is not parsed to find out)."""


@dataclass(frozen=True)
class StudyEntry:
    path: str
    """Relative to the served folder: a study file or a ``study-report.json``."""
    name: str
    kind: str
    """``study file`` (reported now from the logs) or ``report`` (as ``study report`` wrote it)."""
    problem: str = ""


def _report_name() -> str:
    from normlab.study import REPORT_JSON

    return str(REPORT_JSON)


def _study_name(path: Path) -> str | None:
    """The study's name if ``path`` is a study file (a mapping with systems and subjects).
    Read as every YAML file is (``normlab.core.yamlio.read_yaml``): a regular file only
    (a FIFO would hang the page for good, a link to ``/dev/zero`` grow the server without
    end), at most ``MAX_STUDY_FILE`` bytes, aliases within a small budget ("billion
    laughs" is refused, not expanded); anything else is simply not a study."""
    try:
        raw = read_yaml(path, MAX_STUDY_FILE)
    except InputError:
        return None
    if not isinstance(raw, dict) or "systems" not in raw or "subjects" not in raw:
        return None
    name = raw.get("name", path.stem)
    return name if isinstance(name, str) else path.stem


def _served(path: Path, served: Path) -> bool:
    """Whether ``path``, its links followed, stays inside the served folder (a file link out
    of it is not listed, as ``normlab.web.runs.inside`` would not open it)."""
    try:
        return path.resolve().is_relative_to(served)
    except (OSError, RuntimeError):  # a link loop
        return False


def find_studies(root: Path) -> list[StudyEntry]:
    """Every study file and study report under ``root`` (hidden folders, the app's state
    among them, are not searched)."""
    from normlab.study import read_report

    report_name = _report_name()
    served = root.resolve()
    found = []
    for folder, folders, files in os.walk(root):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            relative = str(path.relative_to(root))
            if not _served(path, served):
                continue
            if name == report_name:
                try:
                    name = redact_text(read_report(path).study)
                    found.append(StudyEntry(relative, name, "report"))
                except InputError as error:
                    found.append(StudyEntry(relative, name, "report", str(error)))
            elif path.suffix in STUDY_SUFFIXES and (study := _study_name(path)) is not None:
                found.append(StudyEntry(relative, redact_text(study), "study file"))
    return found


def load_comparison(root: Path, relative: str) -> tuple[StudyReport, str]:
    """The report of the study at ``relative`` and where its numbers come from."""
    from normlab.core.storage import log_location
    from normlab.study import load_study, read_report, report_study

    path = inside(root, relative)
    # Each read refuses what is no regular file (a FIFO, a device) before reading it.
    if path.name == _report_name():
        return read_report(path), "as `normlab study report` last wrote it"
    if path.suffix not in STUDY_SUFFIXES:
        raise InputError(relative, f"not a study file or {_report_name()}")
    study = load_study(path)
    out = log_location(study.out)
    if not isinstance(out, Path):
        raise InputError(
            relative,
            "the study's out is in object storage: run `normlab study report` and open the "
            f"{_report_name()} it writes in its local mirror",
            field="out",
        )
    if not out.resolve().is_relative_to(root.resolve()):
        raise InputError(relative, "the study's out is not under the served folder", field="out")
    return report_study(study), "computed now from the cells' logs"


def _redacted_table(table: Table) -> Table:
    return Table(
        redact_text(table.caption),
        [redact_text(cell) for cell in table.header],
        [[redact_text(cell) for cell in row] for row in table.rows],
    )


def _redacted(block: Block) -> Block:
    table = None if block.table is None else _redacted_table(block.table)
    return replace(block, text=redact_text(block.text), table=table)


def page_values(report: StudyReport) -> dict[str, Any]:
    """What ``compare.html`` shows: each system with its blocks, credentials redacted."""
    from normlab.study import report_blocks

    return {
        "title": redact_text(report.study),
        "missing": [redact_text(label) for label in report.missing],
        "systems": [
            (system, [_redacted(block) for block in report_blocks(system)])
            for system in report.systems
        ],
        "sequential": _sequential_blocks(report),
    }


def _sequential_blocks(report: StudyReport) -> list[Block]:
    """A sequential run's tables and note (``study run --until-halfwidth``), redacted."""
    from normlab.report import Table
    from normlab.study import Block, sequential_blocks

    if report.sequential is None:
        return []
    return [
        _redacted(Block("table", table=part) if isinstance(part, Table) else Block("note", part))
        for part in sequential_blocks(report.sequential)
    ]


router = APIRouter(dependencies=[OwnerOnly])


@router.get("/compare")
def compare_index(request: Request, pages: PagesDep) -> HTMLResponse:
    studies = find_studies(pages.settings.runs)
    return pages.page(request, "compare_index.html", studies=studies)


@router.get("/compare/study")
def compare_page(request: Request, pages: PagesDep, path: str) -> HTMLResponse:
    report, source = load_comparison(pages.settings.runs, path)
    values = page_values(report)
    return pages.page(request, "compare.html", path=path, source=source, **values)


@router.get("/compare/json")
def compare_json(pages: PagesDep, path: str) -> Response:
    """The report as ``study report --json`` prints it."""
    report, _ = load_comparison(pages.settings.runs, path)
    text = redact_text(report.model_dump_json(indent=2))
    return Response(text, media_type="application/json")
