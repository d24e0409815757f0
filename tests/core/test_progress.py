"""Plain progress lines when stderr is not a terminal: a run is never silent (issue 18)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from tests.losona.conftest import SCENARIOS, SCRIPT


def run(workdir: Path, model: str) -> str:
    result = CliRunner().invoke(
        app,
        ["losona", "run", "--model", model, "--judge", model, "--data", str(SCENARIOS),
         "-c", "naive", "--epochs", "1", "--log-dir", str(workdir / "logs")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output


def test_a_slow_run_says_it_is_still_running_and_each_sample_as_it_finishes(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("normlab.core.progress.HEARTBEAT_S", 0.4)
    script = json.loads(SCRIPT.read_text())
    for rule in script["rules"]:
        rule["delay"] = 0.6  # every call takes longer than the heartbeat
    slow = workdir / "slow.json"
    slow.write_text(json.dumps(script))
    model = f"scripted/{slow}"
    output = run(workdir, model)
    lines = output.splitlines()
    assert lines[0] == f"models: subject={model}, judge={model}"
    assert "losona: started, 2 samples × 1 epochs = 2 to run" in output
    assert sum(" finished (" in line for line in lines) == 2
    assert "losona: 2/2 finished" in output
    assert any(line.startswith("losona: still running, ") for line in lines)
    assert "losona: success, 2 of 2 in the log" in output


def test_no_lines_when_silenced(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NORMLAB_PROGRESS", "0")
    output = run(workdir, f"scripted/{SCRIPT}")
    assert " finished (" not in output and "losona: started" not in output
