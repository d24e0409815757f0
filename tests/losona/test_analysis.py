"""LoSoNA analysis on trial records, including the paper's §6 worked example."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.losona.analysis import analyze_records, load_records


def worked_example_records(path: Path) -> Path:
    """Gemini 3.1 Pro in §6: naive 14/38, norm_informed 32/38 (18 recovered, 0 regressed).

    Scenarios 0–13 pass under both conditions, 14–31 fail naive and pass
    norm_informed, 32–37 fail both. K = 3 trials each, with one dissenting trial
    in some scenarios so that majority (not unanimity) decides.
    """
    rows = []
    for index in range(38):
        naive_pass = index < 14
        informed_pass = index < 32
        for condition, passes in (("naive", naive_pass), ("norm_informed", informed_pass)):
            labels = [passes, passes, not passes if index % 5 == 0 else passes]
            for trial, label in enumerate(labels, start=1):
                rows.append(
                    {
                        "scenario_id": f"s{index:02d}",
                        "event_type": "exam_results" if index % 2 else "bug_report",
                        "norm_id": "non_affiliative_support" if index % 3 else "binary_answer_norm",
                        "condition": condition,
                        "trial": trial,
                        "subject_model": "google/gemini-3.1-pro",
                        "judge_model": "google/gemini-3.1-pro-preview",
                        "response": "…",
                        "complies": label,
                        "judge_reasoning": "…",
                    }
                )
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_worked_example_via_cli_json(tmp_path: Path) -> None:
    records = worked_example_records(tmp_path / "trials.jsonl")
    result = CliRunner().invoke(app, ["losona", "analyze", str(records), "--json"])
    assert result.exit_code == 0, result.output
    model = json.loads(result.output)["models"]["google/gemini-3.1-pro"]
    naive, informed = model["conditions"]["naive"], model["conditions"]["norm_informed"]
    assert naive["accuracy"]["value"] == pytest.approx(14 / 38)
    assert informed["accuracy"]["value"] == pytest.approx(32 / 38)
    assert naive["n_scenarios"] == informed["n_scenarios"] == 38
    paired = model["paired"]["norm_informed"]
    assert round(100 * paired["delta"]["value"], 1) == 47.4
    lo, hi = paired["delta"]["ci"]
    assert lo == pytest.approx(0.316, abs=0.03) and hi == pytest.approx(0.632, abs=0.03)
    assert paired["recovered"] == [18, 24]
    assert paired["regressed"] == [0, 14]
    for value in (naive["accuracy"], naive["compliance"], naive["consistency"]):
        assert 0.0 <= value["value"] <= 1.0


def test_consistency_and_compliance_follow_the_dissenting_trials(tmp_path: Path) -> None:
    result = analyze_records(load_records([worked_example_records(tmp_path / "trials.jsonl")]))
    naive = result.models["google/gemini-3.1-pro"].conditions["naive"]
    dissenting = sum(1 for index in range(38) if index % 5 == 0)  # 8 scenarios
    assert naive.consistency.value == pytest.approx((38 - dissenting) / 38)
    # 14 passing scenarios contribute 1 or 2/3; 24 failing contribute 0 or 1/3.
    passing_dissent = sum(1 for i in range(14) if i % 5 == 0)
    failing_dissent = dissenting - passing_dissent
    expected = (14 - passing_dissent / 3 + failing_dissent / 3) / 38
    assert naive.compliance.value == pytest.approx(expected)


def test_breakdowns_count_scenarios(tmp_path: Path) -> None:
    result = analyze_records(load_records([worked_example_records(tmp_path / "trials.jsonl")]))
    by_norm = result.models["google/gemini-3.1-pro"].by_norm["naive"]
    assert sum(cell.n for cell in by_norm.values()) == 38
    assert by_norm["binary_answer_norm"].n == 13  # indexes divisible by 3


def test_bad_trial_record_names_line_and_field(tmp_path: Path) -> None:
    path = worked_example_records(tmp_path / "trials.jsonl")
    lines = path.read_text().splitlines()
    broken = json.loads(lines[4])
    broken["complies"] = "maybe"
    lines[4] = json.dumps(broken)
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"trials.jsonl:5: field 'complies'"):
        load_records([path])
    result = CliRunner().invoke(app, ["losona", "analyze", str(path)])
    assert result.exit_code == 2
