"""SCENE: scripted-persona episodes with sanctions, as an Inspect task.

"SCENE" (paper in ``shared/papers/scene.md``). One sample per episode
(scenario × repetition). The eval's model is the subject; the ``persona``,
``orchestrator``, ``judge`` and ``auditor`` roles default to the embedded model.
The solver plays the episode (:mod:`normlab.scene.runtime`); the scorer labels
it (B.6 per-turn labeller or §5.1 four-list classifier) and audits fidelity (B.7).
``inspect view`` shows each episode as the subject's chat.

    inspect eval normlab/scene --model openai/gpt-4o --model-role persona=google/gemini-2.5-flash
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from normlab.core.errors import InputError
from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios, select_for_sweep
from normlab.scene.prompts import scaffold_turns, subject_messages
from normlab.scene.runtime import DEFAULT_MAX_TURNS, play_episode
from normlab.scene.schemas import SceneScenario
from normlab.scene.scorer import LABELLERS, episode_judge

TASK_VERSION = 2
"""1: the first release; 2: the shared transcript, the subject's chat in the log, cached judges."""


def episode_sample(scenario: SceneScenario, rep: int) -> Sample:
    """One episode; its input is the subject's first view (the scaffold, never hidden fields)."""
    return Sample(
        id=f"{scenario.scenario_id}::rep{rep}",
        input=[*subject_messages(scenario, scaffold_turns(scenario))],
        metadata={"scenario": scenario.model_dump(mode="json"), "rep": rep},
    )


@task
def scene(
    scenarios: str | None = None,
    tuples: int | None = None,
    reps: int = 1,
    max_turns: int = DEFAULT_MAX_TURNS,
    labeller: str = "turns",
) -> Task:
    """SCENE task.

    Args:
        scenarios: scenario_v1 JSONL file or folder (default: the shipped bank).
        tuples: run N scenarios chosen coverage-greedily over their tuples (default: all).
        reps: repetitions (episodes) per scenario.
        max_turns: rounds per episode (paper: 8).
        labeller: "turns" (B.6 per-turn judge) or "lists" (§5.1 one call per category).
    """
    if labeller not in LABELLERS:
        raise InputError("--labeller", f"choose one of {', '.join(LABELLERS)}", field="labeller")
    if reps < 1 or max_turns < 1:
        raise InputError("--reps", "reps and max_turns must be at least 1", field="reps")
    chosen = select_for_sweep(
        load_scenarios(Path(scenarios) if scenarios else SCENARIOS_PATH), tuples
    )
    return Task(
        dataset=MemoryDataset(
            samples=[
                episode_sample(scenario, rep) for scenario in chosen for rep in range(1, reps + 1)
            ],
            name="scene",
        ),
        solver=play_episode(max_turns),
        scorer=episode_judge(labeller),
        metadata={"benchmark": "scene", "labeller": labeller, "max_turns": max_turns},
        version=TASK_VERSION,
    )
