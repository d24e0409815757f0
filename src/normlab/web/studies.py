"""Human evaluation studies: one kind per paper's human judgement, built on its CSV export.

Each kind reuses the system's own blind export (the same CSV and key a researcher gets
from the command line) to make the items, and the system's own import to analyze what
raters answered, so the web app adds collection, never a second definition:

- ``losona-audit``: §7's judge audit, does the reply comply? (``losona audit``)
- ``scene-audit``: SCENE's labels and fidelity, yes/no per question (``scene audit``)
- ``hsii-grading``: HSII's pairwise grading, which statement is better, both orders
  (``hsii grade``)
- ``crsec-questionnaire``: Appendix D's 7-point ratings of input/output pairs
  (``crsec questionnaire``)
- ``hsii-curation``: HSII's curation by people, accept, amend or reject each scenario,
  dialogue and case of a bank against the paper's criteria (``hsii curate``); its items
  come from a bank (dialogue and case JSONL under the runs folder), not a run, it has an
  amended-text field and criteria boxes, and the study page shows agreement between curators

Each kind is a system's [`Rating`][normlab.runs.Rating], declared in its spec
(``normlab.runs.SystemSpec.ratings``) with the functions it calls: the export's columns, the
export, the analysis (and, where the system has them, agreement between raters and the criteria
a rater ticks).

A rater's answers are written back into the kind's CSV (answer column filled), which is
both the owner's download and the input of the kind's analysis. Study folders hold the
blind export's key (what the raters must not see), so they are the owner's alone (0700,
files 0600); a filled CSV is named by the rater's id, not their name, and written through
a temporary file of its own, so two downloads at once never mix or clobber each other.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, fields
from pathlib import Path

from pydantic import BaseModel

from normlab.core.csvio import TEXT_CELL_LIMIT, SpreadsheetWriter, csv_rows
from normlab.core.errors import InputError
from normlab.core.files import open_regular
from normlab.report.html import format_agreement, format_estimate, format_number, format_rate
from normlab.runs import Rating
from normlab.specs import parts, specs
from normlab.stats import Agreement, Estimate, Rate
from normlab.web.guard import private_folder
from normlab.web.store import DEFAULT_MAX_RATERS, Rater, Store, Study
from normlab.web.store import Rating as RatingRow


@dataclass(frozen=True)
class StudyKind(Rating):
    """A human rating study of one system's judgements: its spec's ``Rating``, and the system
    whose runs (or banks) it offers."""

    system: str = ""

    @classmethod
    def of(cls, system: str, rating: Rating) -> StudyKind:
        return cls(
            **{field.name: getattr(rating, field.name) for field in fields(rating)}, system=system
        )

    @property
    def extra_columns(self) -> list[str]:
        return [
            column
            for column in (self.notes_column, self.amended_column, self.criteria_column)
            if column
        ] + ([self.rater_column] if self.rater_column else [])

    @property
    def hidden(self) -> set[str]:
        return {"item_id", self.answer_column, *self.extra_columns}

    @property
    def offers(self) -> str:
        """What the new-study form pairs the kind with: its system's runs, or its banks."""
        return self.system if self.source == "run" else f"{self.system}-bank"

    def analysis(self, filled: Path) -> BaseModel:
        """Filled CSV (key beside it) → the system's analysis."""
        return self.analyze(filled, _key(filled))

    def agreement_of(self, filled: list[Path]) -> BaseModel | None:
        """Agreement between raters over their filled CSVs, where the system offers it."""
        return None if self.agreement is None else self.agreement(filled)

    def criteria_boxes(self) -> list[tuple[str, str]]:
        """(value, label) of the criteria boxes on the rating form (none for most kinds)."""
        if not self.criteria_column or self.criteria is None:
            return []
        return self.criteria()


def _key(filled: Path) -> Path:
    """The key file the export wrote beside the study's items (``items.key.jsonl``)."""
    return filled.parent / "items.key.jsonl"


@functools.cache
def study_kinds() -> dict[str, StudyKind]:
    """Every rating study a system declares (its parts' ratings), by the kind's name; read when
    the studies page is first asked for (a system's parts import the system)."""
    return {
        rating.name: StudyKind.of(spec.name, rating)
        for spec in specs()
        for rating in parts(spec).ratings
    }


MAX_BANK_FILES = 200
"""JSONL files looked at when offering banks (the runs folder may hold many)."""
MAX_FIRST_ROW = 1 << 20
"""Bytes of a JSONL file's first row read to tell whose bank it is; a longer row is no bank's."""


def _first_row(path: Path) -> dict[str, object] | None:
    """The first row of a JSONL file as an object, or None where it is none: not a regular file
    (a FIFO would hang the page), unreadable, longer than ``MAX_FIRST_ROW``, or no object."""
    try:
        with open_regular(path) as handle:
            line = handle.readline(MAX_FIRST_ROW + 1)
        row = json.loads(line) if len(line) <= MAX_FIRST_ROW else None
    except (InputError, ValueError):
        return None
    return row if isinstance(row, dict) else None


