"""Logs written before the shared ground (normlab 0.1, task version 1) still analyze and report.

The fixtures are the scripted runs of the first release, with the analysis that
release printed; today's analysis of the same logs must give the same numbers.
"""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from normlab.cli import app
from normlab.losona import analyze as analyze_losona
from normlab.losona import load_run as load_losona
from normlab.scene import analyze as analyze_scene
from normlab.scene import load_run as load_scene

LEGACY = Path(__file__).parent / "fixtures" / "legacy"


def test_losona_v0_log_gives_the_numbers_it_gave() -> None:
    before = json.loads((LEGACY / "losona_v0_analysis.json").read_text())
    after = analyze_losona(load_losona([LEGACY / "losona_v0.eval"]))
    ((model, old),) = before["models"].items()
    new = after.models[model]
    for condition, cell in old["conditions"].items():
        now = new.conditions[condition]
        assert now.accuracy.value == cell["accuracy"]
        assert now.compliance.value == cell["compliance"]
        assert now.consistency.value == cell["consistency"]
        assert (now.n_scenarios, now.n_trials) == (cell["n_scenarios"], cell["n_trials"])
    old_pair, new_pair = old["paired"]["norm_informed"], new.paired["norm_informed"]
    assert new_pair.delta.value == old_pair["delta"]
    assert list(new_pair.recovered) == old_pair["recovered"]
    assert after.usage[model].roles["judge"].calls == 12


def test_scene_v0_log_gives_the_numbers_it_gave() -> None:
    before = json.loads((LEGACY / "scene_v0_analysis.json").read_text())
    run = load_scene([LEGACY / "scene_v0.eval"])
    after = analyze_scene(run)
    ((model, old),) = before["models"].items()
    new = after.models[model]
    assert new.episodes == old["episodes"]
    # both episodes VALID: the old headline equals today's both views
    for view in (new.all_episodes, new.valid_only):
        assert (view.repair.k, view.repair.n) == (old["repair"]["k"], old["repair"]["n"])
    assert new.validity == old["validity"]
    assert {turn.kind for r in run.records for turn in r.episode.entries} == {"message"}
    assert set(after.usage[model].roles) == set(before["all_roles_per_episode"][model])


def test_legacy_logs_report(tmp_path: Path) -> None:
    runner = CliRunner()
    for system, log in (("losona", "losona_v0.eval"), ("scene", "scene_v0.eval")):
        out = tmp_path / system
        result = runner.invoke(app, [system, "report", str(LEGACY / log), "--out", str(out)])
        assert result.exit_code == 0, result.output
        assert "Usage and cost" in (out / "report.html").read_text()
