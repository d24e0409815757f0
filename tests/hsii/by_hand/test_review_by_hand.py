"""Six records of the issue 31 review, counted by hand, through ``normlab hsii analyze``.

Definition 1 (§5.2.1): "we count the rate of successful parsing r1 = n1/n, then from parsed
output dict we match target selection … to get successful target selection rate r2 = n2/n1 …
win rate of the test model r3 = n3/n2 … long-run win rate r4 = n4/n2"; Table 1's form is
ι = (n1 + n3 + n4) / n. §6.3: the golden "covers all possible duplicated names". B.5: the
output must contain "the essential elements required", so prose is not an address.

Each record is one finding of the review: ``@NAME …`` read through the one name rule (the
"&", an NFD "Zoë", a typographic apostrophe), prose "To start:"/"To manage:" that was a near
miss of one word of a name, and a given alias the name shares with another ("Carlos").
Verdicts are from the subject's side, one per order (ToolEval's rule: win iff more wins than
losses; a tie is worth 0 here).
"""

from __future__ import annotations

import json
import unicodedata
from fractions import Fraction
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii.aliases import fill_aliases
from normlab.hsii.analysis import analyze_records
from normlab.hsii.schemas import TrialRecord

HEALTH = ["HEALTH AND SAFETY INSPECTOR", "HEALTH VISITOR"]
ZOES = ["Zoë Brandt", "Zoë Martin"]
TOMS = ["Tom O'Brien", "Tom Hardy"]
ROADWORKS = ["STREET WORKS INSPECTOR", "STARTUP OPERATIONS LEAD", "RESTAURANT OWNER"]
SITE = ["SITE MANAGER", "UNION REP"]
CARLOS = ["Carlos Moya", "Carlos Gomez"]

ROWS = [
    # "@Health & Safety Inspector," names the inspector whole (it kept "Health": two names').
    # parsed, right; first win/win → win; long win/win → win.
    ("a#1", HEALTH, HEALTH[0], "@Health & Safety Inspector, please check.",
     ["win", "win"], ["win", "win"], {}),
    # An NFD "@Zoë Brandt" (it kept "Zoë": two names'). parsed, right; first win/loss → tie
    # (0); long win/win → win.
    ("a#2", ZOES, ZOES[0], "@" + unicodedata.normalize("NFD", "Zoë Brandt") + " the rota is out.",
     ["win", "loss"], ["win", "win"], {}),
    # "@Tom O’Brien" with a typographic apostrophe (it kept "Tom"). parsed, right; first
    # win/win → win; the long run never ran → missing, no win, still in n2.
    ("a#3", TOMS, TOMS[0], "@Tom O’Brien your shift starts at six.", ["win", "win"], None, {}),
    # Prose: "start" was within 0.8 of STARTUP → parsed as an address. Now not parsed.
    ("t#1", ROADWORKS, ROADWORKS[2], "To start: the road closes at six.", None, None, {}),
    # Prose: "manage" was within 0.8 of MANAGER → parsed. Now not parsed.
    ("t#2", SITE, SITE[1], "To manage: the vote is at noon.", None, None, {}),
    # "Carlos", given as Carlos Moya's alias, was dropped (a run of his own name, though Carlos
    # Gomez's too) and named nobody. Kept, it names him: parsed, right; first win/win → win;
    # long loss/loss → loss.
    ("c#1", CARLOS, CARLOS[0], '{"role_to": "Carlos", "content": "Bring the forklift."}',
     ["win", "win"], ["loss", "loss"], fill_aliases(CARLOS, {"Carlos Moya": ["Carlos"]})),
]  # fmt: skip

