"""The norm-learning subject takes SCENE: it reads the chat before each action (the sanction
aimed at it included), keeps what passes, acts with it in view; the report sets it beside
its model alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model, get_model
from typer.testing import CliRunner

from normlab.agents import NORM_MEMORY_ROLE, NormMemory
from normlab.cli import app
from normlab.models import ModelClient
from normlab.scene.analysis import load_episode_records
from normlab.scene.dataset import load_scenarios
from normlab.scene.schemas import Episode, SceneScenario
from normlab.scene.solver import run_episode
from normlab.scene.taxonomy import load_dimensions
from tests.agents.conftest import SCENE_SCRIPT
from tests.scene.conftest import SCENARIOS, scene_run

MODEL = f"scripted/{SCENE_SCRIPT}"
KEPT = "Answers are kept to one line."
REJECTED = "Priya is annoyed with Julian."
runner = CliRunner()


@pytest.fixture
def scenarios() -> list[SceneScenario]:
    return load_scenarios(SCENARIOS)


async def play(scenario: SceneScenario, model: Model | None = None) -> Episode:
    model = model or get_model(MODEL, memoize=False)
    client = ModelClient(
        dict.fromkeys(("subject", "persona", "orchestrator", NORM_MEMORY_ROLE), model)
    )
    memory = NormMemory(client, scenario.subject.name, seed=3)
    return await run_episode(scenario, load_dimensions(), client, memory=memory)


@pytest.mark.anyio
async def test_the_sanction_aimed_at_it_yields_a_norm_used_in_its_next_action(
    scenarios: list[SceneScenario],
) -> None:
    episode = await play(scenarios[0])
    assert episode.agent == "norm-memory" and episode.norm_memory is not None
    first, second, *rest = episode.norm_memory.readings
    assert (first.turn, first.items, first.qualified) == (5, [], [])  # nothing normative yet
    assert second.turn == 7  # after its long answer [6] and Priya's sanction [7]
    assert [(i.content, i.status) for i in second.items] == [
        (KEPT, "qualified"),
        (REJECTED, "rejected"),
    ]
    assert rest[1:], "no reading after the sanction"
    assert all(not r.read and r.calls == 0 for r in rest[1:])  # silence: nothing new to read
    views = [e.detail["messages"][-1] for e in episode.log if e.kind == "subject_view"]
    assert "QUALIFIED PERSONAL NORMS: NONE" in views[0]
    assert f"QUALIFIED PERSONAL NORMS: 1. {KEPT}" in views[1] and REJECTED not in views[1]
    assert views[1].index(KEPT) < views[1].index("Return JSON")
    assert episode.entries[7].content.startswith("Sorry, short version")
    roles = [call.role for call in episode.calls]
    assert roles.count(NORM_MEMORY_ROLE) == sum(r.calls for r in episode.norm_memory.readings)


@pytest.mark.anyio
async def test_it_reads_its_own_turns_marked_and_never_the_hidden_norm(
    scenarios: list[SceneScenario],
) -> None:
    scenario = scenarios[0]
    model = get_model(MODEL, memoize=False)
    episode = await play(scenario, model)
    prompts = model.api.responder.prompts_seen  # type: ignore[attr-defined]
    identify = [p for p in prompts if p.startswith("TASK: Let's think step by step.")]
    assert any("[6] Julian (you): Staging will not" in p for p in identify)
    hidden = load_dimensions().norms[scenario.tuple.norm].statement
    agent_prompts = [p for p in prompts if p.startswith(("TASK:", "You have just come across"))]
    assert agent_prompts and all(hidden not in p for p in agent_prompts)
    assert episode.norm_memory is not None


def test_the_report_sets_the_agent_beside_its_model(workdir: Path) -> None:
    scene_run(MODEL, "--agent", "base")
    scene_run(MODEL, "--agent", "norm-memory")
    runs = workdir / "runs" / "scene"
    assert sum("+norm-memory" in p.name for p in runs.iterdir()) == 1
    records = load_episode_records([runs])
    agent_records = [r for r in records if r.outcome.agent == "norm-memory"]
    assert len(records) == 4 and len(agent_records) == 2
    inference = {r.outcome.scenario_id.rsplit("__", 1)[1]: r.norm_inference for r in agent_records}
    breach, comply = inference["breach"], inference["comply"]
    assert breach and (breach.held, breach.first_held_reply, breach.first_held_turn) == (True, 2, 7)
    assert comply and (comply.held, comply.first_held_reply, comply.first_held_turn) == (True, 1, 5)
    result = runner.invoke(app, ["scene", "analyze", str(runs), "--json"])
    assert result.exit_code == 0, result.output
    comparison = json.loads(result.output)["agents"][f"{MODEL} + norm-memory"]
    assert (comparison["scenarios"], comparison["episodes"]) == (2, [2, 2])
    assert comparison["repair"]["base"]["k"] == comparison["repair"]["agent"]["k"] == 1
    assert comparison["repair"]["delta"]["value"] == 0.0
    assert comparison["compliance"]["delta"]["value"] == 0.0
    (pole,) = comparison["poles"]
    assert pole["pole"] == "concise_answer_norm" and pole["agent"]["n"] == 2
    assert comparison["inference"]["held"]["k"] == 2
    result = runner.invoke(app, ["scene", "report", str(runs), "--out", str(workdir / "r")])
    assert result.exit_code == 0, result.output
    html = (workdir / "r" / "report.html").read_text()
    section = html.split("<h2>Norm-learning subject vs base model</h2>")[1].split("<h2>")[0]
    assert (
        "repair rate" in section and "ρ(d, b)" in section and "pole concise_answer_norm" in section
    )
    assert f"+ {KEPT}" in section and f"− {REJECTED}" in section
    from normlab.scene.reader import scene_view

    agent_log = next(p for p in runs.iterdir() if "+norm-memory" in p.name)
    (path,) = sorted(agent_log.rglob("*.eval"))
    facts = dict(scene_view(read_eval_log(str(path)), 0).facts)
    assert "norm memory (reply by reply)" in facts and "+ norm-memory" in facts["subject"]
