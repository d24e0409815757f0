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


def test_on_a_terminal_a_bar_with_the_time_left_replaces_the_lines(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 34, item 6: on a terminal a long command shows a bar with an estimate of the time
    left (Inspect's own panel, which has none, stays off); off one, the lines above stay."""
    import io

    from rich.console import Console

    screen = io.StringIO()
    monkeypatch.setattr("normlab.core.progress.on_terminal", lambda: True)
    monkeypatch.setattr(
        "normlab.core.progress.bar_console",
        lambda: Console(file=screen, force_terminal=True, width=160, highlight=False),
    )
    output = run(workdir, f"scripted/{SCRIPT}")
    drawn = screen.getvalue()
    assert "losona: 2 samples × 1 epochs" in drawn
    assert "2/2" in drawn and " left " in drawn, drawn
    assert "losona: success, 2 of 2 in the log" in drawn
    assert " finished (" not in output + drawn, "no per-sample lines under a bar"


def test_a_bar_for_normlabs_own_jobs_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from normlab.core import progress

    screen = io.StringIO()
    monkeypatch.setattr(
        progress,
        "bar_console",
        lambda: Console(file=screen, force_terminal=True, width=120, highlight=False),
    )
    monkeypatch.setattr(progress, "on_terminal", lambda: False)
    with progress.bars() as shown:
        shown.add("ticks", 4)(4)
    assert screen.getvalue() == ""
    monkeypatch.setattr(progress, "on_terminal", lambda: True)
    with progress.bars() as shown:
        shown.add("ticks", 4, done=1)(2)
    assert "ticks" in screen.getvalue() and "3/4" in screen.getvalue()
