"""Shared SCENE fixtures: a two-scenario file and a script that plays every role."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.model import get_model

from normlab.scene.dataset import load_scenarios
from normlab.scene.schemas import SceneScenario
from normlab.scene.solver import EpisodeModels

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = FIXTURES / "script.json"
SCENARIOS = FIXTURES / "scenarios.jsonl"


@pytest.fixture
def scenarios() -> list[SceneScenario]:
    return load_scenarios(SCENARIOS)


@pytest.fixture
def scripted_models() -> EpisodeModels:
    model = get_model(f"scripted/{SCRIPT}")
    return EpisodeModels(subject=model, persona=model, orchestrator=model)
