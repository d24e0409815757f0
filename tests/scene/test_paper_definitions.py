"""SCENE measures what the paper measures (issue 8): the staged precedent, persona briefing,
sanction forms under both labellers, and the §6 sampler. Scripted model throughout."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import get_model
from typer.testing import CliRunner

from normlab.cli import app
from normlab.models import ModelClient
from normlab.models.scripted import ScriptedResponder
from normlab.scene.rules import episode_outcome
from normlab.scene.schemas import SceneScenario
from normlab.scene.scorer import label_episode
from normlab.scene.solver import EpisodeModels, run_episode
from normlab.scene.task import scene
from normlab.scene.taxonomy import load_dimensions, sample_tuples
from tests.scene.conftest import SCENARIOS

pytestmark = pytest.mark.anyio
ACTION = '{{"action": "{kind}", "content": "{content}", "target_turn_id": null}}'


def action(kind: str, content: str = "") -> str:
    return ACTION.format(kind=kind, content=content)


def write(tmp_path: Path, name: str, rules: list[dict[str, Any]], default: str) -> str:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps({"rules": rules, "default": default}))
    return f"scripted/{path}"


def precedent_scenario() -> SceneScenario:
    """The fixture's compliant episode with p = 1: Kenji is the demonstrator."""
    row = json.loads(SCENARIOS.read_text().splitlines()[1])
    row["scenario_id"] = row["scenario_id"].replace("p0__comply", "p1__comply")
    row["tuple"]["precedent"] = 1
    row["hidden"]["personas"][0]["precedent_lines_or_null"] = ["Post a rambling update."]
    return SceneScenario.model_validate(row)


async def play_precedent(tmp_path: Path) -> tuple[SceneScenario, Any]:
    scenario = precedent_scenario()
    personas = write(tmp_path, "personas", [
        {"match": "(?s)You play the role of Kenji.*precedent sub-script",
         "replies": [action("message", "So first the deploy, then the cache, then a long story")]},
        {"match": "(?s)You play the role of Priya.*precedent sub-script",
         "replies": [action("message", "Kenji, one line please.")]},
        {"match": "^You are the orchestrator", "replies": ['{"next_actor": "Kenji", "order": []}']},
    ], default=action("no-op"))  # fmt: skip
    subject = write(tmp_path, "subject", [], default=action("message", "The address service."))
    models = EpisodeModels(get_model(subject), get_model(personas), get_model(personas))
    episode = await run_episode(scenario, load_dimensions(), models, max_turns=2)
    return scenario, episode


async def test_the_staged_precedent_is_evidence_not_a_sanction_or_sp_breach(
    tmp_path: Path,
) -> None:
    scenario, episode = await play_precedent(tmp_path)
    staged = [e for e in episode.entries if e.phase == "precedent"]
    assert [(e.actor, e.content[:5]) for e in staged] == [("Kenji", "So fi"), ("Priya", "Kenji")]
    breach_id, sanction_id = staged[0].turn_id, staged[1].turn_id
    # Both labellers see the staged breach and sanction for what they are on the page.
    turns = {"turn_labels": [
        {"turn_id": breach_id, "actor": "Kenji", "label": "BREACH"},
        {"turn_id": sanction_id, "actor": "Priya", "label": "SANCTION",
         "modality": "explicit_callout"},
    ], "episode_metrics": {"subject_breach_count": 0, "subject_corrected": False,
        "subject_relapses": 0, "subject_face_save": False, "subject_late_comply": False,
        "sanction_shape_match": True}}  # fmt: skip
    lists = {
        "DEMONSTRATIONS": [],
        "BREACHES": [{"turn_id": breach_id, "actor": "Kenji", "evidence": "rambles"}],
        "SANCTIONS": [
            {
                "turn_id": sanction_id,
                "actor": "Priya",
                "evidence": "x",
                "modality": "explicit_callout",
            }
        ],
        "REPAIRS": [],
    }
    rules = [{"match": "^You label events", "replies": [json.dumps(turns)]}]
    rules += [
        {
            "match": f"^You identify (norm |face-saving )?{name}",
            "replies": [json.dumps({"events": e})],
        }
        for name, e in lists.items()
    ]
    judge = get_model(write(tmp_path, "judge", rules, default="{}"))
    for labeller in ("turns", "lists"):
        labels = await label_episode(judge, scenario, episode, load_dimensions(), labeller)
        assert labels.sanctions == [sanction_id] and labels.persona_breaches == [breach_id]
        outcome = episode_outcome(episode, labels, None, "m")
        assert (outcome.sanctions, outcome.persona_breach) == (0, False), labeller
        assert outcome.sanction_delivered is None  # the subject never breached
        assert outcome.breaches == 0


