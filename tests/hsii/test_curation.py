"""Curation by people, from the command line: export, two curators, agreement, apply."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.csvio import TEXT_CELL_LIMIT
from normlab.core.errors import InputError
from normlab.hsii import load_cases, load_dialogues
from normlab.hsii.bank.files import load_bank
from normlab.hsii.curation.apply import amended_turns, apply_curation
from normlab.hsii.curation.criteria import CRITERIA
from normlab.hsii.curation.decisions import LINE, CuratorRow, dialogue_lines, read_curation
from normlab.hsii.schemas import Message

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
    before = csv.field_size_limit(TEXT_CELL_LIMIT)  # a cell may hold a long dialogue
    try:
        with template.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle))
    finally:
        csv.field_size_limit(before)
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


def apply(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["hsii", "curate", "apply", *args])
    return result.exit_code, result.output


def test_apply_never_writes_over_its_bank_and_replaces_an_old_bank_whole(
    bank: Path, tmp_path: Path
) -> None:
    """Issue 32: ``--out`` = ``--bank`` wrote over the bank it read; into an existing ``--out``
    it left the old ``dialogues.jsonl`` beside 0 cases, which ``validate`` called clean."""
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    keep = fill(sheet, tmp_path / "keep.csv", "ann",
                {("dialogue", "thread-1"): {"curator_decision": "accept"}})  # fmt: skip
    before = {p.name: p.read_bytes() for p in bank.iterdir()}
    for out in (bank, bank / "curated", tmp_path):
        code, output = apply(str(keep), "--bank", str(bank), "--out", str(out))
        assert code == 2 and len(output.strip().splitlines()) == 1, output
        assert "which is only read: write elsewhere" in output
    assert {p.name: p.read_bytes() for p in bank.iterdir()} == before
    out = tmp_path / "curated"
    code, output = apply(str(keep), "--bank", str(bank), "--out", str(out))
    assert code == 0 and (out / "dialogues.jsonl").exists(), output
    reject = fill(sheet, tmp_path / "reject.csv", "bo",
                  {("scenario", "thread-1"): {"curator_decision": "reject"},
                   ("scenario", "thread-2"): {"curator_decision": "reject"}})  # fmt: skip
    code, output = apply(str(reject), "--bank", str(bank), "--out", str(out))
    assert code == 0 and "0 cases kept" in output, output
    assert sorted(p.name for p in out.iterdir()) == ["cases.jsonl"]  # no stale dialogues
    assert (out / "cases.jsonl").read_text() == ""
    (out / "notes.txt").write_text("the curators' notes")
    code, output = apply(str(keep), "--bank", str(bank), "--out", str(out))
    assert code == 2 and "holds notes.txt, which it would lose" in output, output
    assert (out / "notes.txt").read_text() == "the curators' notes"


def test_a_csv_from_another_bank_is_refused_and_unknown_items_are_named(
    bank: Path, tmp_path: Path
) -> None:
    """Issue 32: a filled CSV from another bank gave an empty bank with exit 0, and items the
    bank does not hold were ignored without a word."""
    other_csv = tmp_path / "other.csv"
    other_csv.write_text((FIXTURES / "native_forum.csv").read_text().replace("thread-", "other-"))
    other = tmp_path / "other"
    invoke("hsii", "import-dialogues", str(other_csv), "--out", str(other), "--assistant", "mod")
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(other), "--out", str(sheet))
    filled = fill(sheet, tmp_path / "f.csv", "ann",
                  {("dialogue", "other-1"): {"curator_decision": "accept"},
                   ("case", "other-1#3"): {"curator_decision": "accept"}})  # fmt: skip
    out = tmp_path / "out"
    code, output = apply(str(filled), "--bank", str(bank), "--out", str(out))
    assert code == 2, output
    (line,) = output.strip().splitlines()
    assert f"{filled}:" in line and "field 'item'" in line
    assert "none of the 2 decided items is in the bank" in line and "another bank?" in line
    assert not out.exists()
    # One decision the bank holds applies; the one it does not hold is named, not dropped.
    with filled.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    decided = [row for row in rows if row["curator_decision"]]
    held = {**decided[0], "item": "thread-1"}
    mixed = tmp_path / "mixed.csv"
    with mixed.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows([held, *decided])
    result = runner.invoke(app, ["hsii", "curate", "apply", str(mixed), "--bank", str(bank),
                                 "--out", str(out)])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "not in the bank, left aside: dialogue 'other-1'" in result.stderr
    assert "not in the bank, left aside: case 'other-1#3'" in result.stderr
    blank = fill(sheet, tmp_path / "blank.csv", "ann", {})
    code, output = apply(str(blank), "--bank", str(bank), "--out", str(out))
    assert code == 2 and "no row has a decision: nothing to apply" in output, output


POST = "Two things.\nFirst, the bins.\n\nSecond: the -> sign in 'A -> B' is fine mid-line."


def test_a_multi_line_utterance_can_be_amended_and_reads_back_as_written(
    tmp_path: Path,
) -> None:
    """Issue 32: an utterance of several lines (a forum post's paragraphs) could not be amended:
    its second line was "not 'SPEAKER -> ADDRESSEE: text'". A line that is not a turn now
    continues the turn above it, in a dialogue's amendment and in a case's golden."""
    forum = tmp_path / "forum.jsonl"
    rows = [
        {"dialogue_id": "d", "speaker": "Ann", "addressee": "", "text": POST},
        {"dialogue_id": "d", "speaker": "Bo", "addressee": "Ann", "text": "Agreed."},
        {"dialogue_id": "d", "speaker": "mod", "addressee": "Bo", "text": "Bo,\nthanks."},
        {"dialogue_id": "d", "speaker": "mod", "addressee": "Ann", "text": "Ann, noted."},
    ]
    forum.write_text("".join(json.dumps(row) + "\n" for row in rows))
    bank = tmp_path / "bank"
    invoke("hsii", "import-dialogues", str(forum), "--out", str(bank), "--assistant", "mod")
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    with sheet.open(encoding="utf-8", newline="") as handle:
        shown = {(r["level"], r["item"]): r["text"] for r in csv.DictReader(handle)}
    dialogue_text = shown["dialogue", "d"].replace("First, the bins.", "First, the green bins.")
    # A case amended as the web form offers it: the history kept above the golden line.
    case_text = shown["case", "d#4"].replace("Ann, noted.", "Ann, noted:\nMondays from May.")
    filled = fill(sheet, tmp_path / "f.csv", "ann", {
        ("dialogue", "d"): {"curator_decision": "amend", "curator_amended": dialogue_text},
    })  # fmt: skip
    out = tmp_path / "out"
    invoke("hsii", "curate", "apply", str(filled), "--bank", str(bank), "--out", str(out))
    (dialogue,) = load_dialogues(out / "dialogues.jsonl")
    assert [m.content for m in dialogue.messages] == [
        POST.replace("First, the bins.", "First, the green bins."), "Agreed.", "Bo,\nthanks.",
        "Ann, noted.",
    ]  # fmt: skip
    golden = fill(sheet, tmp_path / "g.csv", "bo", {
        ("case", "d#4"): {"curator_decision": "amend", "curator_amended": case_text},
    })  # fmt: skip
    invoke("hsii", "curate", "apply", str(golden), "--bank", str(bank), "--out", str(out))
    (case,) = load_cases(out / "cases.jsonl")
    assert case.golden.content == "Ann, noted:\nMondays from May."
    assert case.golden.role_to == "Ann" and case.golden.index == "4"


NAME = st.text(alphabet=st.characters(categories=["L", "N"]), min_size=1, max_size=12)
CONTENT_LINE = st.text(
    alphabet=st.characters(categories=["L", "N", "P", "Sm", "Zs"]),
    max_size=30,
)


@given(
    st.lists(
        st.tuples(NAME, NAME, st.lists(CONTENT_LINE, min_size=1, max_size=4)),
        min_size=1,
        max_size=6,
    )
)
def test_amended_turns_read_back_every_utterance_as_exported(
    turns: list[tuple[str, str, list[str]]],
) -> None:
    """Property: the text a curator is shown for a dialogue, left as it is, reads back to the
    same turns, whatever lines each utterance has (none of which reads 'A -> B: text')."""
    messages = [
        Message(role_from=a, role_to=b, content="\n".join(lines).strip(), index=str(i))
        for i, (a, b, lines) in enumerate(turns, start=1)
    ]
    assume(all(m.content for m in messages))
    assume(not any(LINE.match(line) for m in messages for line in m.content.splitlines()[1:]))
    text = dialogue_lines(messages)
    row = CuratorRow(file="f.csv", line=2, level="dialogue", item="d", curator="ann",
                     decision="amend", criteria={}, amended=text, notes="")  # fmt: skip
    assert amended_turns(row) == messages


def test_a_dialogue_longer_than_the_csv_modules_cell_limit_is_curated(tmp_path: Path) -> None:
    """Issue 32: a dialogue of 400 long forum posts is one cell of 260,000 characters in the
    curation CSV, over the csv module's 131,072: the bank's own export could not be read back."""
    post = "The bins were not collected again, and the rota is unclear. " * 10
    rows = [{"dialogue_id": "d", "speaker": "Ann", "addressee": "", "text": post}]
    rows += [
        {"dialogue_id": "d", "speaker": s, "addressee": a, "text": f"{i} {post}"}
        for i in range(1, 400)
        for s, a in [("Bo", "Ann") if i % 3 else ("mod", "Bo" if i % 2 else "Ann")]
    ]
    forum = tmp_path / "forum.jsonl"
    forum.write_text("".join(json.dumps(row) + "\n" for row in rows))
    bank = tmp_path / "bank"
    invoke("hsii", "import-dialogues", str(forum), "--out", str(bank), "--assistant", "mod")
    sheet = tmp_path / "c.csv"
    invoke("hsii", "curate", "export", str(bank), "--out", str(sheet))
    filled = fill(sheet, tmp_path / "f.csv", "ann",
                  {("dialogue", "d"): {"curator_decision": "accept"}})  # fmt: skip
    (row,) = read_curation(filled)
    assert (row.level, row.item, row.decision) == ("dialogue", "d", "accept")
    out = tmp_path / "out"
    invoke("hsii", "curate", "apply", str(filled), "--bank", str(bank), "--out", str(out))
    (dialogue,) = load_dialogues(out / "dialogues.jsonl")
    assert len(dialogue.messages) == 400
