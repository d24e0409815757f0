"""Cases: the paper's printed shape, cutting dialogues, the linter, and the shipped bank."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import cut_dialogue, load_cases, load_dialogues, load_news
from normlab.hsii.dataset import CASES_PATH, DIALOGUES_PATH
from normlab.hsii.lint import lint_paths

FIXTURES = Path(__file__).parent / "fixtures"
runner = CliRunner()


def test_the_papers_tables_3_to_5_load() -> None:
    cases = load_cases(FIXTURES / "paper_tables.jsonl")
    assert [c.topic for c in cases] == ["agriculture", "business", "tennis"]
    agriculture, business, tennis = cases
    assert agriculture.messages[0].role_from == "FARMERS"  # spelt "role-from" in the file
    assert agriculture.messages[0].index == "1"
    assert (agriculture.golden.role_to, len(agriculture.messages)) == ("TECHNICAL COORDINATOR", 9)
    assert business.characters == ["F", "G", "H", "I", "J"] and business.golden.role_to == "I"
    assert tennis.golden.role_to == "Rafael Nadal"
    assert all(c.case_id.startswith("case-") for c in cases), "ids derived from content"
    assert load_cases(FIXTURES / "paper_tables.jsonl")[0].case_id == agriculture.case_id
    rows, findings = lint_paths([FIXTURES / "paper_tables.jsonl"], news_path=None)
    assert (rows, findings) == (3, [])


def test_cutting_keeps_assistant_turns_with_history_and_one_addressee() -> None:
    dialogue = load_dialogues(DIALOGUES_PATH)[0]
    cases = cut_dialogue(dialogue)
    assistant_turns = [
        i for i, m in enumerate(dialogue.messages) if m.role_from == "Intelligent Assistant"
    ]
    assert len(cases) == len([i for i in assistant_turns if i >= 2])
    for case in cases:
        position = int(case.golden.index) - 1
        assert case.messages == dialogue.messages[:position]
        assert case.golden.role_to in dialogue.background.characters
        assert case.case_id == f"{dialogue.dialogue_id}#{case.golden.index}"


def test_the_shipped_bank_is_large_enough_and_lints_clean() -> None:
    news, dialogues, cases = load_news(), load_dialogues(), load_cases(CASES_PATH)
    assert len(news) >= 100 and len({n.domain for n in news}) >= 12
    assert all(120 <= len(n.text.split()) <= 300 for n in news)
    assert len(dialogues) >= 60 and len(cases) >= 300
    assert len({d.domain for d in dialogues}) >= 10
    assert [c.case_id for c in cases] == [c.case_id for d in dialogues for c in cut_dialogue(d)]
    assert lint_paths([DIALOGUES_PATH, CASES_PATH]) == (len(dialogues) + len(cases), [])
    assert max(Counter(c.domain for c in cases).values()) < len(cases) / 5


def row(**changes: object) -> dict[str, object]:
    base: dict[str, object] = json.loads(
        (FIXTURES / "paper_tables.jsonl").read_text().splitlines()[1]
    )
    base["case_id"] = "c1"
    base.update(changes)
    return base


def lint_row(tmp_path: Path, data: dict[str, object]) -> list[str]:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(data) + "\n")
    return [finding.one_line() for finding in lint_paths([path], news_path=None)[1]]


def test_linter_findings_one_line_each(tmp_path: Path) -> None:
    background = row()["background"]
    assert isinstance(background, dict)
    six = {**background, "characters": ["F", "G", "H", "I", "J", "K"]}
    assert any("6 characters, expected 2–5" in f for f in lint_row(tmp_path, row(background=six)))
    with_ia = {**background, "characters": ["F", "G", "Intelligent Assistant"]}
    assert any("not listed" in f for f in lint_row(tmp_path, row(background=with_ia)))
    stranger = row(golden={"role_from": "Intelligent Assistant", "role_to": "Z", "content": "x"})
    assert any("addressee 'Z'" in f or "'Z' is not one character" in f
               for f in lint_row(tmp_path, stranger))  # fmt: skip
    not_ia = row(golden={"role_from": "F", "role_to": "G", "content": "x"})
    assert any("not the Intelligent Assistant" in f for f in lint_row(tmp_path, not_ia))
    two = row(golden={"role_from": "Intelligent Assistant", "role_to": "F, G", "content": "x"})
    assert any(":1: c1: golden:" in f for f in lint_row(tmp_path, two))
    unknown_speaker = row()
    messages = list(unknown_speaker["messages"])  # type: ignore[call-overload]
    messages[0] = {**messages[0], "role-from": "NOBODY"}
    found = lint_row(tmp_path, row(messages=messages))
    assert any("messages.1: speaker 'NOBODY'" in f for f in found)


def test_a_dialogue_where_the_assistant_talks_to_one_character_is_flagged(tmp_path: Path) -> None:
    dialogue = json.loads(DIALOGUES_PATH.read_text().splitlines()[0])
    first = next(
        m["role_to"] for m in dialogue["messages"] if m["role_from"] == "Intelligent Assistant"
    )
    for message in dialogue["messages"]:
        if message["role_from"] == "Intelligent Assistant":
            message["role_to"] = first
    path = tmp_path / "d.jsonl"
    path.write_text(json.dumps(dialogue) + "\n")
    (finding,) = lint_paths([path])[1]
    assert "addresses 1 character(s), expected ≥ 2" in finding.one_line()


def test_validate_command_exit_codes(tmp_path: Path) -> None:
    assert runner.invoke(app, ["hsii", "validate"]).exit_code == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"case_id": "x", "golden": {}}\n')
    result = runner.invoke(app, ["hsii", "validate", str(bad)])
    assert result.exit_code == 1 and "bad.jsonl:1: x: topic: Field required" in result.output
    bad.write_text('{"case_id": "x"\n')
    result = runner.invoke(app, ["hsii", "validate", str(bad)])
    assert result.exit_code == 2 and "bad.jsonl:1: invalid JSON" in result.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert runner.invoke(app, ["hsii", "validate", str(empty)]).exit_code == 2
    with pytest.raises(InputError):
        load_cases(tmp_path / "missing.jsonl")


def test_the_shipped_dataset_card_counts_the_shipped_files() -> None:
    from normlab.hsii.card import CARD_PATH, render_card

    expected = render_card(load_news(), load_dialogues(), load_cases(CASES_PATH))
    assert CARD_PATH.read_text(encoding="utf-8") == expected, "run: normlab hsii card --out …"
