"""SCENE's two-stage scenario generator (paper §4.1, B.1, B.2).

Stage 1, norm-blind: ``generate_scaffold`` takes an event and an elicitor —
its signature admits nothing else, so no norm, sanction or precedent can reach
the prompt — and returns the subject-visible scaffold. Its text is checked for
words that would leak the test (norms, rules, etiquette, expectations,
benchmarks, evaluation, AI, role-play).

Stage 2, norm-aware: ``generate_hidden`` receives the frozen scaffold plus
the norm, sanction and precedent, and may fill only the hidden fields: if its
reply carries a scaffold that differs from the frozen one, the reply is
rejected. Either stage's findings go back to the model for a repair round; a
candidate that still fails is reported, never written.
"""

from __future__ import annotations

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from pydantic import ValidationError

from normlab.core.jsonio import validation_field
from normlab.models import CheckedResult, Generated, generate_checked
from normlab.scene.lint import scaffold_findings
from normlab.scene.prompts import load_template, sanction_text, system_text
from normlab.scene.schemas import NormAwareReply, Scaffold, SceneScenario
from normlab.scene.taxonomy import Dimensions, Elicitor, SceneEvent, SceneTuple

GENERATOR_CONFIG = GenerateConfig(temperature=0.8, max_tokens=2000)
GENERATE_REQUEST = "Generate it now."


async def generate_scaffold(
    model: Model, event: SceneEvent, elicitor: Elicitor, repairs: int = 1
) -> CheckedResult[Scaffold]:
    """Stage 1 (norm-blind): only the event and the elicitor reach the model."""
    system = system_text(
        "generator_norm_blind",
        {
            "event": f"{event.id} ({event.setting})",
            "elicitor": f"{elicitor.id} ({elicitor.description})",
        },
    )
    system += "\n" + load_template("generator_norm_blind_subject")

    def check(scaffold: Scaffold) -> tuple[Scaffold, list[str]]:
        return scaffold, scaffold_findings(scaffold)

    messages: list[ChatMessage] = [
        ChatMessageSystem(content=system),
        ChatMessageUser(content=GENERATE_REQUEST),
    ]
    return await generate_checked(model, messages, Scaffold, check, GENERATOR_CONFIG, repairs)


async def generate_hidden(
    model: Model,
    scaffold: Scaffold,
    scene_tuple: SceneTuple,
    dimensions: Dimensions,
    scenario_id: str,
    repairs: int = 1,
) -> CheckedResult[SceneScenario]:
    """Stage 2 (norm-aware): fill only the hidden fields of the frozen scaffold."""
    norm = dimensions.norms[scene_tuple.norm]
    frozen = scaffold.model_dump(mode="json")
    system = system_text(
        "generator_norm_aware",
        {
            "scaffold": scaffold.model_dump_json(),
            "norm": f"{norm.id}: {norm.statement}",
            "sanction": sanction_text(dimensions, scene_tuple.sanction),
            "precedent": str(scene_tuple.precedent),
        },
    )

    def check(reply: NormAwareReply) -> tuple[SceneScenario | None, list[str]]:
        if reply.scaffold is not None and reply.scaffold != frozen:
            return None, ["the scaffold was edited: return it unchanged or leave it out"]
        try:
            scenario = SceneScenario(
                scenario_id=scenario_id, scaffold=scaffold, tuple=scene_tuple, hidden=reply.hidden
            )
        except ValidationError as error:
            location, message = validation_field(error)
            return None, [f"{location or 'hidden'}: {message}"]
        return scenario, []

    messages: list[ChatMessage] = [
        ChatMessageSystem(content=system),
        ChatMessageUser(content=GENERATE_REQUEST),
    ]
    return await generate_checked(model, messages, NormAwareReply, check, GENERATOR_CONFIG, repairs)


async def generate_scenario(
    model: Model, scene_tuple: SceneTuple, dimensions: Dimensions, suffix: str, repairs: int = 1
) -> Generated[SceneScenario]:
    """Both stages for one tuple; the norm-blind stage sees only event and elicitor."""
    stage1 = await generate_scaffold(
        model,
        dimensions.events[scene_tuple.event],
        dimensions.elicitors[scene_tuple.elicitor],
        repairs,
    )
    if stage1.value is None:
        return Generated(
            scene_tuple.slug(),
            None,
            [f"norm-blind stage: {p}" for p in stage1.problems],
            stage1.calls,
        )
    stage2 = await generate_hidden(
        model, stage1.value, scene_tuple, dimensions, f"{scene_tuple.slug()}__{suffix}", repairs
    )
    problems = [f"norm-aware stage: {p}" for p in stage2.problems] if stage2.value is None else []
    return Generated(scene_tuple.slug(), stage2.value, problems, stage1.calls + stage2.calls)
