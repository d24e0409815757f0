"""Native dialogues (B.4): a forum-like file imported, cut into cases and linted."""

from __future__ import annotations

import gc
import json
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import load_cases, load_dialogues
from normlab.hsii.bank.native import Fill, import_dialogues
from normlab.hsii.dataset import MAX_TURNS, cuts
from normlab.hsii.schemas import ASSISTANT, Case, Dialogue

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()


def test_an_imported_forum_is_cut_into_cases_with_their_golden_targets(tmp_path: Path) -> None:
    out = tmp_path / "native"
    result = runner.invoke(
        app,
        [
            "hsii", "import-dialogues", str(FIXTURES / "native_forum.csv"), "--out", str(out),
            "--assistant", "mod", "--domain", "community",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "2 dialogues, 5 cases" in result.output and "lint: clean" in result.output
    dialogues = load_dialogues(out / "dialogues.jsonl")
    thread1, thread2 = dialogues
    assert thread1.background.characters == ["alice", "bob"]
    assert thread1.background.scene == "A neighbourhood forum thread about bin collection."
    assert thread1.messages[0].role_to == ASSISTANT  # the opening post, to no one in particular
    assert [m.index for m in thread2.messages] == ["1", "2", "3", "4", "5"]  # sorted by turn
    assert thread2.messages[0].role_from == "dan"
    assert all(d.provenance and d.provenance.source == "native" for d in dialogues)
    assert {d.domain for d in dialogues} == {"community"}
    cases = load_cases(out / "cases.jsonl")
    assert [(c.case_id, c.golden.role_to) for c in cases] == [
        ("thread-1#3", "alice"),
        ("thread-1#5", "bob"),
        ("thread-1#7", "alice"),
        ("thread-2#3", "carol"),
        ("thread-2#5", "dan"),
    ]
    assert all(c.golden.role_from == ASSISTANT for c in cases)
    assert all(c.provenance and c.provenance.source == "native" for c in cases)
    validated = runner.invoke(app, ["hsii", "validate", str(out)])
    assert validated.exit_code == 0, validated.output


def test_a_jsonl_file_with_the_assistant_named_needs_no_option(tmp_path: Path) -> None:
    rows = [
        {"dialogue_id": "d", "speaker": "Ann", "addressee": "Bo", "text": "Shall we start?"},
        {"dialogue_id": "d", "speaker": "Bo", "addressee": ASSISTANT, "text": "Agenda please."},
        {"dialogue_id": "d", "speaker": ASSISTANT, "addressee": "Bo", "text": "Item one."},
        {"dialogue_id": "d", "speaker": ASSISTANT, "addressee": "Ann", "text": "Ann, notes?"},
    ]
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    (dialogue,) = import_dialogues(path)
    assert dialogue.background.characters == ["Ann", "Bo"]
    assert [m.index for m in dialogue.messages] == ["1", "2", "3", "4"]


def test_a_malformed_file_is_one_line_naming_file_line_and_field(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["hsii", "import-dialogues", str(FIXTURES / "native_bad.jsonl"), "--out", str(tmp_path)],
    )
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1
    assert "native_bad.jsonl:2" in lines[0] and "field 'turn'" in lines[0]


def test_a_missing_assistant_or_column_is_named(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="nobody called 'zed' speaks") as raised:
        import_dialogues(FIXTURES / "native_forum.csv", Fill(assistant="zed"))
    assert raised.value.line == 2 and raised.value.field == "speaker"
    no_text = tmp_path / "x.csv"
    no_text.write_text("dialogue_id,speaker,addressee\nd,a,b\n")
    with pytest.raises(InputError, match="missing column") as raised:
        import_dialogues(no_text)
    assert raised.value.field == "text"


def write_rows(path: Path, rows: list[tuple[str, str, str, str]]) -> Path:
    keys = ("dialogue_id", "speaker", "addressee", "text")
    path.write_text("".join(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in rows))
    return path


def test_names_differing_in_case_or_unicode_form_are_one_character(tmp_path: Path) -> None:
    """Issue 31: "Priya" spoke and "priya" was addressed, so they were two characters, the
    golden's own spelling scored wrong and the import was written though lint failed."""
    zoe_nfd = "Zoe\u0308"
    path = write_rows(tmp_path / "d.jsonl", [
        ("d", "Priya", "", "Is the rota out?"),
        ("d", "Zoë", "mod", "Mine has a gap."),
        ("d", "MOD", "priya", "Priya, the rota is out."),
        ("d", "PRIYA", "mod", "Thanks."),
        ("d", "Mod", zoe_nfd, "Zoë, I will fix the gap."),
    ])  # fmt: skip
    (dialogue,) = import_dialogues(path, Fill(assistant="mod"))
    assert dialogue.background.characters == ["Priya", "Zoë"]
    assert [(m.role_from, m.role_to) for m in dialogue.messages] == [
        ("Priya", ASSISTANT), ("Zoë", ASSISTANT), (ASSISTANT, "Priya"), ("Priya", ASSISTANT),
        (ASSISTANT, "Zoë"),
    ]  # fmt: skip
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["hsii", "import-dialogues", str(path), "--out", str(out), "--assistant", "mod"]
    )
    assert result.exit_code == 0 and "lint: clean" in result.output, result.output
    cases = load_cases(out / "cases.jsonl")
    assert [case.golden.role_to for case in cases] == ["Priya", "Zoë"]


def test_a_dialogue_or_case_that_fails_lint_is_not_written(tmp_path: Path) -> None:
    """Issue 31: the import wrote every case and linted afterwards."""
    crowd = [(f"P{i}", "mod", f"Point {i}.") for i in range(6)]  # six characters: too many
    rows = [
        *[("big", speaker, to, text) for speaker, to, text in crowd],
        ("big", "mod", "P0", "Noted."),
        ("small", "Ann", "mod", "Agenda?"),
        ("small", "Bo", "Ann", "Item one."),
        ("small", "mod", "Bo", "Bo, item one is yours."),
        ("small", "mod", "Ann", "Ann, the notes."),
    ]
    path = write_rows(tmp_path / "d.jsonl", rows)
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["hsii", "import-dialogues", str(path), "--out", str(out), "--assistant", "mod"]
    )
    assert result.exit_code == 1, result.output
    assert "1 dialogues, 2 cases" in result.output
    findings = [line for line in result.output.splitlines() if "not written" in line]
    assert findings and all(line.startswith(f"{path}:1: big: ") for line in findings)
    assert any("background.characters: 6 characters" in line for line in findings)
    assert [d.dialogue_id for d in load_dialogues(out / "dialogues.jsonl")] == ["small"]
    assert [c.case_id for c in load_cases(out / "cases.jsonl")] == ["small#3", "small#4"]


