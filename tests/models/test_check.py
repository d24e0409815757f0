"""``normlab models check`` on the scripted model: reply, latency and tokens are printed."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path

import pytest
from benchmarks.endpoint import Faults
from typer.testing import CliRunner

from normlab.cli import app
from tests.helpers.endpoint import model_name, serving


def test_models_check_prints_reply_latency_and_tokens(tmp_path: Path) -> None:
    script = tmp_path / "hello.json"
    script.write_text(
        json.dumps({"rules": [{"match": "new member", "replies": ["Welcome aboard!"]}]})
    )
    result = CliRunner().invoke(app, ["models", "check", "--model", f"scripted/{script}"])
    assert result.exit_code == 0, result.output
    assert "reply:   Welcome aboard!" in result.output
    assert "latency:" in result.output
    assert "2 out" in result.output  # "Welcome aboard!" is two words


def test_models_check_reports_a_missing_script_on_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["models", "check", "--model", f"scripted/{tmp_path}/none.json"]
    )
    assert result.exit_code == 2
    assert "script file not found" in result.output


@pytest.mark.slow
def test_models_check_fails_fast_and_on_one_line_when_the_endpoint_does_not_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "hello.json"
    script.write_text(json.dumps({"default": "hi"}))
    hang = Faults(timeout=1.0)
    with serving(tmp_path / "endpoint", script, monkeypatch, faults=hang) as endpoint:
        model = model_name(endpoint)
        started = time.monotonic()
        result = CliRunner().invoke(app, ["models", "check", "--model", model, "--timeout", "2"])
    assert time.monotonic() - started < 10
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"normlab: error: {model}: no answer")


def test_models_check_reports_a_refused_connection_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with socket.socket() as unused:  # a loopback port nothing listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    monkeypatch.setenv("REFUSED_BASE_URL", f"http://127.0.0.1:{port}/v1")
    monkeypatch.setenv("REFUSED_API_KEY", "not-a-secret")
    started = time.monotonic()
    result = CliRunner().invoke(app, ["models", "check", "--model", "openai-api/refused/m"])
    assert time.monotonic() - started < 10
    assert result.exit_code == 2, result.output
    assert "APIConnectionError" in result.output and "Traceback" not in result.output


def test_models_check_through_an_openai_compatible_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    script = tmp_path / "hello.json"
    script.write_text(json.dumps({"default": "Welcome aboard!"}))
    with serving(tmp_path / "endpoint", script, monkeypatch, latency=0.05) as endpoint:
        model = model_name(endpoint)
        result = CliRunner().invoke(app, ["models", "check", "--model", model])
    assert result.exit_code == 0, result.output
    assert "reply:   Welcome aboard!" in result.output
