"""SCENE's two-stage generator: norm-blindness by signature, leak checks, frozen scaffold."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model

from normlab.models.scripted import ScriptedResponder
from normlab.scene.generator import generate_scaffold, generate_scenario
from normlab.scene.lint import scaffold_findings
from normlab.scene.schemas import SceneScenario
from normlab.scene.taxonomy import Elicitor, SceneEvent, load_dimensions
from tests.helpers.inputs import scripted_rules
from tests.scene.conftest import SCENARIOS

pytestmark = pytest.mark.anyio


def fixture_scenario() -> dict[str, Any]:
    row: dict[str, Any] = json.loads(SCENARIOS.read_text().splitlines()[0])
    return row


def script(tmp_path: Path, scaffold: dict[str, Any], hidden_reply: dict[str, Any]) -> str:
    # Each stage answers the same way on its first try and on its repair rounds.
    return scripted_rules(
        tmp_path / "generator.json",
        {
            "^You are generating the hidden": hidden_reply,
            "^You are generating an opening": scaffold,
        },
    )


def test_norm_blind_stage_accepts_only_event_and_elicitor() -> None:
    parameters = inspect.signature(generate_scaffold).parameters
    assert list(parameters) == ["model", "event", "elicitor", "repairs"]
    assert parameters["event"].annotation in (SceneEvent, "SceneEvent")
    assert parameters["elicitor"].annotation in (Elicitor, "Elicitor")
    for model_type in (SceneEvent, Elicitor):
        fields = set(model_type.model_fields)
        assert not fields & {"norm", "statement", "sanction", "precedent", "compliance_signals"}


async def test_two_stages_produce_a_valid_scenario(tmp_path: Path) -> None:
    row = fixture_scenario()
    model = get_model(script(tmp_path, row["scaffold"], {"hidden": row["hidden"]}))
    dimensions = load_dimensions()
    scene_tuple = SceneScenario.model_validate(row).tuple
    result = await generate_scenario(model, scene_tuple, dimensions, "t1")
    assert result.problems == []
    assert result.value is not None
    assert result.value.scaffold.model_dump(mode="json") == row["scaffold"]
    assert result.value.scenario_id == f"{scene_tuple.slug()}__t1"


async def test_norm_blind_prompt_never_carries_the_norm(tmp_path: Path) -> None:
    row = fixture_scenario()
    model = get_model(script(tmp_path, row["scaffold"], {"hidden": row["hidden"]}))
    dimensions = load_dimensions()
    await generate_scaffold(
        model, dimensions.events["bug_report"], dimensions.elicitors["address_explicit"]
    )
    responder: ScriptedResponder = getattr(model.api, "responder")  # noqa: B009
    prompts = responder.prompts_seen
    (blind_prompt,) = [p for p in prompts if p.startswith("You are generating an opening")]
    norm = dimensions.norms["concise_answer_norm"]
    assert norm.statement not in blind_prompt and "concise_answer_norm" not in blind_prompt
    assert "bug_report" in blind_prompt and "address_explicit" in blind_prompt


async def test_leaky_scaffold_is_reported_not_written(tmp_path: Path) -> None:
    row = fixture_scenario()
    row["scaffold"]["channel"]["description"] = "Incident channel. House rules: keep answers short."
    model = get_model(script(tmp_path, row["scaffold"], {"hidden": row["hidden"]}))
    dimensions = load_dimensions()
    result = await generate_scenario(
        model, SceneScenario.model_validate(fixture_scenario()).tuple, dimensions, "x"
    )
    assert result.value is None
    assert any("mentions 'rules'" in problem for problem in result.problems)


async def test_norm_aware_stage_may_not_edit_the_scaffold(tmp_path: Path) -> None:
    row = fixture_scenario()
    edited = json.loads(json.dumps(row["scaffold"]))
    edited["transcript"]["elicitor_turn"]["content"] = (
        "Julian, one line please: is staging passing?"
    )
    model = get_model(
        script(tmp_path, row["scaffold"], {"scaffold": edited, "hidden": row["hidden"]})
    )
    result = await generate_scenario(
        model, SceneScenario.model_validate(row).tuple, load_dimensions(), "x"
    )
    assert result.value is None
    assert any("scaffold was edited" in problem for problem in result.problems)


def test_scaffold_findings_flag_the_banned_words() -> None:
    scaffold = SceneScenario.model_validate(fixture_scenario()).scaffold
    assert scaffold_findings(scaffold) == []
    for word in ("norm", "etiquette", "AI", "role-play", "evaluation", "benchmark"):
        leaky = scaffold.model_copy(deep=True)
        leaky.subject.bio_oneline = f"Thinks about {word} a lot"
        assert scaffold_findings(leaky), word
