"""The scenario linter: the clean row passes, each broken rule is reported once, exit codes."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.losona.dataset import SCENARIOS_PATH
from normlab.losona.lint import lint_paths
from tests.losona.factory import clean_row, write_rows

Row = dict[str, Any]


def lint_row(tmp_path: Path, row: Row) -> list[tuple[str, str]]:
    findings = lint_paths([write_rows(tmp_path / "s.jsonl", [row])])
    return [(finding.field, finding.message) for finding in findings]


def test_clean_row_has_no_findings(tmp_path: Path) -> None:
    assert lint_row(tmp_path, clean_row()) == []


def truncate(row: Row) -> None:
    row["transcript"] = row["transcript"][-19:]
    for index, turn in enumerate(row["transcript"], start=1):
        turn["turn_id"] = index
    row["elicitor_turn_id"] = 19
    row["demonstration_turn_ids"] = [5, 12]


def move_elicitor_flag(row: Row) -> None:
    row["elicitor_turn_id"] = 19
    row["transcript"][18]["is_elicitor"] = True
    row["transcript"][19]["is_elicitor"] = False


BREAKS: list[tuple[str, Callable[[Row], None], str, str]] = [
    ("too few turns", truncate, "transcript", "19 turns"),
    (
        "one demonstration",
        lambda r: r.update(demonstration_turn_ids=[6]),
        "demonstration_turn_ids",
        "1 marked",
    ),
    (
        "four demonstrations",
        lambda r: r.update(demonstration_turn_ids=[3, 6, 9, 13]),
        "demonstration_turn_ids",
        "4 marked",
    ),
    (
        "demo is the elicitor",
        lambda r: r.update(demonstration_turn_ids=[6, 20]),
        "demonstration_turn_ids",
        "not before the elicitor",
    ),
    ("elicitor not last", move_elicitor_flag, "elicitor_turn_id", "not the last turn"),
    (
        "subject speaks",
        lambda r: r["transcript"][4].update(actor="Tariq"),
        "transcript",
        "speaks in the transcript",
    ),
    (
        "subject in cast",
        lambda r: r["cast"].append({"name": "Tariq", "bio": "x"}),
        "cast",
        "listed in the cast",
    ),
    (
        "stranger speaks",
        lambda r: r["transcript"][2].update(actor="Zed"),
        "transcript",
        "'Zed' is not in the cast",
    ),
    (
        "elicitor by stranger",
        lambda r: r["transcript"][19].update(actor="Zed"),
        "elicitor_turn_id",
        "not in the cast",
    ),
    (
        "rule in channel",
        lambda r: r.update(channel_description="#checkout: house rules apply"),
        "channel_description",
        "'rules'",
    ),
    (
        "leaked statement",
        lambda r: r["transcript"][3].update(
            content="pointer to a resource instead of the answer pls"
        ),
        "transcript.turn 4",
        "5-word run",
    ),
    (
        "leaked taxonomy example",
        lambda r: r.update(subject_bio="knows the ops wiki runbook has the restart steps"),
        "subject_bio",
        "5-word run",
    ),
    ("unknown norm", lambda r: r.update(norm_id="made_up_norm"), "norm_id", "unknown norm"),
    (
        "invalid cell",
        lambda r: r.update(
            event_id="transgressive_joke", norm_id="banned_reassurance_on_failure_norm"
        ),
        "event_id",
        "not a valid cell",
    ),
    ("schema", lambda r: r.pop("transcript"), "transcript", "required field is missing"),
]


@pytest.mark.parametrize(
    ("name", "mutate", "field", "fragment"), BREAKS, ids=[b[0] for b in BREAKS]
)
def test_each_rule_is_reported(
    tmp_path: Path, name: str, mutate: Callable[[Row], None], field: str, fragment: str
) -> None:
    row = copy.deepcopy(clean_row())
    mutate(row)
    findings = lint_row(tmp_path, row)
    assert any(f == field and fragment in message for f, message in findings), findings


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    first = write_rows(tmp_path / "a.jsonl", [clean_row()])
    second = write_rows(tmp_path / "b.jsonl", [clean_row()])
    findings = lint_paths([first, second])
    assert [(f.path, f.field) for f in findings] == [(str(second), "scenario_id")]


def test_cli_exit_codes(tmp_path: Path) -> None:
    runner = CliRunner()
    clean = write_rows(tmp_path / "clean.jsonl", [clean_row()])
    assert runner.invoke(app, ["losona", "validate", str(clean)]).exit_code == 0
    broken_row = clean_row()
    broken_row["demonstration_turn_ids"] = [6]
    broken = write_rows(tmp_path / "broken.jsonl", [clean_row("other"), broken_row])
    result = runner.invoke(app, ["losona", "validate", str(broken)])
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"{broken}:2: bug_report__banned_direct_answers_norm__demos__f1: demonstration_turn_ids: "
        "1 marked demonstrations, expected 2–3"
    ]
    unreadable = tmp_path / "bad.jsonl"
    unreadable.write_text("{oops\n")
    assert runner.invoke(app, ["losona", "validate", str(unreadable)]).exit_code == 2
    assert (
        runner.invoke(app, ["losona", "validate", str(tmp_path / "missing.jsonl")]).exit_code == 2
    )


def test_shipped_scenarios_lint_clean() -> None:
    assert [finding.one_line() for finding in lint_paths([SCENARIOS_PATH])] == []