def test_a_person_named_intelligent_assistant_is_not_merged_with_the_assistant(
    tmp_path: Path,
) -> None:
    """Issue 32: with ``--assistant mod``, a user literally called "Intelligent Assistant" became
    the assistant too: two people's turns read as one speaker's, in every case cut."""
    path = write_rows(tmp_path / "d.jsonl", [
        ("d", "Ann", "mod", "Agenda?"),
        ("d", "intelligent  assistant", "Ann", "I am a user with an odd handle."),
        ("d", "mod", "Ann", "Ann, item one."),
        ("d", "mod", "Bo", "Bo, item two."),
    ])  # fmt: skip
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["hsii", "import-dialogues", str(path), "--out", str(out), "--assistant", "mod"]
    )
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert f"{path}:2: field 'speaker'" in line
    assert "is the name HSII gives the assistant, and --assistant names 'mod'" in line
    assert not out.exists()
    # Named as the assistant, the same person is the assistant: nothing to refuse.
    (dialogue,) = import_dialogues(path, Fill(assistant="Intelligent Assistant"))
    assert "mod" in dialogue.background.characters


def test_a_dialogue_too_long_to_cut_refuses_the_file(tmp_path: Path) -> None:
    """Issue 32: each case holds every turn before it, so one 200,000-turn dialogue (a 9 MB
    file) would have made cases holding ~10¹⁰ turns; a dialogue over MAX_TURNS refuses the
    import on one line, exit 2 (issue 41: it was a lint finding, exit 1, the resume code),
    nothing written, and ``hsii cut`` refuses it on one line."""
    turns = [("long", "Ann" if i % 2 else "mod", "Ann" if i % 2 == 0 else "mod", f"Turn {i}.")
             for i in range(MAX_TURNS + 1)]  # fmt: skip
    turns[-1] = ("long", "mod", "Bo", "Bo, at last.")
    small = [
        ("small", "Ann", "mod", "Agenda?"),
        ("small", "Bo", "Ann", "Item one."),
        ("small", "mod", "Bo", "Bo, yours."),
        ("small", "mod", "Ann", "Ann, notes."),
    ]
    path = write_rows(tmp_path / "d.jsonl", [*turns, *small])
    out = tmp_path / "out"
    result = runner.invoke(
        app, ["hsii", "import-dialogues", str(path), "--out", str(out), "--assistant", "mod"]
    )
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"normlab: error: {path}:1: dialogue 'long': {MAX_TURNS + 1:,} turns")
    assert not out.exists()
    with pytest.raises(InputError, match="long': 501 turns, more than the 500"):
        import_dialogues(path, Fill(assistant="mod"))
    (small_dialogue,) = import_dialogues(
        write_rows(tmp_path / "s.jsonl", small), Fill(assistant="mod")
    )
    messages = [small_dialogue.messages[i % 4] for i in range(MAX_TURNS + 1)]
    long_dialogue = small_dialogue.model_copy(update={"messages": messages})
    long_file = tmp_path / "long.jsonl"
    long_file.write_text(long_dialogue.model_dump_json() + "\n")
    cut = runner.invoke(app, ["hsii", "cut", str(long_file), "--out", str(tmp_path / "c.jsonl")])
    assert cut.exit_code == 2 and len(cut.output.strip().splitlines()) == 1, cut.output
    assert f"{MAX_TURNS + 1:,} turns" in cut.output and not (tmp_path / "c.jsonl").exists()


