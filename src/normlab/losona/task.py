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
from pathlib import Path

from inspect_ai import Epochs, Task, task
from inspect_ai.model import GenerateConfig

from normlab.core.errors import InputError
from normlab.losona.dataset import SCENARIOS_PATH, build_dataset, load_scenarios, select_scenarios
from normlab.losona.prompts import CONDITIONS, DEVELOPMENT_CONDITIONS
from normlab.losona.scorer import compliance, consistency, majority, norm_judge
from normlab.losona.solver import subject_reply

TASK_VERSION = 2
"""1: the first release; 2: truncation retry for the subject, cached judge calls."""

SUBJECT_TEMPERATURE = 0.9
SUBJECT_MAX_TOKENS = 256
DEFAULT_EPOCHS = 3


def _as_list(value: str | Sequence[str] | None) -> list[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [item.strip() for item in value.split(",") if item.strip()]
    return list(value)


def resolve_conditions(conditions: str | Sequence[str] | None) -> list[str]:
    """``None``/"all" → the four reported conditions; otherwise validate each name."""
    names = _as_list(conditions)
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
    temperature: float = SUBJECT_TEMPERATURE,
    max_tokens: int = SUBJECT_MAX_TOKENS,
    judge: str | None = None,
) -> Task:
    """LoSoNA task.

    Args:
        scenarios: JSONL file or folder of scenarios (default: the shipped set).
        conditions: prompt conditions, comma-separated (default: the four reported ones).
        scenario_ids: run only these scenarios (comma-separated ids).
        limit_scenarios: run only the first N scenarios.
        epochs: K, the number of sampled responses per scenario × condition.
        temperature: subject sampling temperature (paper: 0.9).
        max_tokens: cap on the subject's message length in tokens.
        judge: judge model; default the ``judge`` model role, else the embedded model.
    """
    if epochs < 1:
        raise InputError("--epochs", "must be at least 1", field="epochs")
    selected = select_scenarios(
        load_scenarios(Path(scenarios) if scenarios else SCENARIOS_PATH),
        _as_list(scenario_ids),
        limit_scenarios,
    )
    return Task(
        dataset=build_dataset(selected, resolve_conditions(conditions)),
        solver=subject_reply(),
        scorer=norm_judge(judge_model=judge),
        epochs=Epochs(epochs, [majority(), compliance(), consistency()]),
        config=GenerateConfig(temperature=temperature, max_tokens=max_tokens),
        metadata={"benchmark": "losona", "epochs": epochs},
        version=TASK_VERSION,
    )
