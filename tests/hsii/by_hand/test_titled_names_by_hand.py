"""Issue 41, item 10: a title + surname naming one character is that character, counted by hand.

§6.3: r2 compares "the chosen target name with golden standard, which covers all possible
duplicated names"; the README reads that as: a word run or a title + surname that exactly
one character's name holds names that character, one two names hold is a miss. Definition 1
(§5.2.1): "r1 = n1/n … r2 = n2/n1 … r3 = n3/n2 … r4 = n4/n2"; Table 1's form is
ι = r1 (1 + α β r2 (r3 + γ r4)) and Eq. 1 as printed ι = r1 (1 + α r2 (1 + β (r3 + γ r4))),
α = β = γ = 1. Verdicts are from the subject's side, one per order (ToolEval's rule: a win iff
more wins than losses; a tie is worth 0).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii.aliases import fill_aliases
from normlab.hsii.analysis import ModelResult, analyze_records
from normlab.hsii.schemas import TrialRecord

WARD = ["Dr. Siobhán Ní Bhriain", "Dr. Mara Quinn", "SITE MANAGER"]
LAB = ["Dr. Anneke van der Berg", "Prof. Luis de la Cruz", "UNION REP"]
SISTERS = ["Dr. Siobhán Ní Bhriain", "Dr. Pádraig Ní Bhriain", "SITE MANAGER"]

ROWS = [
    # The held-out record: "Dr Ní Bhriain" (no full stop, given name skipped, a surname of two
    # words), unique in the case. Before: the only title alias was "Dr Bhriain" (the last word)
    # and "dr ní bhriain" is no run of the name → a miss. Now: right. first win/win → win;
    # long win/loss → tie (0).
    ("w#1", WARD, WARD[0], '{"role_to": "Dr Ní Bhriain", "content": "Bed four is ready."}',
     ["win", "win"], ["win", "loss"]),
    # "To Doctor Van der Berg:", the title long and the surname's letter case otherwise; before:
    # a miss (the alias was "Dr Berg"). Now: right. first loss/loss → loss; long win/win → win.
    ("l#1", LAB, LAB[0], "To Doctor Van der Berg: the samples are labelled.",
     ["loss", "loss"], ["win", "win"]),
    # Two characters share "Dr Ní Bhriain": it names neither, a miss, as before (parsed).
    ("s#1", SISTERS, SISTERS[0], '{"role_to": "Dr. Ni Bhriain", "content": "Bed four."}',
     ["win", "win"], ["win", "win"]),
]  # fmt: skip

# n = 3
# n1 = parsed: w#1, l#1, s#1                                  = 3
# n2 = right:  w#1, l#1                                       = 2   (before: 0)
# n3 = first wins among the right: w#1                        = 1
# n4 = long wins among the right:  l#1                        = 1
# r1 = 3/3 = 1, r2 = 2/3, r3 = 1/2, r4 = 1/2
# table:   ι = 1 · (1 + 1·1 · 2/3 · (1/2 + 1·1/2))       = 1 + 2/3       = 5/3
#          (= (n1 + n3 + n4)/n = (3 + 1 + 1)/3 = 5/3)
# printed: ι = 1 · (1 + 1 · 2/3 · (1 + 1 · (1/2 + 1/2))) = 1 + 2/3 · 2   = 7/3
# before:  r2 = 0, r3 and r4 reached by no case (0): table ι = 1, printed ι = 1.
#
# The held-out record alone: n = n1 = n2 = 1, n3 = 1, n4 = 0 (a tie): r1 = r2 = r3 = 1, r4 = 0;
# table ι = 1 · (1 + 1 · (1 + 0)) = 2; printed ι = 1 · (1 + 1 · (1 + (1 + 0))) = 3 (before: 1, 1).


def records(rows: list[tuple[str, list[str], str, str, list[str], list[str]]]) -> list[str]:
    """The rows as trial records, each with the aliases ``hsii build`` gives its cast."""
    return [
        json.dumps(
            {
                "case_id": case_id,
                "subject_model": "m",
                "response": reply,
                "golden_target": golden,
                "characters": cast,
                "aliases": fill_aliases(cast),
                "first_verdicts": first,
                "long_verdicts": long,
            },
            ensure_ascii=False,
        )
        for case_id, cast, golden, reply, first, long in rows
    ]


def analysed(rows: list[tuple[str, list[str], str, str, list[str], list[str]]]) -> ModelResult:
    found = [TrialRecord.model_validate(json.loads(line)) for line in records(rows)]
    return analyze_records(found).models["m"]


def test_the_three_records_score_as_counted_by_hand() -> None:
    result = analysed(ROWS)
    assert (result.n, result.n1, result.n2, result.n3, result.n4) == (3, 3, 2, 1, 1)
    assert result.r1 == pytest.approx(1.0)
    assert result.r2 == pytest.approx(float(Fraction(2, 3)))
    assert result.r3 == pytest.approx(0.5)
    assert result.r4 == pytest.approx(0.5)
    assert result.hsii == pytest.approx(float(Fraction(5, 3)))
    assert result.hsii_printed == pytest.approx(float(Fraction(7, 3)))


def test_the_held_out_record_alone_scores_as_counted_by_hand() -> None:
    result = analysed(ROWS[:1])
    assert (result.n, result.n1, result.n2, result.n3, result.n4) == (1, 1, 1, 1, 0)
    assert (result.r2, result.r3, result.r4) == (1.0, 1.0, 0.0)
    assert result.hsii == pytest.approx(2.0)
    assert result.hsii_printed == pytest.approx(3.0)


def test_hsii_analyze_reports_the_hand_count(tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text("\n".join(records(ROWS)) + "\n", encoding="utf-8")
    done = CliRunner().invoke(app, ["hsii", "analyze", str(path), "--json"])
    assert done.exit_code == 0, done.output
    model = json.loads(done.stdout)["models"]["m"]
    assert (model["n"], model["n1"], model["n2"], model["n3"], model["n4"]) == (3, 3, 2, 1, 1)
    assert model["hsii"] == pytest.approx(float(Fraction(5, 3)))
    assert model["hsii_printed"] == pytest.approx(float(Fraction(7, 3)))
