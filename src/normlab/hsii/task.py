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

from collections.abc import Sequence
from pathlib import Path

from inspect_ai import Task, task

from normlab.core.errors import InputError
from normlab.hsii.dataset import CASES_PATH, build_dataset, load_cases, select_cases
from normlab.hsii.defaults import EPSILON, MAX_EPSILON
from normlab.hsii.scorer import hsii_stages
from normlab.hsii.solver import long_run, next_statement
from normlab.models import RoleSettings

TASK_VERSION = 1


def _ids(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return list(value)


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
) -> Task:
    """HSII task.

    Args:
        cases: case JSONL file or folder (default: the shipped bank).
        case_ids: run only these cases (comma-separated ids).
        limit: run only N cases, drawn across dialogues (one of each in turn).
        seed: seed of the ``limit`` draw (the same seed, the same cases).
        epsilon: turns of the long run (Table 1: 7); the decision round is the last.
        tie_weight: what a tie is worth in r3 and r4 (ToolEval: 0).
        max_tokens: output caps by role (subject, persona, reference, judge).
        reasoning_effort: reasoning effort by role.
    """
    if not 2 <= epsilon <= MAX_EPSILON:
        raise InputError(
            "--epsilon",
            f"the long run needs 2 to {MAX_EPSILON} turns (Table 1: 7), got {epsilon}",
            field="epsilon",
        )
    if not 0.0 <= tie_weight <= 1.0:
        raise InputError("--tie-weight", "must lie between 0 and 1", field="tie_weight")
    settings = RoleSettings.of(max_tokens, reasoning_effort)
    selected = select_cases(
        load_cases(Path(cases) if cases else CASES_PATH), _ids(case_ids), limit, seed
    )
    return Task(
        dataset=build_dataset(selected),
        solver=[next_statement(settings), long_run(epsilon, settings)],
        scorer=hsii_stages(tie_weight, settings.max_tokens, dict(settings.reasoning_effort)),
        metadata={"benchmark": "hsii", "epsilon": epsilon, "tie_weight": tie_weight},
        version=TASK_VERSION,
    )
