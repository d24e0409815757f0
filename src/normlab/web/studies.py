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

A rater's answers are written back into the kind's CSV (answer column filled), which is
both the owner's download and the input of the kind's analysis. Study folders hold the
blind export's key (what the raters must not see), so they are the owner's alone (0700,
files 0600); a filled CSV is named by the rater's id, not their name, and written through
a temporary file of its own, so two downloads at once never mix or clobber each other.
"""

from __future__ import annotations

import csv
import importlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, cast

from pydantic import BaseModel

from normlab.core.csvio import read_csv_rows
from normlab.report.html import format_agreement, format_estimate, format_number, format_rate
from normlab.stats import Agreement, Estimate, Rate
from normlab.web.guard import private_folder
from normlab.web.store import DEFAULT_MAX_RATERS, Rater, Rating, Store, Study


@dataclass(frozen=True)
class StudyKind:
    name: str
    title: str
    system: str
    question: str
    """What the rater is asked, above every item."""
    answer_column: str
    choices: tuple[tuple[str, str], ...]
    """(value written to the CSV, button label)."""
    notes_column: str | None

    @property
    def hidden(self) -> set[str]:
        return {"item_id", self.answer_column, *([self.notes_column] if self.notes_column else [])}

    def columns(self) -> list[str]:
        return _audit(self.system).study_columns()

    def export(self, run: Path, out: Path, n: int, seed: int) -> int:
        """(run folder, CSV to write, how many, seed) → rows written (key file beside the CSV)."""
        return _audit(self.system).export_study(run, out, n, seed)

    def analyze(self, filled: Path) -> BaseModel:
        """Filled CSV (key beside it) → the system's analysis."""
        return _audit(self.system).analyze_study(filled, _key(filled))


class AuditDoor(Protocol):
    """What every system's face offers a rating study (its ``audit.py``, through the face)."""

    def study_columns(self) -> list[str]: ...

    def export_study(self, run: Path, out: Path, n: int, seed: int) -> int: ...

    def analyze_study(self, filled: Path, key: Path) -> BaseModel: ...


def _audit(system: str) -> AuditDoor:
    """The system's face, imported when a study first needs it (the app starts without it)."""
    return cast(AuditDoor, importlib.import_module(f"normlab.{system}"))


def _key(filled: Path) -> Path:
    """The key file the export wrote beside the study's items (``items.key.jsonl``)."""
    return filled.parent / "items.key.jsonl"


KINDS: dict[str, StudyKind] = {
    kind.name: kind
    for kind in [
        StudyKind(
            "losona-audit",
            "LoSoNA judge audit (§7)",
            "losona",
            "Does the response comply with the group's norm?",
            "human_complies",
            (("yes", "Complies"), ("no", "Breaches")),
            "human_notes",
        ),
        StudyKind(
            "scene-audit",
            "SCENE label and fidelity audit",
            "scene",
            "Answer the question about this episode.",
            "human_answer",
            (("yes", "Yes"), ("no", "No")),
            "human_notes",
        ),
        StudyKind(
            "hsii-grading",
            "HSII pairwise grading",
            "hsii",
            "Which is the more proper next statement of the assistant?",
            "human_verdict",
            (("A", "A is better"), ("equal", "Equal"), ("B", "B is better")),
            "human_notes",
        ),
        StudyKind(
            "crsec-questionnaire",
            "CRSEC questionnaire (Appendix D)",
            "crsec",
            "Rate how well the output fits the input and the agent (1 = not at all, 7 = fully).",
            "score",
            tuple((str(n), str(n)) for n in range(1, 8)),
            None,
        ),
    ]
}


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
    items_csv = staging / "items.csv"
    kind.export(run, items_csv, n, seed)
    for path in staging.iterdir():
        if path.is_file():
            os.chmod(path, 0o600)
    items = [
        (row["item_id"], json.dumps(row, ensure_ascii=False))
        for _, row in read_csv_rows(items_csv, ("item_id",))
    ]
    study = store.create_study(kind.name, title, str(run), items, max_raters)
    staging.rename(study_folder(state, study))
    return study


def filled_csv(store: Store, state: Path, study: Study, rater: Rater) -> Path:
    """The study's items CSV with this rater's answers filled in (blank where unanswered),
    ``ratings-RATER_ID.csv`` beside the key, replaced whole (never seen half-written)."""
    kind = KINDS[study.kind]
    answers: dict[str, Rating] = store.ratings(rater)
    folder = study_folder(state, study)
    path = folder / f"ratings-{rater.id}.csv"
    handle, temporary = tempfile.mkstemp(  # 0600, a name of its own per call
        prefix=f".ratings-{rater.id}-", suffix=".tmp", dir=folder
    )
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=kind.columns())
            writer.writeheader()
            for item in store.items(study.id):
                row = json.loads(item.payload)
                rating = answers.get(item.item_id)
                row[kind.answer_column] = rating.answer if rating else ""
                if kind.notes_column:
                    row[kind.notes_column] = rating.notes if rating else ""
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
                lines.extend(summary_lines(_Single(value=inner), f"{label} {key}"))
        elif isinstance(value, float):
            lines.append((label, format_number(value)))
        else:
            lines.append((label, str(value)))
    return [(label.replace(" value", ""), text) for label, text in lines]


class _Single(BaseModel):
    value: Agreement | Rate | Estimate
