"""The generator on the scripted model: valid drafts written, findings repaired, failures shown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from normlab.losona.dataset import load_scenarios
from normlab.losona.lint import lint_paths
from tests.helpers.inputs import scripted_rules
from tests.losona.conftest import run_cli
from tests.losona.factory import clean_row


def draft(demonstrations: list[int]) -> dict[str, Any]:
    """The clean factory scenario, written the way the generator's model returns it."""
    row = clean_row()
    return {
        "end_goal": row["end_goal"],
        "channel_description": row["channel_description"],
        "subject": row["subject"],
        "subject_bio": row["subject_bio"],
        "cast": row["cast"],
        "transcript": [
            {
                "actor": turn["actor"],
                "content": turn["content"],
                "demonstrates_norm": turn["turn_id"] in demonstrations,
            }
            for turn in row["transcript"]
        ],
        "judge_examples": row["judge_examples"],
        "notes": row["notes"],
    }


def script(tmp_path: Path, first: dict[str, Any], after_repair: dict[str, Any]) -> str:
    return scripted_rules(
        tmp_path / "generator.json",
        {
            "breaks these requirements": after_repair,
            "benchmark of local social norm adaptation": first,
        },
    )


ARGS = ["losona", "generate", "--event", "bug_report", "--norm", "banned_direct_answers_norm"]


def test_valid_candidate_is_written_and_lints_clean(tmp_path: Path) -> None:
    out = tmp_path / "generated.jsonl"
    model = script(tmp_path, draft([6, 13]), draft([6, 13]))
    code, output = run_cli(*ARGS, "--model", model, "--out", str(out))
    assert code == 0, output
    (scenario,) = load_scenarios(out)
    assert scenario.scenario_id.startswith("bug_report__banned_direct_answers_norm__demos__gen")
    assert scenario.demonstration_turn_ids == [6, 13]
    assert scenario.elicitor_turn_id == 20 and scenario.elicitor.is_elicitor
    assert scenario.end_goal == "find why the checkout build flakes"
    assert lint_paths([out]) == []


def test_lint_findings_are_sent_back_and_repaired(tmp_path: Path) -> None:
    out = tmp_path / "generated.jsonl"
    model = script(tmp_path, draft([6]), draft([6, 13]))  # first draft: one demonstration only
    code, output = run_cli(*ARGS, "--model", model, "--out", str(out))
    assert code == 0, output
    assert len(load_scenarios(out)) == 1


def test_candidate_that_stays_invalid_is_reported_not_written(tmp_path: Path) -> None:
    out = tmp_path / "generated.jsonl"
    model = script(tmp_path, draft([6]), draft([6]))
    code, output = run_cli(*ARGS, "--model", model, "--out", str(out), "--count", "2")
    assert code == 1
    assert "0 of 2 written" in output and "1 marked demonstrations" in output
    assert not out.exists()


def test_unparseable_reply_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"default": "here is a lovely scenario"}))
    out = tmp_path / "generated.jsonl"
    code, output = run_cli(*ARGS, "--model", f"scripted/{path}", "--out", str(out))
    assert code == 1 and "not valid JSON for the schema" in output
    assert not out.exists()


def test_invalid_cell_is_an_input_error(tmp_path: Path) -> None:
    code, output = run_cli(
        "losona", "generate", "--event", "transgressive_joke",
        "--norm", "banned_reassurance_on_failure_norm", "--model", "scripted/x.json",
    )  # fmt: skip
    assert code == 2 and "not a valid cell" in output