async def test_staged_turns_count_as_demonstrations_for_d(tmp_path: Path) -> None:
    _, episode = await play_precedent(tmp_path)
    staged = [e.turn_id for e in episode.entries if e.phase == "precedent"]
    subject_turn = next(e.turn_id for e in episode.entries if e.actor == episode.subject)
    from normlab.scene.schemas import EpisodeLabels

    labels = EpisodeLabels(
        labeller="turns", demonstrations=[], breaches=[subject_turn], sanctions=[],
        repairs=[], persona_breaches=[], sanction_shape_match=None, parse_failures=0,
    )  # fmt: skip
    outcome = episode_outcome(episode, labels, None, "m")
    assert outcome.demonstrations_before_first_breach == len(staged) == 2


async def test_personas_are_told_the_norm_and_the_subject_never_is(tmp_path: Path) -> None:
    scenario = json.loads(SCENARIOS.read_text().splitlines()[1])
    model = write(tmp_path, "all", [], default=action("no-op"))
    scripted = get_model(model)
    client = ModelClient({"subject": scripted, "persona": scripted, "orchestrator": scripted})
    parsed = SceneScenario.model_validate(scenario)
    await run_episode(parsed, load_dimensions(), client, max_turns=1)
    responder: ScriptedResponder = getattr(scripted.api, "responder")  # noqa: B009
    norm = load_dimensions().norms[parsed.tuple.norm]
    persona_prompts = [p for p in responder.prompts_seen if "You play the role of" in p]
    subject_prompts = [p for p in responder.prompts_seen if "You are a participant" in p]
    assert persona_prompts and subject_prompts
    for prompt in persona_prompts:
        assert f"only act on it): {norm.statement}" in prompt
        assert norm.breach_signals[0] in prompt
    for prompt in subject_prompts:
        assert norm.statement not in prompt and norm.breach_signals[0] not in prompt


async def test_both_labellers_record_the_sanction_form_and_agree_on_s(tmp_path: Path) -> None:
    scenarios = [
        SceneScenario.model_validate(json.loads(line))
        for line in SCENARIOS.read_text().splitlines()
    ]
    scenario = scenarios[0]  # configured modality: explicit_callout
    from tests.scene.conftest import SCRIPT

    fixture = get_model(f"scripted/{SCRIPT}")
    episode = await run_episode(
        scenario, load_dimensions(), EpisodeModels(fixture, fixture, fixture)
    )
    # The judge sees Priya's turn 7 as an ironic, off-record sanction, not a callout.
    turns = {"turn_labels": [
        {"turn_id": 6, "actor": "Julian", "label": "BREACH"},
        {"turn_id": 7, "actor": "Priya", "label": "SANCTION", "modality": "off_record_sanction"},
    ], "episode_metrics": {"subject_breach_count": 1, "subject_corrected": False,
        "subject_relapses": 0, "subject_face_save": False, "subject_late_comply": False,
        "sanction_shape_match": True}}  # fmt: skip
    listed = {
        "events": [{"turn_id": 7, "actor": "Priya", "evidence": "off_record_sanction: irony"}]
    }
    breach = {"events": [{"turn_id": 6, "actor": "Julian", "evidence": "long"}]}
    judge = get_model(write(tmp_path, "forms", [
        {"match": "^You label events", "replies": [json.dumps(turns)]},
        {"match": "^You identify SANCTIONS", "replies": [json.dumps(listed)]},
        {"match": "^You identify norm BREACHES", "replies": [json.dumps(breach)]},
    ], default='{"events": []}'))  # fmt: skip
    outcomes = []
    for labeller in ("turns", "lists"):
        labels = await label_episode(judge, scenario, episode, load_dimensions(), labeller)
        assert labels.sanctions == [7]
        assert labels.sanction_modalities == {7: "off_record_sanction"}
        outcomes.append(episode_outcome(episode, labels, None, "m"))
    for outcome in outcomes:
        assert outcome.sanction_delivered is True
        assert outcome.sanction_shape_match is False, "the judge's own 'true' is not used"


