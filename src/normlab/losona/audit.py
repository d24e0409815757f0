"""Human audit of the judge (paper §7): export a random sample to label, import the labels.

``export`` writes a CSV for people to label blind — the judge's verdict is not in
it — and a key file beside it that maps each item back to its trial record and
judge label. ``import`` reads the labelled CSV with that key and reports what §7
reports: agreement with the judge, the judge's and the humans' compliant shares,
and the judge's false positives (judge says complies, human says breach) and
false negatives (judge says breach, human says complies).
"""

from __future__ import annotations

import functools
import random
from pathlib import Path

from pydantic import BaseModel

from normlab.core.chat import render_transcript
from normlab.core.csvio import (
    NO_WORDS,
    YES_WORDS,
    AnswerColumn,
    KeyRow,
    read_answers,
    write_blind,
    yes_no,
)
from normlab.core.errors import InputError, at_least
from normlab.core.outputs import output_file
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.stats import Agreement

TRUE_WORDS = YES_WORDS | {"comply", "complies"}
FALSE_WORDS = NO_WORDS | {"breach", "breaches"}
COMPLIES = AnswerColumn(
    "human_complies",
    functools.partial(yes_no, yes=TRUE_WORDS, no=FALSE_WORDS),
    "yes/no (or true/false, 1/0)",
)
"""The label people write: does the response comply with the norm?"""
AUDIT_COLUMNS = [
    "item_id",
    "norm_statement",
    "transcript_before_elicitor",
    "elicitor",
    "subject",
    "response",
    COMPLIES.name,
    "human_notes",
]


class AuditKeyRow(KeyRow):
    """What labellers must not see: the trial record, with the judge's label."""

    record: TrialRecord


def export_audit(
    records: list[TrialRecord],
    scenarios: dict[str, Scenario],
    n: int,
    out_csv: Path,
    seed: int = 0,
) -> int:
    """Write ``n`` random judged trials (parse failures excluded) for blind labelling: every
    item is made before either file is written, so a trial without its scenario leaves an
    earlier CSV and its key as they were."""
    at_least("--n", n, 1)
    output_file(out_csv, "--out")
    labelled = [record for record in records if record.complies is not None]
    if not labelled:
        raise InputError(out_csv, "no judged trials to audit")
    chosen = random.Random(seed).sample(labelled, min(n, len(labelled)))
    items: list[tuple[dict[str, str], KeyRow]] = []
    for index, record in enumerate(chosen, start=1):
        scenario = scenarios.get(record.scenario_id)
        if scenario is None:
            raise InputError(
                "--data", f"no scenario for {record.scenario_id!r}", field="scenario_id"
            )
        shown = {
            "norm_statement": scenario.norm_statement,
            "transcript_before_elicitor": render_transcript(scenario.prior_turns),
            "elicitor": f"{scenario.elicitor.actor}: {scenario.elicitor.content}",
            "subject": scenario.subject,
            "response": record.response,
        }
        items.append((shown, AuditKeyRow(item_id=f"A{index:04d}", record=record)))
    return write_blind(out_csv, AUDIT_COLUMNS, items)


class AuditResult(BaseModel):
    """Human labels (second rater) against the judge's (first rater), §7's numbers."""

    agreement: Agreement
    n_unlabelled: int
    judge_compliant_share: float | None
    human_compliant_share: float | None
    false_positives: int
    false_negatives: int
    judge_models: list[str]


def import_audit(csv_path: Path, key_path: Path | None = None) -> AuditResult:
    """Compare human labels in the CSV with the judge labels in its key file."""
    answers = read_answers(csv_path, key_path, AuditKeyRow, COMPLIES)
    judge = [bool(key.record.complies) for key, _ in answers.answered]
    human = [label for _, label in answers.answered]
    n = len(judge)
    agreement = Agreement.of(judge, human)
    return AuditResult(
        agreement=agreement,
        n_unlabelled=len(answers.unanswered),
        judge_compliant_share=sum(judge) / n if n else None,
        human_compliant_share=sum(human) / n if n else None,
        false_positives=agreement.first_true_second_false,
        false_negatives=agreement.first_false_second_true,
        judge_models=sorted({key.record.judge_model for key in answers.keys}),
    )


def export_study(run: Path, out: Path, n: int, seed: int) -> int:
    """A web rating study's items: ``n`` trials of one run folder (the key beside ``out``)."""
    from normlab.losona.rescore import records_and_scenarios

    records, scenarios = records_and_scenarios([run], None)
    return export_audit(records, scenarios, n, out, seed)
