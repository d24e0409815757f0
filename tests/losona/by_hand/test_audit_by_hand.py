"""By hand: the human audit of the judge (paper §7) on §7's own numbers.

The paper: "we manually audited a random sample of 100 judged responses ... Human labels agreed
with the Gemini judge on 85% of audited items ... the judge marked fewer items compliant than
the human auditor did (29% versus 38%), with 3 apparent false positives and 12 apparent false
negatives." A false positive is the judge saying complies where the person says breach.

Those four numbers fix the whole 2×2 table (judge first, human second):

- judge complies 29 = both complies + false positives 3 → both complies 26;
- human complies 38 = both complies 26 + false negatives 12 ✓;
- both breach = 100 − 26 − 3 − 12 = 59;
- agreement = (26 + 59) / 100 = 0.85.

One more item is left blank: it is unlabelled, in none of the counts.
"""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from normlab.core.csvio import key_path_for
from normlab.core.jsonio import write_jsonl
from normlab.losona.audit import (
    AUDIT_COLUMNS,
    COMPLIES,
    FALSE_WORDS,
    TRUE_WORDS,
    AuditKeyRow,
    AuditResult,
    import_audit,
)
from normlab.losona.schemas import TrialRecord
from tests.losona.conftest import trial_row

TABLE = [(True, True)] * 26 + [(True, False)] * 3 + [(False, True)] * 12 + [(False, False)] * 59
"""§7's audit as (judge, human) labels."""


def write_audit(folder: Path, items: list[tuple[str, bool, str]]) -> Path:
    """A filled audit: per item its id, the judge's label (in the key) and what the person
    wrote (in the CSV), rows in the order given."""
    audit_csv = folder / "audit.csv"
    keys = [
        AuditKeyRow(
            item_id=item_id,
            record=TrialRecord.model_validate(trial_row(f"s{index}", 1, judge)),
        )
        for index, (item_id, judge, _) in enumerate(items)
    ]
    write_jsonl(key_path_for(audit_csv), keys)
    with audit_csv.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=AUDIT_COLUMNS)
        writer.writeheader()
        for item_id, _, written in items:
            writer.writerow(
                {column: "" for column in AUDIT_COLUMNS}
                | {"item_id": item_id, COMPLIES.name: written}
            )
    return audit_csv


def canonical(table: list[tuple[bool, bool | None]]) -> list[tuple[str, bool, str]]:
    return [
        (f"A{index:04d}", judge, "" if human is None else ("yes" if human else "no"))
        for index, (judge, human) in enumerate(table, start=1)
    ]


def test_section_7s_audit(tmp_path: Path) -> None:
    result = import_audit(write_audit(tmp_path, canonical([*TABLE, (True, None)])))
    assert (result.agreement.n, result.n_unlabelled) == (100, 1)
    assert result.agreement.rate.value == 0.85
    assert (result.judge_compliant_share, result.human_compliant_share) == (0.29, 0.38)
    assert (result.false_positives, result.false_negatives) == (3, 12)
    assert result.judge_models == ["j"]


def spelt(draw: st.DrawFn, label: bool | None) -> str:
    """One way a person may write ``label``: any word for it, in any case, padded."""
    if label is None:
        return draw(st.sampled_from(["", " ", "\t"]))
    word = draw(st.sampled_from(sorted(TRUE_WORDS if label else FALSE_WORDS)))
    cased = "".join(
        c.upper() if upper else c
        for c, upper in zip(
            word, draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word))), strict=True
        )
    )
    return draw(st.sampled_from(["", " "])) + cased + draw(st.sampled_from(["", " "]))


@st.composite
def audits(draw: st.DrawFn) -> tuple[list[tuple[str, bool, str]], list[tuple[str, bool, str]]]:
    """A small audit written plainly, and the same audit with other item ids, other words
    for each label in any case, and its rows in another order."""
    table = draw(
        st.lists(st.tuples(st.booleans(), st.sampled_from([True, False, None])), max_size=12)
    )
    plain = canonical(table)
    names = draw(st.permutations([f"item {index} é" for index in range(len(table))]))
    varied = [
        (name, judge, spelt(draw, human)) for name, (judge, human) in zip(names, table, strict=True)
    ]
    draw(st.randoms(use_true_random=False)).shuffle(varied)
    return plain, varied


def imported(items: list[tuple[str, bool, str]]) -> AuditResult:
    with tempfile.TemporaryDirectory() as folder:
        return import_audit(write_audit(Path(folder), items))


@settings(max_examples=40, deadline=None)
@given(audits())
def test_ids_words_case_and_row_order_change_nothing(
    audit: tuple[list[tuple[str, bool, str]], list[tuple[str, bool, str]]],
) -> None:
    plain, varied = audit
    assert imported(varied) == imported(plain)
