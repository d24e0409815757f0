"""The episodes that can run longest start first (issue 23), the ids and reps unchanged."""

from __future__ import annotations

from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
from normlab.scene.schemas import SceneScenario
from normlab.scene.task import episode_calls, scene


def test_the_longest_episodes_start_first() -> None:
    task = scene(reps=2, max_turns=8)
    scenarios = [SceneScenario.model_validate((s.metadata or {})["scenario"]) for s in task.dataset]
    calls = [episode_calls(scenario, 8) for scenario in scenarios]
    assert calls == sorted(calls, reverse=True) and calls[0] > calls[-1]
    first, last = scenarios[0], scenarios[-1]
    assert (len(first.scaffold.channel.cast), first.tuple.precedent) == (4, 1)
    assert (len(last.scaffold.channel.cast), last.tuple.precedent) == (3, 0)
    # 4 SPs with a precedent: 4 + the first reply + 8 rounds × (orchestrator + 4 × 2)
    assert episode_calls(first, 8) == 4 + 1 + 8 * 9
    bank = load_scenarios(SCENARIOS_PATH)
    assert sorted(str(s.id) for s in task.dataset) == sorted(
        f"{scenario.scenario_id}::rep{rep}" for scenario in bank for rep in (1, 2)
    )
    assert [s.id for s in task.dataset][:2] == [
        f"{first.scenario_id}::rep1",
        f"{first.scenario_id}::rep2",
    ]
