"""Shared SCENE fixtures: a two-scenario file and a script that plays every role."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.model import get_model
from typer.testing import CliRunner, Result

from normlab.cli import app
from normlab.scene.dataset import load_scenarios
from normlab.scene.schemas import SceneScenario
from normlab.scene.solver import EpisodeModels

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = FIXTURES / "script.json"
SCENARIOS = FIXTURES / "scenarios.jsonl"


def scene_run(model: str, *args: str) -> Result:
    """``normlab scene run`` on the two scenarios, once each, with ``model`` in every role
    (``args`` added); it must succeed."""
    roles = [
        arg
        for role in ("persona", "orchestrator", "auditor")
        for arg in ("--role", f"{role}={model}")
    ]
    result = CliRunner().invoke(
        app,
        ["scene", "run", "--model", model, "--judge", model, *roles, "--data", str(SCENARIOS),
         "--reps", "1", *args],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture
def scenarios() -> list[SceneScenario]:
    return load_scenarios(SCENARIOS)


@pytest.fixture
def scripted_models() -> EpisodeModels:
    model = get_model(f"scripted/{SCRIPT}")
    return EpisodeModels(subject=model, persona=model, orchestrator=model)
