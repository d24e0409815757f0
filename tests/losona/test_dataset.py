"""Scenario loading: official rows, our rows, defaults, and one-line errors on bad input."""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.losona.dataset import load_scenarios
from normlab.losona.prompts import render_subject_prompt

FIXTURES = Path(__file__).parent / "fixtures"

OFFICIAL_ROW = {
    "scenario_id": "exam_results__non_affiliative_support__demos__o1",
    "event_id": "exam_results",
    "norm_id": "non_affiliative_support",
    "norm_statement": "Bad news gets diagnostic or practical uptake, not sympathy.",
    "transcript": [
        {"turn_id": 1, "actor": "Toby", "content": "48 overall. failed it.", "is_elicitor": False},
        {
            "turn_id": 2,
            "actor": "Farah",
            "content": "dynamic programming or the essay?",
            "is_elicitor": False,
        },
        {
            "turn_id": 3,
            "actor": "Sam",
            "content": "my 72 was a mistake, it's a 45",
            "is_elicitor": True,
        },
    ],
    "elicitor_turn_id": 3,
}


def write_rows(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_official_row_loads_with_documented_defaults(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_rows(
        tmp_path / "official.jsonl", [OFFICIAL_ROW, {**OFFICIAL_ROW, "scenario_id": "x2"}]
    )
    with caplog.at_level(logging.WARNING):
        scenarios = load_scenarios(path)
    scenario = scenarios[0]
    assert scenario.subject == "Alex"
    assert [member.name for member in scenario.cast] == ["Toby", "Farah", "Sam"]
    assert scenario.demonstration_turn_ids == []
    assert scenario.elicitor.actor == "Sam"
    assert scenario.judge_example() is not None, "falls back to the taxonomy's example"
    # One warning per missing field, not one per row.
    cast_warnings = [r for r in caplog.records if "'cast'" in r.getMessage()]
    assert len(cast_warnings) == 1 and "2 row(s)" in cast_warnings[0].getMessage()
    assert "Alex" in render_subject_prompt(scenario, "naive")


def test_default_subject_avoids_speaking_names(tmp_path: Path) -> None:
    row = json.loads(json.dumps(OFFICIAL_ROW))
    row["transcript"][0]["actor"] = "Alex"  # Alex and Sam both speak now
    assert load_scenarios(write_rows(tmp_path / "s.jsonl", [row]))[0].subject == "Jordan"


def test_project_rows_load_without_defaults(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        scenarios = load_scenarios(FIXTURES / "scenarios.jsonl")
    assert len(scenarios) == 2 and not caplog.records
    assert scenarios[0].demonstration_turn_ids == [4]


@pytest.mark.parametrize(
    ("mutate", "line", "field"),
    [
        (lambda row: row.pop("norm_id"), 2, "norm_id"),
        (lambda row: row["transcript"][1].pop("actor"), 2, "transcript.1.actor"),
        (lambda row: row.update(elicitor_turn_id="last"), 2, "elicitor_turn_id"),
        (lambda row: row["transcript"][0].update(turn_id=True), 2, "transcript.0.turn_id"),
        (lambda row: row.update(demonstraton_turn_ids=[1]), 2, "demonstraton_turn_ids"),
        (lambda row: row.update(subject="Toby\u200b"), 2, "subject"),
        # the cast is filled from the speakers, and checked first
        (lambda row: row["transcript"][1].update(actor="Farah\u202e"), 2, "cast.1.name"),
    ],
)
def test_malformed_row_names_file_line_and_field(
    tmp_path: Path, mutate: Callable[[dict[str, Any]], object], line: int, field: str
) -> None:
    bad = json.loads(json.dumps(OFFICIAL_ROW))
    mutate(bad)
    path = write_rows(tmp_path / "bad.jsonl", [OFFICIAL_ROW, bad])
    with pytest.raises(InputError) as raised:
        load_scenarios(path)
    assert raised.value.one_line() == f"{path}:{line}: field '{field}': {raised.value.problem}"


def test_malformed_scenario_file_exits_2_with_one_line(workdir: Path, tmp_path: Path) -> None:
    bad = {**OFFICIAL_ROW, "elicitor_turn_id": 99}
    path = write_rows(tmp_path / "bad.jsonl", [OFFICIAL_ROW, bad])
    result = CliRunner().invoke(
        app, ["losona", "run", "--model", "scripted/none.json", "--data", str(path)]
    )
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert str(path) in lines[0].replace("\n", "")
    assert ":2: field 'elicitor_turn_id': elicitor_turn_id 99" in lines[0]
    assert not (workdir / "runs").exists(), "bad input creates no run folder"


def test_invalid_json_line_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(json.dumps(OFFICIAL_ROW) + "\n{not json\n")
    with pytest.raises(InputError, match=r"broken.jsonl:2: invalid JSON"):
        load_scenarios(path)


def test_duplicate_scenario_ids_are_rejected(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "dup.jsonl", [OFFICIAL_ROW, OFFICIAL_ROW])
    with pytest.raises(InputError, match="duplicate scenario_id"):
        load_scenarios(path)


def test_shipped_set_covers_the_taxonomy_and_holds_the_demo_scenarios() -> None:
    from normlab.losona.dataset import SCENARIOS_PATH
    from normlab.losona.runner import DEMO_SCENARIO_IDS
    from normlab.losona.taxonomy import load_taxonomy

    scenarios = load_scenarios(SCENARIOS_PATH)
    taxonomy = load_taxonomy()
    assert len(scenarios) >= 44
    per_norm = Counter(s.norm_id for s in scenarios)
    assert set(per_norm) == set(taxonomy.norms) and min(per_norm.values()) >= 2
    assert len({s.event_id for s in scenarios}) >= 12
    assert any(s.is_workplace for s in scenarios) and not all(s.is_workplace for s in scenarios)
    assert set(DEMO_SCENARIO_IDS) <= {s.scenario_id for s in scenarios}
