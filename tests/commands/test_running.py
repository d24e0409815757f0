"""The one ``run`` command: each benchmark's options are its task's parameters, read from
source as the imported task declares them, and each task names every role's model."""

from __future__ import annotations

import importlib
import inspect

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.commands.running import task_value
from normlab.commands.signature import parse_args_section, task_parameters
from normlab.models import DEFAULT_MODEL

TASKS = [
    "normlab.losona.task:losona",
    "normlab.scene.task:scene",
    "normlab.hsii.task:hsii",
    "normlab.hsii.task:hsii_cot",
    "normlab.losona.task:losona_screen",
]


@pytest.mark.parametrize("target", TASKS)
def test_reading_the_source_gives_the_imported_signature(target: str) -> None:
    module, _, name = target.partition(":")
    imported = inspect.signature(getattr(importlib.import_module(module), name))
    read = task_parameters(target)
    assert [p.name for p in read] == list(imported.parameters)
    for parameter in read:
        declared = imported.parameters[parameter.name]
        expected = ... if declared.default is inspect.Parameter.empty else declared.default
        assert parameter.default == expected, parameter.name
        assert parameter.annotation == declared.annotation, parameter.name
        assert parameter.help, f"{target}: {parameter.name} has no Args: line"


def test_the_args_section_joins_continuation_lines() -> None:
    doc = "Task.\n\nArgs:\n    a: first\n        and more.\n    b (int): second.\n\nReturns:\n    x"
    assert parse_args_section(doc) == {"a": "first and more.", "b": "second."}


def test_option_values_reach_the_task_as_its_arguments() -> None:
    from pathlib import Path

    assert task_value(Path("data/x.jsonl")) == "data/x.jsonl"
    assert task_value(["naive,norm_informed", "demos"]) == ["naive", "norm_informed", "demos"]
    assert task_value(None) is None and task_value(3) == 3


@pytest.mark.parametrize(
    ("system", "options"),
    [
        ("losona", ["--data", "--condition", "--scenario", "--limit", "--epochs", "--agent"]),
        ("scene", ["--data", "--tuples", "--reps", "--sampler", "--labeller", "--agent"]),
        ("hsii", ["--cases", "--case", "--limit", "--seed", "--epsilon", "--tie-weight"]),
    ],
)
def test_run_offers_the_shared_options_and_the_tasks_own(system: str, options: list[str]) -> None:
    result = CliRunner().invoke(app, [system, "run", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    shared = ["--model", "--judge", "--role", "--max-tokens", "--reasoning-effort"]
    for option in [*shared, "--max-connections", "--shard", "--log-dir", "--json", *options]:
        assert option in result.output, option
    assert "--scenario-ids" not in result.output


SMALL = {
    "losona": {"limit_scenarios": 1, "epochs": 1},
    "scene": {"tuples": 1, "reps": 1},
    "hsii": {"limit": 1},
}


@pytest.mark.parametrize("system", sorted(SMALL))
def test_every_task_declares_every_roles_model(system: str) -> None:
    """A log's header names each role's model, even one nobody named (``inspect eval``)."""
    face = importlib.import_module(f"normlab.{system}")
    task = getattr(face, system)(**SMALL[system])
    declared = {role: str(model) for role, model in (task.model_roles or {}).items()}
    assert declared == dict.fromkeys(face.BENCHMARK.roles, DEFAULT_MODEL)


def test_a_bad_role_in_run_fails_on_one_line() -> None:
    result = CliRunner().invoke(app, ["hsii", "run", "--role", "juge=openai/x"])
    assert result.exit_code == 2
    assert "unknown role 'juge'" in result.output
