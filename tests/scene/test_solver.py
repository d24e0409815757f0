"""The SCENE runtime on scripted models: breach → sanction → repair, silence, parse failures."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from inspect_ai.model import get_model

from normlab.scene.prompts import OPEN_FLOOR_NOTE, ORCHESTRATOR_REQUEST, load_template
from normlab.scene.schemas import Episode, SceneScenario
from normlab.scene.solver import EpisodeModels, run_episode
from normlab.scene.taxonomy import load_dimensions

pytestmark = pytest.mark.anyio


async def play(scenario: SceneScenario, models: EpisodeModels, max_turns: int = 8) -> Episode:
    return await run_episode(scenario, load_dimensions(), models, max_turns)


async def test_breach_sanction_repair_then_silence(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    episode = await play(scenarios[0], scripted_models)
    lines = [(e.turn_id, e.actor, e.phase) for e in episode.entries]
    assert lines[:5] == [
        (i, a, "opening") for i, a in [(1, "Kenji"), (2, "Marisol"), (3, "Priya"), (4, "Kenji")]
    ] + [(5, "Marisol", "elicitor")]
    assert [(e.turn_id, e.actor) for e in episode.entries[5:]] == [
        (6, "Julian"),
        (7, "Priya"),
        (8, "Julian"),
    ]
    assert "several possible causes" in episode.entries[5].content
    assert episode.entries[6].content == "Julian, one line please."
    assert episode.entries[7].content.startswith("Sorry, short version")
    # Round 1 had speech; rounds 2–4 were all silent with the subject no-opping.
    assert (episode.termination, episode.rounds) == ("silence", 4)
    assert sum(1 for e in episode.log if e.kind == "no-op" and e.actor == "Julian") == 3


async def test_subject_is_prompted_after_every_non_silent_persona_action(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    episode = await play(scenarios[0], scripted_models)
    prompts = [e for e in episode.log if e.kind == "prompt" and e.actor == "Julian"]
    # first action + after Priya's callout + one open-floor prompt in each of rounds 2–4
    assert [p.detail["open_floor"] for p in prompts] == [False, False, True, True, True]


async def test_no_breach_episode_ends_after_three_silent_rounds(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    episode = await play(scenarios[1], scripted_models)
    assert [e.content for e in episode.subject_entries()] == ["The address service."]
    assert (episode.termination, episode.rounds) == ("silence", 3)


async def test_max_turns_ends_the_episode(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    episode = await play(scenarios[0], scripted_models, max_turns=2)
    assert (episode.termination, episode.rounds) == ("max_turns", 2)


async def test_subject_never_sees_hidden_fields(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    scenario = scenarios[0]
    episode = await play(scenario, scripted_models)
    views = ["\n".join(e.detail["messages"]) for e in episode.log if e.kind == "subject_view"]
    assert views
    hidden = [
        load_dimensions().norms[scenario.tuple.norm].statement,
        scenario.tuple.norm,
        scenario.tuple.sanction,
        *(p.outline for p in scenario.hidden.personas),
        *(line for p in scenario.hidden.personas for line in p.sanction_lines),
    ]
    for view in views:
        for text in hidden:
            assert text not in view


async def test_malformed_persona_reply_is_retried_then_a_recorded_no_op(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    broken = tmp_path / "broken_persona.json"
    routing = '{"next_actor": "Kenji", "terminate": false}'
    rules = [
        {"match": "^You are the orchestrator", "replies": [routing]},
        {"match": "^You play the role of", "replies": ["I'd rather not answer in JSON."]},
    ]
    broken.write_text(json.dumps({"rules": rules}))
    models = EpisodeModels(
        subject=scripted_models.subject,
        persona=get_model(f"scripted/{broken}"),
        orchestrator=get_model(f"scripted/{broken}"),
    )
    episode = await play(scenarios[1], models, max_turns=1)
    failures = [
        e for e in episode.log if e.kind == "parse_failure" and e.detail.get("role") == "persona"
    ]
    assert len(failures) == 3  # every persona, once each, after its repair retry
    assert all(len(f.detail["replies"]) == 2 for f in failures)
    persona_calls = [c for c in episode.calls if c.role == "persona"]
    assert persona_calls and all(c.attempts == 2 for c in persona_calls)
    assert not [e for e in episode.entries if e.phase == "episode" and e.actor != "Julian"]


async def test_unusable_orchestrator_falls_back_to_cast_order(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    silly = tmp_path / "orchestrator.json"
    silly.write_text(json.dumps({"default": '{"next_actor": "Nobody", "terminate": false}'}))
    models = EpisodeModels(
        subject=scripted_models.subject,
        persona=scripted_models.persona,
        orchestrator=get_model(f"scripted/{silly}"),
    )
    episode = await play(scenarios[1], models, max_turns=1)
    (routing,) = [e for e in episode.log if e.kind == "orchestration"]
    assert routing.detail["order"] == ["Kenji", "Priya", "Marisol"]


async def test_calls_record_prefix_sharing(
    scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    episode = await play(scenarios[0], scripted_models)
    subject_calls = [c for c in episode.calls if c.role == "subject"]
    assert subject_calls[0].shared_prefix_chars == 0
    # Append-only layout: each prompt repeats the caller's previous prompt up to the end of its
    # transcript; only the one-line tail after the transcript (the open-floor note and the
    # "Return JSON" line) may differ.
    cast = ", ".join(member.name for member in scenarios[0].scaffold.channel.cast)
    tails = {
        "subject": len(OPEN_FLOOR_NOTE) + len(load_template("subject").split("{{transcript}}")[1]),
        "persona": 0,
        "orchestrator": len(ORCHESTRATOR_REQUEST.format(names=cast)),
    }
    for role, tail in tails.items():
        actors = {c.actor for c in episode.calls if c.role == role}
        assert actors, role
        for actor in actors:
            calls = [c for c in episode.calls if (c.role, c.actor) == (role, actor)]
            assert calls[0].shared_prefix_chars == 0
            for previous, current in itertools.pairwise(calls):
                assert current.shared_prefix_chars >= previous.prompt_chars - tail - 2, (
                    role,
                    actor,
                )
