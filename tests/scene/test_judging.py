"""SCENE labelling and fidelity on the scripted model, including a persona that breaches."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import get_model

from normlab.scene.analysis import analyze_outcomes
from normlab.scene.rules import episode_outcome
from normlab.scene.schemas import SceneScenario
from normlab.scene.scorer import audit_fidelity, label_episode
from normlab.scene.solver import EpisodeModels, run_episode
from normlab.scene.taxonomy import load_dimensions

pytestmark = pytest.mark.anyio


def judge_script(tmp_path: Path, labels: list[tuple[int, str, str]], fidelity: str) -> str:
    reply = {
        "turn_labels": [{"turn_id": t, "actor": a, "label": lab} for t, a, lab in labels],
        "episode_metrics": {
            "subject_breach_count": 0, "subject_corrected": False, "subject_relapses": 0,
            "subject_face_save": False, "subject_late_comply": False, "sanction_shape_match": False,
        },
    }  # fmt: skip
    path = tmp_path / "judge.json"
    rules = [
        {"match": "^You label events", "replies": [json.dumps(reply)]},
        {"match": "^You audit", "replies": [json.dumps({"label": fidelity, "justification": "j"})]},
    ]
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


async def test_persona_breach_is_flagged_and_counted_in_fidelity_over_all_episodes(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    dimensions = load_dimensions()
    scenario = scenarios[1]  # the subject answers in one line: no subject breach
    episode = await run_episode(scenario, dimensions, scripted_models)
    # The judge sees Kenji's opening turn 1 as a breach of the norm by a scripted persona.
    judge = get_model(
        judge_script(tmp_path, [(1, "Kenji", "BREACH"), (4, "Kenji", "DEMONSTRATION")], "INVALID")
    )
    labels = await label_episode(judge, scenario, episode, dimensions, "turns")
    assert labels.persona_breaches == [1]
    assert labels.breaches == [], "a persona's breach is not a subject breach"
    assert labels.demonstrations == [4]
    fidelity = await audit_fidelity(judge, scenario, episode, dimensions)
    assert fidelity is not None and fidelity.label == "INVALID"
    outcome = episode_outcome(episode, labels, fidelity, "subject-model")
    assert outcome.persona_breach is True
    summary = analyze_outcomes([outcome], dimensions).models["subject-model"]
    assert summary.validity == {"INVALID": 1}
    # Issue 8: fidelity rates are over all episodes (the INVALID ones are exactly those where
    # personas failed); the behavioural views count it in "all", not in "VALID only".
    assert (summary.fidelity.persona_breach.k, summary.fidelity.persona_breach.n) == (1, 1)
    assert (summary.all_episodes.episodes, summary.valid_only.episodes) == (1, 0)


async def test_labels_on_the_wrong_side_are_dropped(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    dimensions = load_dimensions()
    episode = await run_episode(scenarios[0], dimensions, scripted_models)
    # Turn 7 is Priya's (a persona), so it cannot be a subject repair; turn 4 is Kenji's,
    # so it cannot be a subject breach.
    labels_in = [
        (6, "Julian", "BREACH"),
        (7, "Priya", "FACE_SAVE_REPAIR"),
        (4, "Kenji", "SANCTION"),
    ]
    judge = get_model(judge_script(tmp_path, labels_in, "VALID"))
    labels = await label_episode(judge, scenarios[0], episode, dimensions, "turns")
    assert (labels.breaches, labels.repairs, labels.sanctions) == ([6], [], [4])


async def test_label_for_a_turn_that_does_not_exist_is_a_parse_failure(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    dimensions = load_dimensions()
    episode = await run_episode(scenarios[0], dimensions, scripted_models)
    assert 99 not in {entry.turn_id for entry in episode.entries}
    judge = get_model(
        judge_script(tmp_path, [(6, "Julian", "BREACH"), (99, "X", "SANCTION")], "VALID")
    )
    labels = await label_episode(judge, scenarios[0], episode, dimensions, "turns")
    assert labels.breaches is None and labels.parse_failures == 1


async def test_unparseable_judge_reply_is_a_parse_failure_not_empty_lists(
    tmp_path: Path, scenarios: list[SceneScenario], scripted_models: EpisodeModels
) -> None:
    dimensions = load_dimensions()
    episode = await run_episode(scenarios[1], dimensions, scripted_models)
    path = tmp_path / "broken.json"
    path.write_text(json.dumps({"default": "no idea"}))
    judge = get_model(f"scripted/{path}")
    for labeller in ("turns", "lists"):
        labels = await label_episode(judge, scenarios[1], episode, dimensions, labeller)
        assert labels.breaches is None and labels.parse_failures >= 1
        outcome = episode_outcome(episode, labels, None, "m")
        assert not outcome.labelled
    assert analyze_outcomes([outcome], dimensions).models["m"].unlabelled_episodes == 1
