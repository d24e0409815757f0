"""r1–r4 and the HSII score of twelve records in three dialogues, counted by hand (issue 31).

Definition 1 (§5.2.1): "we count the rate of successful parsing r1 = n1/n, then from parsed
output dict we match target selection … to get successful target selection rate r2 = n2/n1 …
win rate of the test model r3 = n3/n2 … long-run win rate r4 = n4/n2."
Table 1's form (every row of the table): ι = r1 (1 + α β r2 (r3 + γ r4)), α = β = γ = 1,
which is (n1 + n3 + n4) / n. B.5: "our evaluation criteria assess whether the output contains
the essential elements required". §6.3: the golden "covers all possible duplicated names".

Each record exercises one reading of issue 31: prose "To …:" (item 1), "&" for "and" (2), key
lines in any case or markup (4), apostrophe surnames and NFD (5), a cut-off reply, a word run
of the name and an ambiguous one (6). Verdicts are from the subject's side, one per order; the
win rule is ToolEval's (win iff more wins than losses; a tie is worth the tie weight, 0 here).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from normlab.hsii.analysis import Weights, analyze_records, stages_of
from normlab.hsii.schemas import TrialRecord, Verdict

SITE = ["HEALTH AND SAFETY INSPECTOR", "SITE MANAGER", "Tom O'Brien", "CRANE OPERATOR"]
PLANT = ["Zoë Brandt", "UNION REP", "PLANT MANAGER", "Carlos Moya", "Carlos Gomez"]
WARD = ["DR. MARA QUINN (WARD SISTER)", "PORTER", "RELATIVE"]
NFD_ZOE = "Zoe\u0308 Brandt"  # the same name, decomposed: "e" + combining diaeresis

Verdicts = list[Verdict | None] | None
Row = tuple[str, list[str], str, str, Verdicts, Verdicts, tuple[int, int, int, int]]
# (case, cast, golden, reply, first verdicts, long verdicts, expected (parsed, right, r3, r4))
ROWS: list[Row] = [
    # item 2: "&" is "and" → parsed, right; first win/win → win; long win/loss → tie (0).
    ("site#1", SITE, SITE[0],
     '{"role_to": "Health & Safety Inspector", "content": "Please check the crane."}',
     ["win", "win"], ["win", "loss"], (1, 1, 1, 0)),
    # items 1 + 6: "To NAME:" whose NAME is a word run only the inspector's name has → right;
    # first win/tie → win (1 win > 0 losses); long loss/loss → loss.
    ("site#2", SITE, SITE[0], "To the safety inspector: the crane passed its check.",
     ["win", "tie"], ["loss", "loss"], (1, 1, 1, 0)),
    # item 1: prose, not an address → not parsed (today it parsed and added 1/n to ι).
    ("site#3", SITE, SITE[1], "To be clear: nobody restarts line 3 today.",
     None, None, (0, 0, 0, 0)),
    # item 5: a surname with an apostrophe is one word → right; first loss/win → tie (0);
    # long win/win → win.
    ("site#4", SITE, SITE[2], '{"role_to": "O\'Brien", "content": "Your shift starts at six."}',
     ["loss", "win"], ["win", "win"], (1, 1, 0, 1)),
    # item 4: key lines in capitals → parsed, right; first win/win → win; long never ran →
    # missing, no win, still in n2.
    ("plant#1", PLANT, PLANT[1], "Target: UNION REP\nMessage: The vote is at noon.",
     ["win", "win"], None, (1, 1, 1, 0)),
    # item 5: an NFD reply to an NFC golden → right; first loss/loss; long tie/tie → tie (0).
    ("plant#2", PLANT, PLANT[0], f'{{"role_to": "{NFD_ZOE}", "content": "The rota is out."}}',
     ["loss", "loss"], ["tie", "tie"], (1, 1, 0, 0)),
    # item 6: "Carlos" is a word run of two names → ambiguous → parsed, a miss.
    ("plant#3", PLANT, PLANT[3], '{"role_to": "Carlos", "content": "Bring the forklift."}',
     None, None, (1, 0, 0, 0)),
    # item 6: cut off inside the content, addressee and a statement complete → parsed, right;
    # first win/loss → tie (0); long win/tie → win.
    ("plant#4", PLANT, PLANT[2],
     '{"role_to": "plant manager", "content": "The second shift can start once the guard',
     ["win", "loss"], ["win", "tie"], (1, 1, 0, 1)),
    # items 4 + 6: markdown key lines; "Ward Sister" a word run of one name → right;
    # first win/win, long win/win.
    ("ward#1", WARD, WARD[0], "**role_to**: Ward Sister\n**content**: Bed 4 is ready.",
     ["win", "win"], ["win", "win"], (1, 1, 1, 1)),
    # item 1: "To NAME:" with NAME a near-miss of a character ("Portr") → parsed, a miss.
    ("ward#2", WARD, WARD[1], "To Portr: please bring the wheelchair.",
     None, None, (1, 0, 0, 0)),
    # No target at all → not parsed.
    ("ward#3", WARD, WARD[2], "I think we should wait for the doctor.",
     None, None, (0, 0, 0, 0)),
    # Two addressees → parsed, a miss.
    ("ward#4", WARD, WARD[2], '{"role_to": "Relative and Porter", "content": "Please sit."}',
     None, None, (1, 0, 0, 0)),
]  # fmt: skip

# n = 12
# n1 = parsed: all but site#3 and ward#3                                  = 10
# n2 = right:  site#1, site#2, site#4, plant#1, plant#2, plant#4, ward#1   = 7
# n3 = first wins among the right: site#1, site#2, plant#1, ward#1        = 4
# n4 = long wins among the right:  site#4, plant#4, ward#1                = 3
# r1 = 10/12, r2 = 7/10, r3 = 4/7, r4 = 3/7
# ι (table)   = r1 (1 + r2 (r3 + r4)) = 10/12 · (1 + 7/10 · 7/7) = 10/12 · 17/10 = 17/12
#             = (n1 + n3 + n4) / n = (10 + 4 + 3) / 12 = 17/12 ≈ 1.4167
# ι (printed) = r1 (1 + r2 (1 + r3 + r4)) = 10/12 · (1 + 7/10 · 2) = 10/12 · 12/5 = 2
# With ties worth ½: n3 = 4 + ½ (site#4, plant#4) = 5, n4 = 3 + ½ (site#1, plant#2) = 4,
# ι = (10 + 5 + 4) / 12 = 19/12.


def records() -> list[TrialRecord]:
    return [
        TrialRecord(
            case_id=case_id,
            subject_model="m",
            response=reply,
            golden_target=golden,
            characters=cast,
            first_verdicts=first,
            long_verdicts=long,
        )
        for case_id, cast, golden, reply, first, long, _ in ROWS
    ]


@pytest.mark.parametrize("row", ROWS, ids=[row[0] for row in ROWS])
def test_each_record_scores_as_counted_by_hand(row: Row) -> None:
    (record,) = [r for r in records() if r.case_id == row[0]]
    parsed, right, first, long = row[-1]
    stages = stages_of(record)
    assert stages["r1"] == parsed
    if not parsed:
        assert all(math.isnan(stages[s]) for s in ("r2", "r3", "r4"))
        return
    assert stages["r2"] == right
    if right:
        assert (stages["r3"], stages["r4"]) == (first, long)


def test_the_rates_and_the_hsii_score_equal_the_hand_count() -> None:
    result = analyze_records(records()).models["m"]
    assert (result.n, result.n1, result.n2, result.n3, result.n4) == (12, 10, 7, 4, 3)
    assert result.r1 == pytest.approx(float(Fraction(10, 12)))
    assert result.r2 == pytest.approx(float(Fraction(7, 10)))
    assert result.r3 == pytest.approx(float(Fraction(4, 7)))
    assert result.r4 == pytest.approx(float(Fraction(3, 7)))
    assert result.hsii == pytest.approx(float(Fraction(17, 12)))
    assert result.hsii_printed == pytest.approx(2.0)
    assert result.dialogues == 3
    halves = analyze_records(records(), Weights(tie_weight=0.5)).models["m"]
    assert (halves.n3, halves.n4) == (5.0, 4.0)
    assert halves.hsii == pytest.approx(float(Fraction(19, 12)))
