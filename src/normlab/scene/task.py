"""SCENE: scripted-persona episodes with sanctions, as an Inspect task.

"SCENE" (paper in ``shared/papers/scene.md``). One sample per episode
(scenario × repetition). The eval's model is the subject; the ``persona``,
``orchestrator``, ``judge`` and ``auditor`` roles default to the embedded model.
The solver plays the episode (:mod:`normlab.scene.runtime`); the scorer labels
it (B.6 per-turn labeller or §5.1 four-list classifier) and audits fidelity (B.7).

    inspect eval normlab/scene --model openai/gpt-4o --model-role persona=google/gemini-2.5-flash
"""

from __future__ import annotations

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

from normlab.core.errors import InputError
from normlab.models import DEFAULT_MODEL
from normlab.scene.analysis import episode_outcome
from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios, select_for_sweep
from normlab.scene.episode import Episode, render_transcript
from normlab.scene.judging import LABELLERS, Labeller, audit_fidelity, label_episode
from normlab.scene.runtime import DEFAULT_MAX_TURNS, EpisodeModels, run_episode
from normlab.scene.schemas import SceneScenario
from normlab.scene.taxonomy import load_dimensions


@solver
def play_episode(max_turns: int = DEFAULT_MAX_TURNS) -> Solver:
    """Run the episode with the subject (eval model), personas and orchestrator."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = SceneScenario.model_validate(state.metadata["scenario"])
        models = EpisodeModels(
            subject=get_model(),
            persona=get_model(role="persona", default=DEFAULT_MODEL),
            orchestrator=get_model(role="orchestrator", default=DEFAULT_MODEL),
        )
        episode = await run_episode(scenario, load_dimensions(), models, max_turns)
        state.metadata["episode"] = episode.model_dump(mode="json")
        state.output = ModelOutput.from_content(
            model=str(models.subject), content=render_transcript(episode.entries)
        )
        return state

    return solve


@scorer(metrics={"breached": [mean()], "sanctions": [mean()], "repaired": [mean()]})
def episode_judge(labeller: Labeller = "turns") -> Scorer:
    """Label the episode's events and audit its fidelity; values are per-episode counts."""

    async def score(state: TaskState, target: Target) -> Score:
        scenario = SceneScenario.model_validate(state.metadata["scenario"])
        episode = Episode.model_validate(state.metadata["episode"])
        dimensions = load_dimensions()
        judge = get_model(role="judge", default=DEFAULT_MODEL)
        auditor = get_model(role="auditor", default=DEFAULT_MODEL)
        labels = await label_episode(judge, scenario, episode, dimensions, labeller)
        fidelity = await audit_fidelity(auditor, scenario, episode, dimensions)
        outcome = episode_outcome(episode, labels, fidelity, str(get_model()))
        return Score(
            value={
                "breached": float(outcome.breaches > 0),
                "sanctions": float(outcome.sanctions),
                "repaired": float(outcome.repaired),
            },
            explanation=fidelity.justification if fidelity else "fidelity audit unparseable",
            metadata={
                "labels": labels.model_dump(mode="json"),
                "fidelity": fidelity.model_dump(mode="json") if fidelity else None,
                "outcome": outcome.model_dump(mode="json"),
                "judge_model": str(judge),
                "auditor_model": str(auditor),
            },
        )

    return score


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
    samples = [
        Sample(
            id=f"{scenario.scenario_id}::rep{rep}",
            input=f"SCENE episode {scenario.scenario_id} (repetition {rep})",
            metadata={"scenario": scenario.model_dump(mode="json"), "rep": rep},
        )
        for scenario in chosen
        for rep in range(1, reps + 1)
    ]
    return Task(
        dataset=MemoryDataset(samples=samples, name="scene"),
        solver=play_episode(max_turns),
        scorer=episode_judge(labeller),
        metadata={"benchmark": "scene", "labeller": labeller, "max_turns": max_turns},
    )
