"""Curation by people, from the command line: export, two curators, agreement, apply."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import load_cases, load_dialogues
from normlab.hsii.bank import load_bank
from normlab.hsii.criteria import CRITERIA
from normlab.hsii.curated import apply_curation
from normlab.hsii.curation import read_curation

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()
AMENDED = "Intelligent Assistant -> alice: Alice, the ward office takes requests on weekdays."


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    out = tmp_path / "bank"
    invoke(
        "hsii", "import-dialogues", str(FIXTURES / "native_forum.csv"), "--out", str(out),
        "--assistant", "mod",
    )  # fmt: skip
    return out


def fill(
    template: Path, out: Path, curator: str, decisions: dict[tuple[str, str], dict[str, str]]
) -> Path:
    with template.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row.update(decisions.get((row["level"], row["item"]), {}))
        row["curator"] = curator
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return out


def test_curators_reject_amend_and_keep_and_the_bank_validates(bank: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "curation.csv"
    assert "20 items" not in invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    both = {  # what both curators decide alike
        ("scenario", "thread-1"): {
            "curator_decision": "accept",
            "curator_criteria": "participants; realism",
        },
        ("dialogue", "thread-1"): {"curator_decision": "accept"},
    }
    ann = fill(
        sheet,
        tmp_path / "ann.csv",
        "ann",
        {
            **both,
            ("case", "thread-1#5"): {"curator_decision": "reject", "curator_notes": "off topic"},
            ("case", "thread-1#7"): {"curator_decision": "amend", "curator_amended": AMENDED},
            ("scenario", "thread-2"): {"curator_decision": "reject"},
        },
    )
    bo = fill(
        sheet,
        tmp_path / "bo.csv",
        "bo",
        {**both, ("case", "thread-1#5"): {"curator_decision": "accept"}},
    )
    shown = json.loads(invoke("hsii", "curate", "import", str(ann), str(bo), "--json"))
    same = shown["agreement"]["same_decision"]["ann / bo"]
    assert (same["k"], same["n"]) == (2, 3)
    assert shown["agreement"]["kept"]["ann / bo"]["n"] == 3
    assert shown["curators"][str(ann)]["rejected"] == 2

    out = tmp_path / "curated"
    output = invoke(
        "hsii", "curate", "apply", str(ann), str(bo), "--bank", str(bank), "--out", str(out)
    )
    assert "lint: clean" in output
    cases = {case.case_id: case for case in load_cases(out / "cases.jsonl")}
    assert sorted(cases) == ["thread-1#3", "thread-1#7"]  # #5: rejected by ann; thread-2: gone
    assert cases["thread-1#7"].golden.content == AMENDED.split(": ", 1)[1]
    assert cases["thread-1#7"].golden.index == "7"
    decisions = cases["thread-1#7"].provenance.curator_decisions  # type: ignore[union-attr]
    assert [(d.curator, d.decision, d.note) for d in decisions] == [
        ("ann", "accept", "scenario"),
        ("bo", "accept", "scenario"),
        ("ann", "accept", "dialogue"),
        ("bo", "accept", "dialogue"),
        ("ann", "amend", "case"),
    ]
    assert decisions[0].criteria == {name: name in ("participants", "realism") for name in CRITERIA}
    assert cases["thread-1#3"].provenance.source == "native"  # type: ignore[union-attr]
    assert [d.dialogue_id for d in load_dialogues(out / "dialogues.jsonl")] == ["thread-1"]
    validated = runner.invoke(app, ["hsii", "validate", str(out)])
    assert validated.exit_code == 0, validated.output


def test_an_amended_dialogue_is_cut_again(bank: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    turns = "\n".join(
        [
            "alice -> Intelligent Assistant: When is pickup?",
            "bob -> alice: Mondays now.",
            "Intelligent Assistant -> bob: Bob, thanks.",
            "Intelligent Assistant -> alice: Alice, Mondays.",
        ]
    )
    filled = fill(
        sheet,
        tmp_path / "cy.csv",
        "cy",
        {("dialogue", "thread-1"): {"curator_decision": "amend", "curator_amended": turns}},
    )
    curated, summary = apply_curation(load_bank(bank), read_curation(filled))
    assert [c.case_id for c in curated.cases] == ["thread-1#3", "thread-1#4"]
    assert [c.golden.role_to for c in curated.cases] == ["bob", "alice"]
    assert summary.amendments == 1 and summary.cases_unreviewed == 2  # thread-2: nobody decided


def test_a_bad_decision_or_a_breaking_amendment_names_the_line(bank: Path, tmp_path: Path) -> None:
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    bad = fill(
        sheet, tmp_path / "bad.csv", "x", {("case", "thread-1#3"): {"curator_decision": "maybe"}}
    )
    with pytest.raises(InputError, match="accept, amend or reject") as raised:
        read_curation(bad)
    assert raised.value.field == "curator_decision" and raised.value.line is not None
    breaking = fill(
        sheet,
        tmp_path / "breaking.csv",
        "x",
        {
            ("case", "thread-1#3"): {
                "curator_decision": "amend",
                "curator_amended": "bob -> zed: hi",
            }
        },
    )
    result = runner.invoke(
        app,
        [
            "hsii",
            "curate",
            "apply",
            str(breaking),
            "--bank",
            str(bank),
            "--out",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 2 and "field 'curator_amended'" in result.output


def test_two_files_with_one_curator_name_are_an_error_not_a_lost_agreement(
    bank: Path, tmp_path: Path
) -> None:
    """Issue 31: both files said "ann"; their rows merged into one curator and the agreement
    between the two was silently left out."""
    sheet = tmp_path / "curation.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    decided = {("scenario", "thread-1"): {"curator_decision": "accept"}}
    first = fill(sheet, tmp_path / "first.csv", "ann", decided)
    second = fill(sheet, tmp_path / "second.csv", "ann", decided)
    for command in (
        ["hsii", "curate", "import", str(first), str(second)],
        ["hsii", "curate", "apply", str(first), str(second), "--bank", str(bank), "--out",
         str(tmp_path / "out")],
    ):  # fmt: skip
        result = runner.invoke(app, command)
        assert result.exit_code == 2, result.output
        (line,) = [line for line in result.output.splitlines() if line.strip()]
        assert str(second) in line and "field 'curator'" in line and str(first) in line
