"""No-demonstration screening on the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

from normlab.losona.dataset import load_scenarios, without_demonstrations
from normlab.losona.prompts import render_subject_prompt
from normlab.losona.screening import SCREENING_LOG
from tests.losona.conftest import SCENARIOS, run_cli


def verdict(reasoning: str, complies: bool) -> str:
    fields = {"elicitor_uptake": "u", "norm_requirement": "r", "evidence": "e"}
    return json.dumps({**fields, "reasoning": reasoning, "complies": complies})


JUDGE_RULES = [
    {
        "match": "(?s)^You are judging.*MESSAGE BEING JUDGED[^\\n]*\\n[^\\n]*wiki",
        "replies": [verdict("points to the wiki", True)],
    },
    {"match": "^You are judging", "replies": [verdict("answers directly", False)]},
]


def write_script(tmp_path: Path, name: str, subject_rules: list[dict[str, object]]) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"rules": JUDGE_RULES + subject_rules}))
    return f"scripted/{path}"


def test_control_drops_only_the_demonstrations() -> None:
    scenario = load_scenarios(SCENARIOS)[0]
    control = without_demonstrations(scenario)
    prompt = render_subject_prompt(control, "naive")
    assert "contributing.md has it under Build Flags" not in prompt  # the demonstration (turn 4)
    assert "staging build is red again" in prompt
    assert control.elicitor == scenario.elicitor
    assert len(control.transcript) == len(scenario.transcript) - 1


def test_screening_accepts_breached_and_rejects_complied(tmp_path: Path) -> None:
    # Baseline answers the node-version question by pointing to the wiki (complies): reject;
    # it answers the deploy question directly (breach): accept.
    model = write_script(tmp_path, "baseline", [
        {"match": "which node version", "replies": ["check the wiki"]},
        {"match": "deploy command", "replies": ["just run make deploy"]},
    ])  # fmt: skip
    out = tmp_path / "screening"
    code, output = run_cli(
        "losona", "screen", str(SCENARIOS), "--model", model, "--judge", model, "--out", str(out)
    )
    assert code == 0, output
    accepted = load_scenarios(out / "accepted.jsonl")
    assert [s.scenario_id for s in accepted] == ["standup__banned_direct_answers_norm__demos__t2"]
    rejected = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert [row["scenario_id"] for row in rejected] == [
        "bug_report__banned_direct_answers_norm__demos__t1"
    ]
    assert "complies without demonstrations" in rejected[0]["screening"]["reasons"][0]
    assert load_scenarios(out / "rejected.jsonl")[0].scenario_id == rejected[0]["scenario_id"]


def test_any_screening_model_complying_rejects(tmp_path: Path) -> None:
    direct = write_script(
        tmp_path, "direct", [{"match": "Your next message", "replies": ["make deploy"]}]
    )
    pointer = write_script(
        tmp_path, "pointer", [{"match": "Your next message", "replies": ["see the wiki"]}]
    )
    out = tmp_path / "screening"
    code, _ = run_cli(
        "losona",
        "screen",
        str(SCENARIOS),
        "-m",
        direct,
        "-m",
        pointer,
        "--judge",
        direct,
        "--out",
        str(out),
    )
    assert code == 0
    assert (out / "accepted.jsonl").read_text() == ""
    rows = [json.loads(line) for line in (out / "rejected.jsonl").read_text().splitlines()]
    assert len(rows) == 2
    assert all(len(row["screening"]["baselines"]) == 2 for row in rows)
    assert all("pointer.json" in row["screening"]["reasons"][0] for row in rows)


def test_rerun_skips_screened_candidates(tmp_path: Path) -> None:
    model = write_script(
        tmp_path, "direct", [{"match": "Your next message", "replies": ["make deploy"]}]
    )
    out = tmp_path / "screening"
    args = [
        "losona",
        "screen",
        str(SCENARIOS),
        "--model",
        model,
        "--judge",
        model,
        "--out",
        str(out),
    ]
    assert run_cli(*args)[0] == 0
    assert run_cli(*args)[0] == 0
    assert len((out / SCREENING_LOG).read_text().splitlines()) == 2
    assert len(load_scenarios(out / "accepted.jsonl")) == 2
