"""Human audit of the judge (paper §7): export a random sample to label, import the labels.

``export`` writes a CSV for people to label blind — the judge's verdict is not in
it — and a key file beside it that maps each item back to its trial record and
judge label. ``import`` reads the labelled CSV with that key and reports what §7
reports: agreement with the judge, the judge's and the humans' compliant shares,
and the judge's false positives (judge says complies, human says breach) and
false negatives (judge says breach, human says complies).
"""

from __future__ import annotations

import random
from pathlib import Path

from pydantic import BaseModel

from normlab.core.chat import render_transcript
from normlab.core.csvio import SpreadsheetWriter, csv_rows, key_path_for
from normlab.core.errors import InputError, at_least
from normlab.core.jsonio import append_jsonl, read_jsonl_rows, validate_row
from normlab.core.outputs import output_file, replacing
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.stats import Agreement

AUDIT_COLUMNS = [
    "item_id",
    "norm_statement",
    "transcript_before_elicitor",
    "elicitor",
    "subject",
    "response",
    "human_complies",
    "human_notes",
]
TRUE_WORDS = {"true", "yes", "y", "1", "comply", "complies"}
FALSE_WORDS = {"false", "no", "n", "0", "breach", "breaches"}


class AuditKeyRow(BaseModel):
    item_id: str
    record: TrialRecord


def export_audit(
    records: list[TrialRecord],
    scenarios: dict[str, Scenario],
    n: int,
    out_csv: Path,
    seed: int = 0,
) -> int:
    """Write ``n`` random judged trials (parse failures excluded) for blind labelling."""
    at_least("--n", n, 1)
    output_file(out_csv, "--out")
    labelled = [record for record in records if record.complies is not None]
    if not labelled:
        raise InputError(out_csv, "no judged trials to audit")
    chosen = random.Random(seed).sample(labelled, min(n, len(labelled)))
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    key_path = key_path_for(out_csv)
    key_path.unlink(missing_ok=True)
    with replacing(out_csv) as handle:
        writer = SpreadsheetWriter(handle, AUDIT_COLUMNS)
        writer.writeheader()
        for index, record in enumerate(chosen, start=1):
            scenario = scenarios.get(record.scenario_id)
            if scenario is None:
                raise InputError(
                    "--data", f"no scenario for {record.scenario_id!r}", field="scenario_id"
                )
            item_id = f"A{index:04d}"
            writer.writerow(
                {
                    "item_id": item_id,
                    "norm_statement": scenario.norm_statement,
                    "transcript_before_elicitor": render_transcript(scenario.prior_turns),
                    "elicitor": f"{scenario.elicitor.actor}: {scenario.elicitor.content}",
                    "subject": scenario.subject,
                    "response": record.response,
                    "human_complies": "",
                    "human_notes": "",
                }
            )
            append_jsonl(key_path, AuditKeyRow(item_id=item_id, record=record))
    return len(chosen)


class AuditResult(BaseModel):
    """Human labels (second rater) against the judge's (first rater), §7's numbers."""

    agreement: Agreement
    n_unlabelled: int
    judge_compliant_share: float | None
    human_compliant_share: float | None
    false_positives: int
    false_negatives: int
    judge_models: list[str]


def _parse_label(value: str, path: Path, line: int) -> bool | None:
    text = value.strip().lower()
    if not text:
        return None
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise InputError(
        path,
        f"expected yes/no (or true/false, 1/0), got {value!r}",
        line=line,
        field="human_complies",
    )


def import_audit(csv_path: Path, key_path: Path | None = None) -> AuditResult:
    """Compare human labels in the CSV with the judge labels in its key file."""
    key_path = key_path or key_path_for(csv_path)
    if not key_path.exists():
        raise InputError(key_path, "audit key file not found (written by 'audit export')")
    keys = {
        row.item_id: row.record
        for line, raw in read_jsonl_rows(key_path)
        for row in [validate_row(AuditKeyRow, raw, key_path, line)]
    }
    judge: list[bool] = []
    human: list[bool] = []
    unlabelled = 0
    seen: dict[str, int] = {}
    for line, row in csv_rows(csv_path, ("item_id", "human_complies")):
        if row["item_id"] in seen:
            raise InputError(
                csv_path,
                f"item {row['item_id']!r} appears twice (first on line "
                f"{seen[row['item_id']]}); each item is labelled once",
                line=line,
                field="item_id",
            )
        seen[row["item_id"]] = line
        label = _parse_label(row["human_complies"], csv_path, line)
        record = keys.get(row["item_id"])
        if record is None:
            raise InputError(
                csv_path,
                f"item {row['item_id']!r} is not in {key_path.name}",
                line=line,
                field="item_id",
            )
        if label is None:
            unlabelled += 1
            continue
        judge.append(bool(record.complies))
        human.append(label)
    n = len(judge)
    agreement = Agreement.of(judge, human)
    return AuditResult(
        agreement=agreement,
        n_unlabelled=unlabelled,
        judge_compliant_share=sum(judge) / n if n else None,
        human_compliant_share=sum(human) / n if n else None,
        false_positives=agreement.first_true_second_false,
        false_negatives=agreement.first_false_second_true,
        judge_models=sorted({record.judge_model for record in keys.values()}),
    )


def export_study(run: Path, out: Path, n: int, seed: int) -> int:
    """A web rating study's items: ``n`` trials of one run folder (the key beside ``out``)."""
    from normlab.losona.rescore import records_and_scenarios

    records, scenarios = records_and_scenarios([run], None)
    return export_audit(records, scenarios, n, out, seed)
