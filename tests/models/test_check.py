"""``normlab models check`` on the scripted model: reply, latency and tokens are printed."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from normlab.cli import app


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
