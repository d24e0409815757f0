"""SCENE: scripted-persona episodes with sanctions, as an Inspect task.

"SCENE: Recognizing Social Norms and Sanctioning in Group Chats". One sample per episode
(scenario × repetition). The eval's model is the subject; the ``persona``,
``orchestrator``, ``judge`` and ``auditor`` roles default to the embedded model.
The solver plays the episode (``normlab.scene.solver``); the scorer labels
it (B.6 per-turn labeller or §5.1 four-list classifier) and audits fidelity (B.7).
``inspect view`` shows each episode as the subject's chat.

    inspect eval normlab/scene --model openai/gpt-4o --model-role persona=google/gemini-2.5-flash
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from inspect_ai import Task, task

from normlab.core.errors import InputError
from normlab.core.logs import AGENT_KEY, BASE_AGENT
from normlab.core.variants import VariantRecord
from normlab.scene.defaults import DEFAULT_MAX_TURNS, DEFAULT_REPS, MAX_REPS, MAX_TURNS
from normlab.scene.spec import SPEC

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

    from normlab.scene.schemas import SceneScenario

# The dataset, solver, scorer and the norm-learning subject are imported when a task is built,
# not when Inspect loads the entry point that registers it (``normlab._registry``).

TASK_VERSION = 3
"""What Inspect records as the log's task version: a new one when results stop being comparable
with the old (the README's Changelog says what each changed; ``eval.yaml`` lists it as ``3-A``)."""


def episode_calls(scenario: SceneScenario, max_turns: int) -> int:
    """The most calls an episode of ``scenario`` makes one after another
    (``normlab.scene.solver``): the precedent sub-script (every SP once, when p = 1), the
    subject's first reply, then in each of ``max_turns`` rounds the orchestrator, and every SP
    with the subject after each. Its larger cast or its precedent makes one episode longer
    than another; the episodes that can run longest start first (``longest_first``)."""
    cast = len(scenario.scaffold.channel.cast)
    precedent = cast if scenario.tuple.precedent == 1 and scenario.demonstrator else 0
    return precedent + 1 + max_turns * (1 + 2 * cast)


def episode_sample(
    scenario: SceneScenario,
    rep: int,
    instruction: str | None = None,
    variant: dict[str, str] | None = None,
) -> Sample:
    """One episode; its input is the subject's first view (the scaffold, never hidden fields),
    in a prompt variant's wording (``instruction``) where it gives one, its record
    (``variant``) in the metadata."""
    from inspect_ai.dataset import Sample

    from normlab.scene.meta import SampleMeta
    from normlab.scene.prompts import scaffold_turns, subject_messages

    return Sample(
        id=f"{scenario.scenario_id}::rep{rep}",
        input=[*subject_messages(scenario, scaffold_turns(scenario), instruction=instruction)],
        metadata=SampleMeta(
            scenario=scenario,
            rep=rep,
            variant=None if variant is None else VariantRecord.model_validate(variant),
        ).dump(),
    )


@task
def scene(
    scenarios: str | None = None,
    tuples: int | None = None,
    reps: int = DEFAULT_REPS,
    max_turns: int = DEFAULT_MAX_TURNS,
    labeller: str = "turns",
    sampler: str = "coverage",
    seed: int = 0,
    max_tokens: dict[str, int] | str | None = None,
    reasoning_effort: dict[str, str] | str | None = None,
    scenario_ids: list[str] | None = None,
    agent: str = BASE_AGENT,
    variant: str | None = None,
) -> Task:
    """SCENE task.

    Args:
        scenarios: JSONL file or folder of scenario_v1 records, as a path or any fsspec URL
            (``s3://…``, ``hf://datasets/…``; default: the shipped bank); the bytes' SHA-256
            is logged and reported.
        tuples: run N scenarios drawn over their tuples by ``sampler`` (default: all).
        reps: repetitions (episodes) per scenario (paper §6: 5).
        max_turns: rounds per episode (paper: 8).
        labeller: "turns" (B.6 per-turn labeller, one call per episode) or "lists" (§5.1
            classifier, one call per category: D, B, S, R).
        sampler: "coverage" (A.7: every axis value as evenly as possible) or "uniform"
            (§6: drawn uniformly at random, seeded; §6 drew 200 tuples this way).
        seed: the uniform sampler's seed.
        max_tokens: output caps by role (default: actions 160, orchestrator 120, labeller
            200 plus 40 per turn, auditor 300), e.g. ``{persona: 300, judge: 3000}``.
        reasoning_effort: reasoning effort by role (default: none sent), e.g.
            ``{subject: low}``.
        scenario_ids: run only these scenarios (a person playing one episode, a rerun).
        agent: the subject: "base" (the model alone) or "norm-memory" (the norm-learning
            subject around the same model; its own calls use the ``norm_memory`` role); the
            report sets a norm-memory run beside the base run given with it.
        variant: the prompt: none or "paper" (Appendix B as printed), ``file:PATH`` (the
            subject's instruction, B.4, reworded in PATH with the paper's placeholders) or
            ``rename:SEED`` (the subject and the personas renamed, seeded); each checked by
            the linter.
    """
    from inspect_ai.dataset import MemoryDataset

    from normlab.agents import resolve_agent
    from normlab.core.progress import normlab_task_built
    from normlab.core.schedule import longest_first
    from normlab.models import RoleSettings
    from normlab.scene.dataset import SCENARIOS_PATH, read_scenarios, select_for_sweep
    from normlab.scene.scorer import LABELLERS, episode_judge
    from normlab.scene.solver import play_episode
    from normlab.scene.variants import variant_of

    normlab_task_built()
    resolve_agent(agent)
    chosen = variant_of(variant)
    if labeller not in LABELLERS:
        raise InputError("--labeller", f"choose one of {', '.join(LABELLERS)}", field="labeller")
    for option, value, most in (("--reps", reps, MAX_REPS), ("--max-turns", max_turns, MAX_TURNS)):
        if not 1 <= value <= most:
            raise InputError(
                option,
                f"must lie between 1 and {most}, got {value}",
                field=option[2:].replace("-", "_"),
            )
    settings = RoleSettings.of(max_tokens, reasoning_effort)
    data = read_scenarios(scenarios or SCENARIOS_PATH)
    loaded = data.items
    if scenario_ids:
        known = {scenario.scenario_id for scenario in loaded}
        missing = [scenario_id for scenario_id in scenario_ids if scenario_id not in known]
        if missing:
            raise InputError("--scenario", f"no scenario {missing[0]!r}", field="scenario_id")
        loaded = [scenario for scenario in loaded if scenario.scenario_id in scenario_ids]
    drawn = chosen.apply(select_for_sweep(loaded, tuples, sampler, seed))
    # The paper's prompt passes nothing new to the solver: its plan, and so its logs' identity
    # in an eval set, stay as they were.
    worded = {} if chosen.instruction is None else {"instruction": chosen.instruction}
    return Task(
        dataset=MemoryDataset(
            samples=[
                episode_sample(scenario, rep, chosen.instruction, chosen.record)
                for scenario in longest_first(drawn, lambda s: episode_calls(s, max_turns))
                for rep in range(1, reps + 1)
            ],
            name="scene",
        ),
        solver=play_episode(max_turns, settings, agent, **worded),
        scorer=episode_judge(labeller, **settings.task_args()),
        model_roles=dict(SPEC.roles),
        metadata=SPEC.task_metadata(
            {
                "labeller": labeller,
                "max_turns": max_turns,
                "sampler": sampler,
                "reps": reps,
                AGENT_KEY: agent,
            },
            data.source,
            chosen.record,
        ),
        version=TASK_VERSION,
    )
