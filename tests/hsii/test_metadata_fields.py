"""An HSII release's extra columns (issue 31, item 14): news, dialogue and case rows carrying
``license`` or ``source`` load and keep them as metadata (a dialogue's pass to the cases cut
from it, a case's ride in its sample's metadata; ``validate`` lists them); a near miss of a
field (``topics``, ``aliasses``) is one line naming file, line and field, where before it was
dropped unseen and the field took its default (no aliases, so a reply naming a character by
its alias would miss)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii.bank.files import load_bank
from normlab.hsii.dataset import (
    DIALOGUES_PATH,
    NEWS_PATH,
    build_dataset,
    cut_dialogue,
    load_cases,
    load_dialogues,
    load_news,
    read_cases,
)
from tests.helpers.inputs import refuses_near_miss, validate_keeps_release_columns, write_jsonl

FIXTURES = Path(__file__).parent / "fixtures"
RELEASE = {"license": "CC-BY-4.0", "source": {"release": "v1", "split": "test"}}


def first_rows(path: Path, count: int = 2) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()[:count]]


def test_a_case_keeps_its_extra_columns_into_the_sample(tmp_path: Path) -> None:
    rows = first_rows(FIXTURES / "paper_tables.jsonl", 3)
    path = write_jsonl(tmp_path / "cases.jsonl", [{**row, **RELEASE} for row in rows])
    cases = load_cases(path)
    assert [case.model_extra for case in cases] == [RELEASE] * 3
    plain = load_cases(FIXTURES / "paper_tables.jsonl")
    assert [c.model_dump(exclude={"case_id", *RELEASE}) for c in cases] == [
        c.model_dump(exclude={"case_id"}) for c in plain
    ], "the columns change nothing else"
    sample = build_dataset(cases)[0]
    assert (sample.metadata or {})["case"]["license"] == "CC-BY-4.0"
    assert [case.case_id for case in read_cases(str(path)).items] == [c.case_id for c in cases]


def test_a_dialogues_extra_columns_pass_to_its_cases(tmp_path: Path) -> None:
    rows = first_rows(DIALOGUES_PATH, 1)
    path = write_jsonl(tmp_path / "dialogues.jsonl", [{**rows[0], **RELEASE}])
    (dialogue,) = load_dialogues(path)
    assert dialogue.model_extra == RELEASE
    cases = cut_dialogue(dialogue)
    assert cases and all(case.model_extra == RELEASE for case in cases)
    assert load_bank(path).dialogues[0].model_extra == RELEASE


def test_a_news_row_keeps_its_extra_columns(tmp_path: Path) -> None:
    rows = first_rows(NEWS_PATH)
    path = write_jsonl(
        tmp_path / "news.jsonl", [{**row, "url": "https://example.org/a"} for row in rows]
    )
    assert [news.model_extra for news in load_news(path)] == [{"url": "https://example.org/a"}] * 2


def test_validate_lists_the_metadata(tmp_path: Path) -> None:
    rows = first_rows(DIALOGUES_PATH, 2)
    path = write_jsonl(tmp_path / "dialogues.jsonl", [{**rows[0], **RELEASE}, rows[1]])
    validate_keeps_release_columns("hsii", path, "1 of 2")


@pytest.mark.parametrize(
    ("name", "meant", "value"),
    [
        ("topics", "topic", "farming"),
        ("aliasses", "aliases", {"FARMERS": ["the farmers"]}),
        ("Golden", "golden", {}),
    ],
)
def test_a_near_miss_in_a_case_is_one_line(
    tmp_path: Path, name: str, meant: str, value: object
) -> None:
    rows = first_rows(FIXTURES / "paper_tables.jsonl")
    rows[1][name] = value
    path = write_jsonl(tmp_path / "cases.jsonl", rows)
    refuses_near_miss(load_cases, path, name, meant)
    result = CliRunner().invoke(app, ["hsii", "validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}:2: ?: {name}: unknown field, a near miss of '{meant}'" in result.output


@pytest.mark.parametrize("loader", [load_dialogues, load_bank])
def test_a_near_miss_in_a_dialogue_is_one_line(
    tmp_path: Path, loader: Callable[[Path], object]
) -> None:
    rows = first_rows(DIALOGUES_PATH, 1)
    path = write_jsonl(tmp_path / "dialogues.jsonl", [{**rows[0], "domian": "x"}])
    with pytest.raises(InputError, match=r":1: field 'domian': unknown field, a near miss"):
        loader(path)
