"""LoSoNA measures what the paper measures (issue 8): missing labels, judge addenda,
temperatures, truncation and every trial counted once. Scripted model throughout."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normlab.core.errors import InputError
from normlab.losona.analysis import analyze_records, load_records, load_run
from normlab.losona.solver import SubjectTemperature
from normlab.models import RoleSettings
from tests.losona.conftest import SCENARIOS, run_cli

VERDICT = {"elicitor_uptake": "u", "norm_requirement": "r", "evidence": "e"}


def judge_reply(complies: bool, reasoning: str) -> str:
    return json.dumps({**VERDICT, "reasoning": reasoning, "complies": complies})


def script(tmp_path: Path, rules: list[dict[str, object]], name: str = "s") -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


def run(tmp_path: Path, model: str, *extra: str) -> Path:
    logs = tmp_path / "logs"
    code, output = run_cli(
        "losona", "run", "--model", model, "--judge", model, "--data", str(SCENARIOS),
        "-c", "naive", "--log-dir", str(logs), "--report-dir", str(tmp_path / "report"), *extra,
    )  # fmt: skip
    assert code == 0, output
    return logs


def test_majority_counts_a_missing_label_as_not_a_pass(tmp_path: Path) -> None:
    # Per scenario, trials answer: compliant, breach, then a reply the judge cannot label.
    # Old rule (valid labels only): 1 of 2 ≥ ⌈2/2⌉ → pass. §5.3: 1 of 3 < ⌈3/2⌉ → fail.
    points, answers = judge_reply(True, "points"), judge_reply(False, "answers")
    model = script(tmp_path, [
        {"match": "(?s)^You are judging.*\\n(wiki|see the docs)\\n", "replies": [points]},
        {"match": "(?s)^You are judging.*\\nmake deploy\\n", "replies": [answers]},
        {"match": "^You are judging", "replies": ["unusable"]},
        {"match": "Your next message:", "replies": ["wiki", "make deploy", "???"]},
    ])  # fmt: skip
    records = load_records([run(tmp_path, model)])
    assert sorted(str(r.complies) for r in records).count("None") == 2
    naive = analyze_records(records).models[model].conditions["naive"]
    assert naive.accuracy.value == 0.0 and naive.n_scenarios == 2
    assert naive.compliance.value == pytest.approx(1 / 3)
    assert naive.scenarios_with_missing_label == 2
    html = (tmp_path / "report" / "report.html").read_text()
    assert "scenarios with a missing label" in html


def test_judge_addenda_are_on_by_default_and_can_be_switched_off(tmp_path: Path) -> None:
    # This judge complies only when it sees our edge-case instructions.
    with_addenda = judge_reply(True, "with addenda")
    model = script(tmp_path, [
        {"match": "(?s)^You are judging.*ADDITIONAL JUDGE", "replies": [with_addenda]},
        {"match": "^You are judging", "replies": [judge_reply(False, "bare")]},
        {"match": "Your next message:", "replies": ["see the docs"]},
    ])  # fmt: skip
    logs = run(tmp_path, model, "-k", "1")
    assert {r.complies for r in load_records([logs])} == {True}
    assert {r.judge_addenda for r in load_records([logs])} == {"default"}
    out = tmp_path / "rescore"
    code, output = run_cli(
        "losona", "rescore", str(logs), "--judge", model, "--judge-addenda", "none",
        "--out", str(out), "--json",
    )  # fmt: skip
    assert code == 0, output
    agreement = json.loads(output)["agreement"]
    assert (agreement["n"], agreement["rate"]["k"]) == (2, 0)  # with vs without: never agree
    rescored = [
        json.loads(line) for line in (out / "rescored_trials.jsonl").read_text().splitlines()
    ]
    assert {row["judge_addenda"] for row in rescored} == {"none"}
    assert {row["complies"] for row in rescored} == {False}


def test_temperature_follows_the_paper_and_is_recorded(tmp_path: Path) -> None:
    paper = SubjectTemperature.parse("paper")
    assert paper.for_model("google/gemini-3.1-pro") == 0.9
    assert paper.for_model("openai/gpt-5.5") is None  # §6: provider default
    assert paper.for_model("anthropic/claude-fable-5") is None
    assert SubjectTemperature.parse("default").for_model("google/gemini") is None
    assert SubjectTemperature.parse("0.2").for_model("openai/gpt-5.5") == 0.2
    with pytest.raises(InputError, match="--temperature"):
        SubjectTemperature.parse("warm")
    model = script(tmp_path, [
        {"match": "^You are judging", "replies": [judge_reply(False, "x")]},
        {"match": "Your next message:", "replies": ["ok"]},
    ])  # fmt: skip
    logs = run(tmp_path, model, "-k", "1")
    result = analyze_records(load_records([logs])).models[model]
    assert result.temperatures == {"subject": ["0.9"], "judge": ["0"]}
    html = (tmp_path / "report" / "report.html").read_text()
    assert "subject temperature" in html and "0.9" in html
    other = tmp_path / "second"
    other.mkdir()
    logs = run(other, model, "-k", "1", "--temperature", "default")
    assert analyze_records(load_records([logs])).models[model].temperatures["subject"] == [
        "provider default"
    ]


def test_truncated_replies_are_retried_and_counted_apart(tmp_path: Path) -> None:
    long_reply = " ".join(["word"] * 30)
    model = script(tmp_path, [
        {"match": "^You are judging", "replies": [" ".join(["thinking"] * 50) + " {}"]},
        {"match": "Your next message:", "replies": [long_reply]},
    ])  # fmt: skip
    logs = run(tmp_path, model, "-k", "1", "--max-tokens", "subject=10", "--max-tokens", "judge=20")
    naive = analyze_records(load_records([logs])).models[model].conditions["naive"]
    # subject: cut at 10 words, retried at 20, still cut; judge: 50+ words at caps 20 then 40
    assert (naive.subject_truncations, naive.judge_truncations, naive.parse_failures) == (2, 2, 0)
    assert naive.scenarios_with_missing_label == 2
    with pytest.raises(InputError, match="--reasoning-effort"):
        RoleSettings.of(None, {"judge": "extreme"})
    code, output = run_cli("losona", "run", "--model", model, "--max-tokens", "judge")
    assert code == 2 and "expected ROLE=VALUE" in output


def test_repeated_trial_records_count_once(tmp_path: Path) -> None:
    row = {"scenario_id": "s1", "event_type": "e", "norm_id": "n", "condition": "naive",
           "trial": 1, "subject_model": "m", "judge_model": "j", "response": "r",
           "complies": True}  # fmt: skip
    path = tmp_path / "trials.jsonl"
    path.write_text((json.dumps(row) + "\n") * 3)
    loaded = load_run([path, path])
    assert len(loaded.records) == 1
    assert loaded.samples.skipped == ["2 repeated trial record(s)"]
