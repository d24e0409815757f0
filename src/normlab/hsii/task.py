"""HSII as an Inspect task: an assistant in a multi-user scene picks whom to address, and says it.

Wu, Xiong & Deng, "How Social Is It? A Benchmark for LLMs' Capabilities in
Multi-user Multi-turn Social Agent Tasks" (arXiv 2505.04628). One sample per case:
the subject (the eval's model) gets Testing Prompt-1 and the case; its reply is
parsed (r1) and its target matched (r2); for a correct target the judge compares
its statement with the golden in both orders (r3), and after ε turns with the
target (played by the ``persona`` role) its decision-round statement with the
``reference`` role's (r4). Roles default to the embedded model.

    inspect eval normlab/hsii --model openai/gpt-4o --model-role judge=openai/gpt-4.1 \\
        --model-role persona=openai/gpt-4o-mini --model-role reference=openai/gpt-3.5-turbo
"""

from __future__ import annotations

from inspect_ai import Task, task

from normlab.core.errors import InputError
from normlab.hsii.defaults import EPSILON, MAX_EPSILON, PAPER_CAP
from normlab.hsii.spec import SPEC

# The dataset, solvers and scorers are imported when a task is built, not when Inspect loads
# the entry point that registers it (``normlab._registry``).

TASK_VERSION = 3
"""What Inspect records as the log's task version (``hsii`` and ``hsii_cot`` alike): a new one
when results stop being comparable with the old (the README's Changelog says what each
changed; ``eval.yaml`` lists it as ``3-A``)."""


@task
def hsii(
    cases: str | None = None,
    case_ids: str | list[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
    epsilon: int = EPSILON,
    tie_weight: float = 0.0,
    max_tokens: dict[str, int] | str | None = None,
    reasoning_effort: dict[str, str] | str | None = None,
    variant: str | None = None,
) -> Task:
    """HSII task.

    Args:
        cases: case JSONL file or folder (ours, or the paper's Tables 3–5 shape), as a path
            or any fsspec URL (default: the shipped bank); the bytes' SHA-256 is logged and
            reported.
        case_ids: run only these cases (comma-separated ids).
        limit: run only N cases, drawn across dialogues (the dialogues in a seeded order,
            one case of each in turn), never the first N of one dialogue.
        seed: seed of the ``limit`` draw (the same seed, the same cases: a run resumes).
        epsilon: turns of the long run (Table 1: 7); the decision round is the last.
        tie_weight: what a tie is worth in r3 and r4, from 0 to 1 (ToolEval counts a tie as
            no win: 0).
        max_tokens: output caps by role (default: the statements of subject and reference
            300, persona 160, judge 300).
        reasoning_effort: reasoning effort by role (default: none sent).
        variant: the subject's prompt: none or "paper" (Testing Prompt-1 as printed),
            ``file:PATH`` (reworded in PATH), ``rename:SEED`` (the characters renamed,
            seeded, in the history, the golden target and the aliases alike) or
            ``format:NAME`` (the reply asked for as ``json`` or ``key-lines``, both of which
            r1 reads); the reference answers the paper's prompt.
    """
    from normlab.core.progress import normlab_task_built
    from normlab.core.selection import comma_list
    from normlab.hsii.dataset import CASES_PATH, build_dataset, read_cases, select_cases
    from normlab.hsii.scorer import hsii_stages
    from normlab.hsii.solver import long_run, next_statement
    from normlab.hsii.variants import variant_of
    from normlab.models import RoleSettings

    normlab_task_built()
    chosen = variant_of(variant)
    if not 2 <= epsilon <= MAX_EPSILON:
        raise InputError(
            "--epsilon",
            f"the long run needs 2 to {MAX_EPSILON} turns (Table 1: 7), got {epsilon}",
            field="epsilon",
        )
    if not 0.0 <= tie_weight <= 1.0:
        raise InputError("--tie-weight", "must lie between 0 and 1", field="tie_weight")
    settings = RoleSettings.of(max_tokens, reasoning_effort)
    data = read_cases(cases or CASES_PATH)
    selected = chosen.apply(select_cases(data.items, comma_list(case_ids), limit, seed))
    # The paper's prompt passes nothing new to the solvers: their plan, and so its logs'
    # identity in an eval set, stay as they were.
    worded = {} if chosen.instruction is None else {"instruction": chosen.instruction}
    return Task(
        dataset=build_dataset(selected, instruction=chosen.instruction, variant=chosen.record),
        solver=[next_statement(settings, **worded), long_run(epsilon, settings, **worded)],
        scorer=hsii_stages(tie_weight, **settings.task_args()),
        model_roles=dict(SPEC.roles),
        metadata=SPEC.task_metadata(
            {"epsilon": epsilon, "tie_weight": tie_weight}, data.source, chosen.record
        ),
        version=TASK_VERSION,
    )


@task
def hsii_cot(
    cases: str | None = None,
    case_ids: str | list[str] | None = None,
    limit: int | None = None,
    cots: str | list[str] | None = None,
    cap: int = PAPER_CAP,
    max_tokens: dict[str, int] | str | None = None,
    reasoning_effort: dict[str, str] | str | None = None,
) -> Task:
    """COT complexity: one sample per (case, COT), reflection rounds up to ``cap``.

    Args:
        cases: case JSONL file or folder, as a path or any fsspec URL (default: the
            shipped bank).
        case_ids: run only these cases (comma-separated ids).
        limit: run only N cases, drawn across dialogues (seed 0).
        cots: COT ids from ``data/cots.json`` (default: all; ``fig4`` is the paper's).
        cap: N∞, rounds before a case counts as unsolved (paper: 128).
        max_tokens: output caps by role.
        reasoning_effort: reasoning effort by role.
    """
    from inspect_ai.dataset import MemoryDataset, Sample

    from normlab.core.progress import normlab_task_built
    from normlab.core.selection import comma_list
    from normlab.hsii.cot import cot_reflection, cot_rounds
    from normlab.hsii.dataset import CASES_PATH, read_cases, select_cases
    from normlab.hsii.meta import SampleMeta
    from normlab.hsii.prompts import load_cots, testing_prompt
    from normlab.models import RoleSettings

    normlab_task_built()
    if cap < 1:
        raise InputError("--cap", "must be at least 1", field="cap")
    available = {cot.id: cot for cot in load_cots()}
    wanted = [c.strip() for c in cots.split(",")] if isinstance(cots, str) else cots
    unknown = [c for c in wanted or [] if c not in available]
    if unknown:
        known = ", ".join(available)
        raise InputError("--cot", f"unknown COT {unknown[0]!r}; known: {known}", field="cot")
    chosen = [available[c] for c in wanted] if wanted else list(available.values())
    data = read_cases(cases or CASES_PATH)
    selected = select_cases(data.items, comma_list(case_ids), limit)
    settings = RoleSettings.of(max_tokens, reasoning_effort)
    samples = [
        Sample(
            id=f"{case.case_id}::{cot.id}",
            input=testing_prompt(case),
            target=case.golden.role_to,
            metadata=SampleMeta(case_id=case.case_id, cot_id=cot.id, case=case, cot=cot).dump(),
        )
        for case in selected
        for cot in chosen
    ]
    return Task(
        dataset=MemoryDataset(samples=samples, name="hsii_cot"),
        solver=cot_reflection(cap, settings),
        scorer=cot_rounds(cap),
        metadata=SPEC.task_metadata({"purpose": "COT complexity", "cap": cap}, data.source),
        version=TASK_VERSION,
    )