def test_cases_are_written_one_at_a_time_each_with_its_whole_history(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: the import built every case (each a copy of its history) before writing any,
    so one long dialogue's cases held its history hundreds of times over (21 GB). Now each
    case is written before the next is made: at most the one being written is alive. The bank's
    format is the same: each written case holds every turn before its golden."""
    import normlab.hsii.bank.native as native

    alive: list[weakref.ref[Case]] = []
    most = 0

    def tracked(dialogue: Dialogue) -> Iterator[Case]:
        nonlocal most
        for case in cuts(dialogue):
            gc.collect()
            most = max(most, sum(ref() is not None for ref in alive))
            alive.append(weakref.ref(case))
            yield case

    monkeypatch.setattr(native, "cuts", tracked)
    rows = [("d", "Ann", "mod", "Opening.")]
    for i in range(60):
        rows += [
            ("d", "Bo", "Ann", f"Point {i}."),
            ("d", "mod", "Bo" if i % 2 else "Ann", f"R{i}."),
        ]
    path = write_rows(tmp_path / "d.jsonl", rows)
    out = tmp_path / "out"
    # What is alive before the import out of the collector's way: each gc.collect() above then
    # walks only what the import makes (all the cases included), not the whole heap of a worker
    # that ran hundreds of tests before this one (it took 41 s of the fast suite there).
    gc.collect()
    gc.freeze()
    try:
        result = runner.invoke(
            app, ["hsii", "import-dialogues", str(path), "--out", str(out), "--assistant", "mod"]
        )
    finally:
        gc.unfreeze()
    assert result.exit_code == 0, result.output
    cases = load_cases(out / "cases.jsonl")
    assert len(cases) == len(alive) == 60
    assert most <= 1  # the one just written, not yet dropped; never all 60
    (dialogue,) = load_dialogues(out / "dialogues.jsonl")
    for case in cases:
        position = int(case.golden.index) - 1
        assert case.messages == dialogue.messages[:position]  # the whole history, as before