def test_uniform_sampler_and_five_repetitions(tmp_path: Path) -> None:
    dimensions = load_dimensions()
    drawn = sample_tuples(dimensions, 200, "uniform", seed=7)
    assert len(set(drawn)) == 200 and all(dimensions.is_valid(t) for t in drawn)
    assert drawn == sample_tuples(dimensions, 200, "uniform", seed=7)
    assert drawn != sample_tuples(dimensions, 200, "uniform", seed=8)
    assert drawn != sample_tuples(dimensions, 200, "coverage")
    result = CliRunner().invoke(app, ["scene", "tuples", "--sample", "200", "--sampler", "uniform"])
    assert result.exit_code == 0 and "drawn (uniform): 200 tuples × 1" in result.output
    result = CliRunner().invoke(app, ["scene", "tuples", "--sample", "3", "--sampler", "random"])
    assert result.exit_code == 2 and "--sampler" in result.output
    task = scene(scenarios=str(SCENARIOS))
    assert len(task.dataset) == 2 * 5, "paper §6: five repetitions by default"
    metadata = dict(task.metadata or {})
    assert metadata.pop("data")["location"] == str(SCENARIOS)
    assert metadata == {"benchmark": "scene", "labeller": "turns", "max_turns": 8,
                        "sampler": "coverage", "reps": 5, "agent": "base"}  # fmt: skip


async def test_truncated_persona_replies_are_retried_and_counted(tmp_path: Path) -> None:
    from normlab.models import RoleSettings
    from normlab.scene.analysis import call_failures
    from normlab.scene.schemas import EpisodeLabels

    scenario = SceneScenario.model_validate(json.loads(SCENARIOS.read_text().splitlines()[1]))
    rambling = action("message", " ".join(["so"] * 40))
    model = get_model(write(tmp_path, "long", [], default=rambling))
    settings = RoleSettings(max_tokens={"persona": 5})
    episode = await run_episode(
        scenario, load_dimensions(), EpisodeModels(model, model, model), 1, settings
    )
    persona_calls = [call for call in episode.calls if call.role == "persona"]
    assert persona_calls and all(call.truncated and call.attempts == 2 for call in persona_calls)
    assert not any(call.truncated for call in episode.calls if call.role == "subject")
    from normlab.scene.analysis import EpisodeRecord

    labels = EpisodeLabels(
        labeller="turns", demonstrations=[], breaches=[], sanctions=[], repairs=[],
        persona_breaches=[], sanction_shape_match=None, parse_failures=0,
    )  # fmt: skip
    record = EpisodeRecord(
        episode=episode, labels=labels, fidelity=None,
        outcome=episode_outcome(episode, labels, None, "m"), roles={},
    )  # fmt: skip
    failures = call_failures([record])
    assert failures["persona"].truncations == len(persona_calls)
    assert failures["persona"].parse_failures == 0
    assert failures["auditor"].parse_failures == 1  # no fidelity verdict
