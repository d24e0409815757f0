"""LoSoNA: local social norm adaptation in group conversations, as an Inspect task.

Bilski & Jacniacki, "LoSoNA: A Benchmark for Local Social Norm Adaptation in Group
Conversations" (arXiv 2606.14600). One sample per scenario × prompt condition;
the subject (the eval's model) writes the next chat message at temperature 0.9;
the judge role checks it against the hidden norm; ``epochs`` = K trials, reduced
by majority (accuracy-at-K), compliance and consistency.

    inspect eval normlab/losona --model openai/gpt-4o --model-role judge=google/gemini-2.5-pro
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai import Epochs, Task, task

from normlab.core.errors import InputError
from normlab.core.logs import AGENT_KEY, BASE_AGENT
from normlab.losona.spec import SPEC
from normlab.models.roles import DEFAULT_MODEL

# The dataset, solver, scorer and the norm-learning subject are imported when a task is built,
# not when Inspect loads the entry point that registers it (``normlab._registry``).

TASK_VERSION = 3
"""What Inspect records as the log's task version: a new one when results stop being comparable
with the old (the README's Changelog says what each changed; ``eval.yaml`` lists it as ``3-A``)."""

DEFAULT_EPOCHS = 3
BASELINE_CONDITION = "naive"
"""The screening baseline's prompt condition (§5.4): no hint that a local norm exists."""
MAX_EPOCHS = 100
"""The most trials per sample accepted: a mistyped K (1,000,000) plans millions of samples
and fills memory before the first call (3.4 GB in 36 s)."""


def resolve_conditions(conditions: str | Sequence[str] | None) -> list[str]:
    """``None``/"all" → the four reported conditions; otherwise validate each name."""
    from normlab.core.selection import comma_list
    from normlab.losona.prompts import CONDITIONS, DEVELOPMENT_CONDITIONS

    names = comma_list(conditions)
    if not names or names == ["all"]:
        return list(CONDITIONS)
    known = CONDITIONS + DEVELOPMENT_CONDITIONS
    for name in names:
        if name not in known:
            raise InputError(
                "--condition",
                f"unknown condition {name!r}; choose from {', '.join(known)}",
                field="condition",
            )
    return names


@task
def losona(
    scenarios: str | None = None,
    conditions: str | list[str] | None = None,
    scenario_ids: str | list[str] | None = None,
    limit_scenarios: int | None = None,
    epochs: int = DEFAULT_EPOCHS,
    temperature: float | str = "paper",
    judge: str | None = None,
    judge_addenda: str = "default",
    max_tokens: dict[str, int] | str | None = None,
    reasoning_effort: dict[str, str] | str | None = None,
    agent: str = BASE_AGENT,
    variant: str | None = None,
) -> Task:
    """LoSoNA task.

    Args:
        scenarios: JSONL file or folder of scenarios (e.g. the official release's ``data/``),
            as a path or any fsspec URL (``hf://datasets/Humalike-ai/LoSoNA/…``, ``s3://…``;
            default: the shipped set); the bytes' SHA-256 is logged and reported.
        conditions: prompt conditions, comma-separated: ``naive``, ``elicitor_only``,
            ``norm_informed``, ``style_adaptation`` (default: these four, the reported ones;
            ``oracle`` is for development only).
        scenario_ids: run only these scenarios (comma-separated ids).
        limit_scenarios: run only the first N scenarios (N at least 1).
        epochs: K, the number of sampled responses per scenario × condition (§6: 3).
        temperature: subject sampling temperature: "paper" (0.9, or no temperature for the
            models §6 ran at their provider's default: OpenAI's GPT-5 and o-series, Claude
            Fable), a number from 0 to 2, or "default" (send none).
        judge: judge model; default the ``judge`` model role, else the embedded model. It is
            called at temperature 0 through Inspect's cache.
        judge_addenda: "default" (Appendix C's judge prompt followed by our edge-case
            instructions) or "none" (the bare prompt).
        max_tokens: output caps by role (default: subject 256, judge 400), e.g.
            ``{subject: 512, judge: 2000}``.
        reasoning_effort: reasoning effort by role (none, minimal, low, medium, high or
            xhigh; default: none sent), e.g. ``{subject: low}``.
        agent: the subject: "base" (the model alone) or "norm-memory" (the norm-learning
            subject around the same model; its own calls use the ``norm_memory`` role); the
            report pairs a norm-memory run with the base run given with it.
        variant: the prompt: none or "paper" (Appendix C as printed), ``file:PATH`` (the
            subject's instruction reworded in PATH, with the paper's placeholders),
            ``rename:SEED`` (subject and cast renamed, seeded) or ``reorder:SEED`` (the
            demonstration exchanges in a seeded other order); each checked by the linter.
    """
    from normlab.agents import resolve_agent
    from normlab.core.progress import normlab_task_built
    from normlab.core.selection import comma_list
    from normlab.losona.dataset import (
        SCENARIOS_PATH,
        build_dataset,
        read_scenarios,
        select_scenarios,
    )
    from normlab.losona.prompts import JUDGE_ADDENDA
    from normlab.losona.scorer import norm_judge, trials
    from normlab.losona.solver import SubjectTemperature, subject_reply
    from normlab.losona.variants import variant_of
    from normlab.models import RoleSettings

    normlab_task_built()
    resolve_agent(agent)
    chosen = variant_of(variant)
    # A whole number first: ``-T epochs=three`` (or a study's ``epochs: three``) arrives as
    # text, and comparing it with 1 would end in a TypeError.
    if isinstance(epochs, bool) or not isinstance(epochs, int) or not 1 <= epochs <= MAX_EPOCHS:
        raise InputError(
            "--epochs",
            f"K must lie between 1 and {MAX_EPOCHS} (§6: 3), got {epochs!r}",
            field="epochs",
        )
    if judge_addenda not in JUDGE_ADDENDA:
        raise InputError(
            "--judge-addenda", f"choose one of {', '.join(JUDGE_ADDENDA)}", field="judge_addenda"
        )
    subject_temperature = SubjectTemperature.parse(temperature)
    settings = RoleSettings.of(max_tokens, reasoning_effort)
    data = read_scenarios(scenarios or SCENARIOS_PATH)
    selected = chosen.apply(select_scenarios(data.items, comma_list(scenario_ids), limit_scenarios))
    # The paper's prompt passes nothing new to the solver: its plan, and so its logs' identity
    # in an eval set, stay as they were.
    worded = {} if chosen.instruction is None else {"instruction": chosen.instruction}
    return Task(
        dataset=build_dataset(
            selected,
            resolve_conditions(conditions),
            instruction=chosen.instruction,
            variant=chosen.record,
        ),
        solver=subject_reply(subject_temperature, settings, agent, **worded),
        scorer=norm_judge(judge_model=judge, addenda=judge_addenda, **settings.task_args()),
        epochs=Epochs(epochs, trials()),
        model_roles={"judge": judge or DEFAULT_MODEL},
        metadata=SPEC.task_metadata(
            {"epochs": epochs, "judge_addenda": judge_addenda, AGENT_KEY: agent},
            data.source,
            chosen.record,
        ),
        version=TASK_VERSION,
    )


@task
def losona_screen(scenarios: str, samples: int = 1) -> Task:
    """No-demonstration screening of candidate scenarios (one epoch per baseline reply).

    Args:
        scenarios: candidate scenarios, JSONL file or folder.
        samples: baseline replies per screening model.
    """
    from normlab.core.progress import normlab_task_built
    from normlab.losona.dataset import build_dataset, load_scenarios, without_demonstrations
    from normlab.losona.scorer import norm_judge
    from normlab.losona.solver import subject_reply

    normlab_task_built()
    controls = [without_demonstrations(s) for s in load_scenarios(scenarios)]
    return Task(
        dataset=build_dataset(controls, [BASELINE_CONDITION], name="losona_screen"),
        solver=subject_reply(),
        scorer=norm_judge(),
        epochs=samples,
        model_roles=dict(SPEC.roles),
        metadata={"benchmark": "losona", "purpose": "no-demonstration screening"},
        version=1,
    )
