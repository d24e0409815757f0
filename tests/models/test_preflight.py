"""Bad models fail before anything starts: one line, exit 2, no Rich markup, no empty folder."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import unmarked

RUNS = {
    "losona": ["losona", "run", "--limit", "1"],
    "scene": ["scene", "run", "--tuples", "1", "--reps", "1"],
    "hsii": ["hsii", "run", "--limit", "1"],
    "crsec": ["crsec", "run", "--hours", "9-10", "--days", "1"],
    "generate": [
        "losona",
        "generate",
        "--event",
        "achievement_announcement",
        "--norm",
        "banned_direct_answers_norm",
    ],
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def bad_models(monkeypatch: pytest.MonkeyPatch) -> dict[str, tuple[str, str]]:
    """Model string → (how it is bad, what the one line must say)."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("AZUREAI_OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("DEAD_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")
    monkeypatch.setenv("DEAD_API_KEY", "k")
    cases = {
        "nosuch/x": ("unknown provider", "not recognized"),
        "openai/gpt-4o": ("missing key", "No OPENAI_API_KEY"),
        "openai-api/dead/m": ("nothing listens", "Connection refused"),
    }
    if importlib.util.find_spec("anthropic") is None:
        cases["anthropic/claude-x"] = ("missing SDK", "pip install anthropic")
    return cases


@pytest.mark.parametrize("command", sorted(RUNS))
def test_every_bad_model_is_one_line_with_exit_2_and_no_folder(
    command: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for model, (why, said) in bad_models(monkeypatch).items():
        result = CliRunner().invoke(app, [*RUNS[command], "--model", model])
        assert result.exit_code == 2, (why, result.output)
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("normlab: error: "), (why, lines)
        assert said in lines[0] and model in lines[0], (why, lines[0])
        assert "[bold]" not in lines[0] and "[/" not in lines[0]
        assert list(workdir.iterdir()) == [], (why, sorted(workdir.rglob("*")))


def test_a_bad_judge_or_role_is_named_as_such(workdir: Path) -> None:
    result = CliRunner().invoke(app, ["losona", "run", "--limit", "1", "--judge", "nosuch/j"])
    assert result.exit_code == 2
    assert "--role judge: model 'nosuch/j'" in result.output


def test_rich_markup_from_a_library_becomes_plain_text() -> None:
    message = "[bold]ERROR[/bold]: Install with:\n\n[bold]pip install x[/bold]"
    assert unmarked(message) == "Install with: pip install x"
    assert unmarked("No [bold][blue]KEY[/blue][/bold] set\nin env") == "No KEY set; in env"
    assert unmarked("a list [1, 2] stays") == "a list [1, 2] stays"


@pytest.mark.parametrize("value", ["abc", "²", "0", "-5", "9" * 5000, "86401", "0" * 5000])
def test_a_bad_attempt_timeout_is_named_before_the_run(
    value: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read inside a sample it was an eval error that looked resumable; now it is one line
    naming the variable, exit 2, before anything starts ("²" passes str.isdigit; 5,000 digits
    are past what int() converts, and were a traceback)."""
    monkeypatch.setenv("NORMLAB_ATTEMPT_TIMEOUT", value)
    result = CliRunner().invoke(app, [*RUNS["hsii"], "--model", "mockllm/model"])
    assert result.exit_code == 2, result.output
    assert "NORMLAB_ATTEMPT_TIMEOUT: expected whole seconds" in result.output
    assert "Traceback" not in result.output
    assert list(workdir.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["scene", "run", "--max-turns", "0"], "--max-turns: field 'max_turns': must lie"),
        (["scene", "run", "--reps", "1000000"], "--reps: field 'reps': must lie between 1"),
        (["hsii", "run", "--epsilon", "1000000000"], "--epsilon: field 'epsilon': the long"),
        (["hsii", "run", "--role", "juge=mockllm/model"], "unknown role 'juge'"),
        (["losona", "run", "--max-tokens", "judge=0"], "greater than or equal to 1"),
        (["losona", "run", "--max-tokens", "nosuch=5"], "unknown role 'nosuch'"),
        (["losona", "run", "--temperature", "nan"], "expected a number from 0 to 2"),
        (["losona", "run", "--temperature", "inf"], "expected a number from 0 to 2"),
        (["losona", "run", "--temperature", "-5"], "expected a number from 0 to 2"),
        (["losona", "run", "-k", "1000000"], "K must lie between 1 and 100"),
    ],
)
def test_out_of_bounds_options_are_one_line_errors(
    args: list[str], said: str, workdir: Path
) -> None:
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    assert said in result.output and "Traceback" not in result.output
