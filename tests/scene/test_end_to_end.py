"""SCENE end to end on the scripted model: run → labels → fidelity → analysis → report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.scene.analysis import load_episode_records
from tests.scene.conftest import SCENARIOS, SCRIPT, scene_run

runner = CliRunner()
MODEL = f"scripted/{SCRIPT}"


def run_scene(workdir: Path, labeller: str) -> Path:
    result = scene_run(
        MODEL,
        "--labeller", labeller, "--log-dir", str(workdir / "logs"),
        "--report-dir", str(workdir / "report"),
    )  # fmt: skip
    assert "report:" in result.output
    return workdir / "logs"


@pytest.mark.parametrize("labeller", ["turns", "lists"])
def test_run_labels_and_scores_both_episodes(workdir: Path, labeller: str) -> None:
    logs = run_scene(workdir, labeller)
    records = {r.episode.scenario_id.rsplit("__", 1)[1]: r for r in load_episode_records([logs])}
    breach, comply = records["breach"], records["comply"]
    assert breach.labels.labeller == labeller
    assert (breach.outcome.breaches, breach.outcome.sanctions, breach.outcome.repaired) == (1, 1, 1)
    assert breach.outcome.demonstrations_before_first_breach == 1
    assert breach.outcome.later_breach_share == 0.0
    assert breach.outcome.validity == "VALID"
    assert (comply.outcome.breaches, comply.outcome.sanctions) == (0, 0)
    assert comply.outcome.later_breach_share is None
    assert breach.roles["judge"] == MODEL


def test_analyze_json_and_report(workdir: Path) -> None:
    logs = run_scene(workdir, "turns")
    result = runner.invoke(app, ["scene", "analyze", str(logs), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["headline_view"] == "all_episodes"
    summary = data["models"][MODEL]
    assert summary["episodes"] == 2
    for view in ("all_episodes", "valid_only"):  # both VALID: the two views agree here
        headline = summary[view]
        assert headline["repair"]["k"] == 1 and headline["repair"]["n"] == 1
        assert headline["repair_by_sanction"]["explicit_callout"]["n"] == 1
        concise = next(
            p for p in headline["opposing_pairs"] if p["pole_a"] == "concise_answer_norm"
        )
        assert (concise["compliance_a"]["k"], concise["compliance_a"]["n"]) == (1, 2)
    assert summary["fidelity"]["sanction_delivered"]["k"] == 1
    assert summary["sweep"] == {
        "sampler": "coverage", "reps": "1", "max_turns": "8", "labeller": "turns", "tuples": "all",
    }  # fmt: skip
    assert set(summary["prompt_reuse"]) == {"subject", "persona", "orchestrator"}
    run = json.loads(result.output)["usage"][MODEL]
    every_role = run["roles"]
    assert set(every_role) == {"subject", "persona", "orchestrator", "judge", "auditor"}
    assert every_role["judge"]["calls"] / run["units"] == 1.0  # one labelling call per episode
    assert every_role["auditor"]["cost"] is None  # the scripted model has no price
    html = (workdir / "report" / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    assert "## BREACH" in html and "## SANCTION" in html and "## REPAIR" in html
    assert "Julian*" in html


def test_rerun_resumes(workdir: Path) -> None:
    logs = run_scene(workdir, "turns")
    before = sorted(p.name for p in logs.glob("*.eval"))
    run_scene(workdir, "turns")
    assert sorted(p.name for p in logs.glob("*.eval")) == before


def test_tuples_and_validate_commands() -> None:
    result = runner.invoke(app, ["scene", "tuples"])
    assert result.exit_code == 0 and "valid tuples: 8828" in result.output
    result = runner.invoke(app, ["scene", "validate", str(SCENARIOS)])
    assert result.exit_code == 0 and "clean: 2 scenarios" in result.output


def test_validate_flags_a_leaky_scaffold_and_bad_files(tmp_path: Path) -> None:
    rows = SCENARIOS.read_text().splitlines()
    leaky = json.loads(rows[0])
    leaky["scaffold"]["channel"]["description"] = "Incident channel; etiquette: be brief."
    path = tmp_path / "leaky.jsonl"
    path.write_text(json.dumps(leaky) + "\n")
    result = runner.invoke(app, ["scene", "validate", str(path)])
    assert result.exit_code == 1 and "mentions 'etiquette'" in result.output
    broken = json.loads(rows[0])
    broken["tuple"]["sanction"] = "applause"
    path.write_text(rows[1] + "\n" + json.dumps(broken) + "\n")
    result = runner.invoke(app, ["scene", "validate", str(path)])
    assert result.exit_code == 2
    assert f"{path}:2: field 'hidden': " in result.output and "'applause'" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_inspect_view_shows_the_episode_as_the_subjects_chat(workdir: Path) -> None:
    from inspect_ai.log import read_eval_log

    logs = run_scene(workdir, "turns")
    (path,) = sorted(logs.glob("*.eval"))
    sample = next(s for s in read_eval_log(str(path)).samples or [] if "breach" in str(s.id))
    assert isinstance(sample.input, list) and sample.input[0].role == "system"
    assert "Kenji" in sample.input[-1].text  # the opening chat, never a placeholder
    roles = [message.role for message in sample.messages]
    assert roles[0] == "system" and roles.count("assistant") == 2  # Julian's two messages
    said = [m.text for m in sample.messages if m.role == "assistant"]
    assert said[1].startswith("Sorry, short version")
    assert any(m.text.startswith("[7] Priya: Julian, one line please") for m in sample.messages)
