"""Shared LoSoNA fixtures: a finished scripted run to analyze, rescore and audit."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from tests.helpers.inputs import losona_trial

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = FIXTURES / "script.json"
SCENARIOS = FIXTURES / "scenarios.jsonl"

runner = CliRunner()


def trial_row(scenario: str, trial: int, complies: bool | None, **fields: Any) -> dict[str, Any]:
    """One trial record of subject ``m`` judged by ``j`` under ``naive`` on the binary-answer
    norm (``fields`` replace or add to its keys)."""
    plain = {"norm_id": "binary_answer_norm", "judge_model": "j", "response": "…"}
    return losona_trial("m", scenario, trial, complies, **{**plain, **fields})


def run_cli(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def finished_run(workdir: Path) -> Path:
    """A complete scripted run: 2 scenarios × 2 conditions × K=3.

    Per scenario, naive gets two direct answers and one pointer (judged 1/3
    compliant); norm_informed gets three pointers (3/3 compliant).
    """
    code, output = run_cli(
        "losona", "run",
        "--model", f"scripted/{SCRIPT}",
        "--judge", f"scripted/{SCRIPT}",
        "--data", str(SCENARIOS),
        "-c", "naive", "-c", "norm_informed",
        "--log-dir", str(workdir / "logs"),
        "--report-dir", str(workdir / "report"),
    )  # fmt: skip
    assert code == 0, output
    assert "report:" in output
    return workdir