# n = 6
# n1 = parsed: a#1, a#2, a#3, c#1                 = 4   (before the review's fixes: 6)
# n2 = right:  a#1, a#2, a#3, c#1                 = 4   (before: 0)
# n3 = first wins among the right: a#1, a#3, c#1  = 3
# n4 = long wins among the right:  a#1, a#2       = 2
# r1 = 4/6, r2 = 4/4, r3 = 3/4, r4 = 2/4
# ι = (n1 + n3 + n4) / n = (4 + 3 + 2) / 6 = 9/6 = 3/2   (before: (6 + 0 + 0) / 6 = 1)


def write_records(path: Path) -> Path:
    lines = [
        json.dumps(
            {
                "case_id": case_id,
                "subject_model": "m",
                "response": reply,
                "golden_target": golden,
                "characters": cast,
                "aliases": aliases,
                "first_verdicts": first,
                "long_verdicts": long,
            },
            ensure_ascii=False,
        )
        for case_id, cast, golden, reply, first, long, aliases in ROWS
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_aliases_given_are_kept() -> None:
    assert ROWS[-1][-1] == {"Carlos Moya": ["Carlos"]}


def test_the_review_records_score_as_counted_by_hand(tmp_path: Path) -> None:
    records = [
        TrialRecord.model_validate(json.loads(line))
        for line in write_records(tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    result = analyze_records(records).models["m"]
    assert (result.n, result.n1, result.n2, result.n3, result.n4) == (6, 4, 4, 3, 2)
    assert result.r1 == pytest.approx(float(Fraction(4, 6)))
    assert result.r2 == pytest.approx(1.0)
    assert result.r3 == pytest.approx(float(Fraction(3, 4)))
    assert result.r4 == pytest.approx(float(Fraction(2, 4)))
    assert result.hsii == pytest.approx(1.5)


def test_hsii_analyze_reports_the_hand_count(tmp_path: Path) -> None:
    records = write_records(tmp_path / "r.jsonl")
    done = CliRunner().invoke(app, ["hsii", "analyze", str(records), "--json"])
    assert done.exit_code == 0, done.output
    model = json.loads(done.stdout)["models"]["m"]
    assert (model["n"], model["n1"], model["n2"], model["n3"], model["n4"]) == (6, 4, 4, 3, 2)
    assert model["hsii"] == pytest.approx(1.5)


# --- item 14: a trial-records file's misspelt field ----------------------------------------
# One record, parsed and right; first win/win → win; long win/win → win:
# n = n1 = n2 = n3 = n4 = 1, ι = (1 + 1 + 1) / 1 = 3. With "first_verdict" and "Long_Verdicts"
# dropped unseen (as before) both comparisons were missing: ι = (1 + 0 + 0) / 1 = 1.
RECORD = {
    "case_id": "x#1", "subject_model": "m",
    "response": json.dumps({"role_to": "Ann", "content": "x"}),
    "golden_target": "Ann", "characters": ["Ann", "Bo"],
}  # fmt: skip


def test_an_unknown_record_field_is_metadata_and_a_near_miss_is_refused(tmp_path: Path) -> None:
    verdicts = {"first_verdicts": ["win", "win"], "long_verdicts": ["win", "win"]}
    kept = tmp_path / "kept.jsonl"
    kept.write_text(json.dumps({**RECORD, **verdicts, "license": "CC-BY-4.0"}) + "\n")
    done = CliRunner().invoke(app, ["hsii", "analyze", str(kept), "--json"])
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["models"]["m"]["hsii"] == pytest.approx(3.0)
    misspelt = tmp_path / "misspelt.jsonl"
    typo = {"first_verdict": ["win", "win"], "Long_Verdicts": ["win", "win"]}
    misspelt.write_text(json.dumps({**RECORD, **typo}) + "\n")
    done = CliRunner().invoke(app, ["hsii", "analyze", str(misspelt), "--json"])
    lines = [line for line in done.output.splitlines() if line.strip()]
    assert done.exit_code == 2 and len(lines) == 1, done.output
    assert (
        f"{misspelt}:1: field 'first_verdict': unknown field, a near miss of 'first_verdicts'"
        in (lines[0])
    )
