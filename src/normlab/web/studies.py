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
import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from normlab.core.csvio import read_csv_rows
from normlab.core.errors import InputError
from normlab.core.outputs import replacing
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
    columns: Callable[[], list[str]]
    export: Callable[[Path, Path, int, int], int]
    """(run folder, CSV to write, how many, seed) → rows written (key file beside the CSV)."""
    analyze: Callable[[Path], BaseModel]
    """Filled CSV (key beside it) → the system's analysis."""

    @property
    def hidden(self) -> set[str]:
        return {"item_id", self.answer_column, *([self.notes_column] if self.notes_column else [])}


def _losona_export(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.losona.audit import export_audit
    from normlab.losona.rescore import records_and_scenarios

    records, scenarios = records_and_scenarios([run], None)
    return export_audit(records, scenarios, n, out, seed)


def _losona_analyze(filled: Path) -> BaseModel:
    from normlab.losona.audit import import_audit

    return import_audit(filled, _key(filled))


def _losona_columns() -> list[str]:
    from normlab.losona.audit import AUDIT_COLUMNS

    return AUDIT_COLUMNS


def _scene_export(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.scene.audit import export_audit

    return export_audit([run], out, n, seed)


def _scene_analyze(filled: Path) -> BaseModel:
    from normlab.scene.audit import import_audit

    return import_audit(filled, _key(filled))


def _scene_columns() -> list[str]:
    from normlab.scene.audit import AUDIT_COLUMNS

    return AUDIT_COLUMNS


def _hsii_export(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.hsii.audit import export_grading

    return export_grading([run], out, n, seed)


def _hsii_analyze(filled: Path) -> BaseModel:
    from normlab.hsii.audit import import_grading

    return import_grading(filled, _key(filled))


def _hsii_columns() -> list[str]:
    from normlab.hsii.audit import GRADING_COLUMNS

    return GRADING_COLUMNS


def _crsec_export(run: Path, out: Path, n: int, seed: int) -> int:
    """The questionnaire's rows, each with an ``item_id`` and the pair in the paper's template."""
    from normlab.crsec.audit import COLUMNS, questionnaire_rows

    rows = questionnaire_rows([run], seed, n)
    if not rows:
        raise InputError(run, "no operations to rate in this run")
    with replacing(out) as handle:
        writer = csv.DictWriter(handle, fieldnames=_crsec_columns())
        writer.writeheader()
        for index, line in enumerate(rows, start=1):
            row = {"item_id": f"Q{index:04d}", **{c: line.row[c] for c in COLUMNS}}
            writer.writerow({**row, "pair_text": line.text, "introduction": line.introduction})
    return len(rows)


def _crsec_analyze(filled: Path) -> BaseModel:
    from normlab.crsec.audit import import_ratings

    return import_ratings([filled])


def _crsec_columns() -> list[str]:
    from normlab.crsec.audit import COLUMNS

    return ["item_id", "introduction", "pair_text", *COLUMNS]


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
            _losona_columns,
            _losona_export,
            _losona_analyze,
        ),
        StudyKind(
            "scene-audit",
            "SCENE label and fidelity audit",
            "scene",
            "Answer the question about this episode.",
            "human_answer",
            (("yes", "Yes"), ("no", "No")),
            "human_notes",
            _scene_columns,
            _scene_export,
            _scene_analyze,
        ),
        StudyKind(
            "hsii-grading",
            "HSII pairwise grading",
            "hsii",
            "Which is the more proper next statement of the assistant?",
            "human_verdict",
            (("A", "A is better"), ("equal", "Equal"), ("B", "B is better")),
            "human_notes",
            _hsii_columns,
            _hsii_export,
            _hsii_analyze,
        ),
        StudyKind(
            "crsec-questionnaire",
            "CRSEC questionnaire (Appendix D)",
            "crsec",
            "Rate how well the output fits the input and the agent (1 = not at all, 7 = fully).",
            "score",
            tuple((str(n), str(n)) for n in range(1, 8)),
            None,
            _crsec_columns,
            _crsec_export,
            _crsec_analyze,
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