def discover_banks(root: Path, kinds: Iterable[StudyKind]) -> dict[str, list[str]]:
    """The banks under the runs folder that each kind made from banks takes, relative to it,
    by what the kind is offered for (``offers``): JSONL files whose first row the kind's
    system says is one of its banks' (``bank_row``). The state folder and hidden folders are
    skipped, and at most ``MAX_BANK_FILES`` files are looked at."""
    takes = [(kind.offers, kind.bank_row) for kind in kinds if kind.bank_row is not None]
    banks: dict[str, list[str]] = {offer: [] for offer, _ in takes}
    if not takes:
        return banks
    for number, path in enumerate(sorted(root.rglob("*.jsonl"))):
        relative = path.relative_to(root)
        if number >= MAX_BANK_FILES:
            break
        if any(part.startswith(".") for part in relative.parts):
            continue
        row = _first_row(path)
        if row is None:
            continue
        for offer, holds in takes:
            # Two kinds of one system share an offer: each bank is listed for it once.
            if holds(row) and relative.as_posix() not in banks[offer]:
                banks[offer].append(relative.as_posix())
    return banks


def study_folder(state: Path, study: Study | str) -> Path:
    return state / "studies" / (study if isinstance(study, str) else study.id)


def create_study(
    store: Store,
    state: Path,
    kind: StudyKind,
    run: Path,
    title: str,
    n: int,
    seed: int,
    max_raters: int = DEFAULT_MAX_RATERS,
) -> Study:
    """Export the run's items with the kind's own export, then load them as the study's items.

    The export goes to a private staging folder of its own (two studies made at once never
    share one), its files made 0600, before it becomes the study's folder."""
    studies = private_folder(state / "studies")
    staging = Path(tempfile.mkdtemp(prefix=".new-", dir=studies))  # 0700
    try:
        items_csv = staging / "items.csv"
        kind.export(run, items_csv, n, seed)
        for path in staging.iterdir():
            if path.is_file():
                os.chmod(path, 0o600)
        items = [
            (row["item_id"], json.dumps(row, ensure_ascii=False))
            # Items are texts (a transcript, a whole dialogue): a cell may be long.
            for _, row in csv_rows(items_csv, ("item_id",), cell_limit=TEXT_CELL_LIMIT)
        ]
        study = store.create_study(kind.name, title, str(run), items, max_raters)
        staging.rename(study_folder(state, study))
    except BaseException:
        # A refused export or a full disk leaves no half-made study folder behind.
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return study


def filled_csv(store: Store, state: Path, study: Study, rater: Rater) -> Path:
    """The study's items CSV with this rater's answers filled in (blank where unanswered),
    ``ratings-RATER_ID.csv`` beside the key, replaced whole (never seen half-written)."""
    kind = study_kinds()[study.kind]
    answers: dict[str, RatingRow] = store.ratings(rater)
    folder = study_folder(state, study)
    path = folder / f"ratings-{rater.id}.csv"
    handle, temporary = tempfile.mkstemp(  # 0600, a name of its own per call
        prefix=f".ratings-{rater.id}-", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            writer = SpreadsheetWriter(out, kind.columns())
            writer.writeheader()
            for item in store.items(study.id):
                row = json.loads(item.payload)
                rating = answers.get(item.item_id)
                row[kind.answer_column] = rating.answer if rating else ""
                if kind.notes_column:
                    row[kind.notes_column] = rating.notes if rating else ""
                if kind.amended_column:
                    row[kind.amended_column] = rating.amended if rating else ""
                if kind.criteria_column:
                    row[kind.criteria_column] = rating.criteria if rating else ""
                if kind.rater_column:
                    row[kind.rater_column] = rater.name
                writer.writerow(row)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def summary_lines(result: BaseModel, prefix: str = "") -> list[tuple[str, str]]:
    """An analysis as (label, value) lines, every estimate with its interval and n."""
    lines: list[tuple[str, str]] = []
    for name, value in result:
        label = f"{prefix}{name.replace('_', ' ')}"
        if isinstance(value, Agreement):
            lines.append((label, format_agreement(value)))
        elif isinstance(value, Rate):
            lines.append((label, format_rate(value)))
        elif isinstance(value, Estimate):
            mean = format_estimate(value, digits=2, percent=False, signed=False)
            lines.append((label, f"{mean} (n = {value.n})"))
        elif isinstance(value, BaseModel):
            lines.extend(summary_lines(value, f"{label}: "))
        elif (
            isinstance(value, dict)
            and value
            and all(isinstance(v, Estimate | Agreement | Rate) for v in value.values())
        ):
            for key, inner in value.items():
                lines.extend(summary_lines(_Single(value=inner), f"{label} {key} "))
        elif isinstance(value, float):
            lines.append((label, format_number(value)))
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            lines.append((label, ", ".join(value)))
        else:
            lines.append((label, str(value)))
    return [(label.replace(" value", ""), text) for label, text in lines]


class _Single(BaseModel):
    value: Agreement | Rate | Estimate
