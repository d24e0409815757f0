"""``run``, one command for every benchmark: the shared options, then the task's own.

A benchmark's ``run`` takes the options every run takes (models and roles, caps, the
agent, concurrency, shard, where logs and the report go, ``--json``), declared once in
``SHARED_OPTIONS``, and one option per parameter of its
``@task`` function, named, typed, defaulted and described by that function's signature and
docstring (``normlab.commands.signature``): what ``inspect eval normlab/SYSTEM -T …``
accepts, ``normlab SYSTEM run`` accepts too, under the same help. A system says only where
the command line spells a parameter otherwise ([`Flag`][normlab.commands.Flag]: the names its users
already type) and which parameters it does not offer.

Light at import, as every command module is: the task and the benchmark (Inspect, the
report's matplotlib) are imported when the command runs.
"""

from __future__ import annotations

import importlib
import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer

from normlab.commands.options import (
    HEAD_OPTIONS,
    SHARED_OPTIONS,
    option_parameter,
    role_settings,
    shared_parameter,
)
from normlab.commands.signature import TaskParameter, task_parameters
from normlab.models import bind_roles
from normlab.runs.console import reports_errors

if TYPE_CHECKING:
    from normlab.runs.benchmark import Benchmark

SCALARS: dict[str, type] = {"str": str, "int": int, "float": float, "bool": bool}
TASK_ARGUMENTS = ("max_tokens", "reasoning_effort", "agent")
"""Shared options that are task arguments too: offered where the task takes them."""
RUN_OPTIONS = ("log_dir", "report_dir", "as_json", "max_connections", "shard")
"""Shared options that say how and where to run: [`RunOptions`][normlab.runs.RunOptions]'
fields."""


@dataclass(frozen=True)
class Flag:
    """How the command line spells a task parameter when the parameter's name will not do."""

    names: tuple[str, ...]
    """The option's names (``("--condition", "-c")``), as the command line had them first."""
    path: bool = False
    """A file or folder, local or at any fsspec URL: typed ``PATH|URL`` on the command line and
    given to the task as typed (a ``Path`` would fold ``memory://x`` into
    ``memory:/x``)."""


@dataclass(frozen=True)
class RunCommand:
    """A benchmark's ``run``: its task, its read side, and how its command line differs."""

    task: str
    """``module:function`` of the ``@task`` (read as source for ``--help``)."""
    benchmark: str
    """``module:name`` of its [`Benchmark`][normlab.runs.Benchmark] (imported when a
    command runs)."""
    help: str
    flags: Mapping[str, Flag] = field(default_factory=dict)
    hidden: tuple[str, ...] = ()
    """Task parameters the command does not offer (LoSoNA's ``judge``: ``--judge`` binds the
    judge role)."""

    def factory(self) -> Callable[..., Any]:
        """The ``@task`` function, imported."""
        return cast(Callable[..., Any], imported(self.task))

    def load_benchmark(self) -> Benchmark[Any, Any]:
        """The benchmark, imported (``add_read_commands`` asks for it this way too)."""
        return cast("Benchmark[Any, Any]", imported(self.benchmark))


def imported(target: str) -> object:
    """The object ``module:name`` names, its module imported."""
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def cli_type(parameter: TaskParameter, flag: Flag | None) -> Any:
    """The command line's type of a task parameter: a list where the task takes one (a
    repeatable option), text where it takes text (``float | str``: the task parses it; a
    path or URL too), else the one scalar it takes; ``None`` where it may."""
    members = parameter.members
    optional = "None" in members
    if "list[str]" in members:
        return list[str] | None
    if "str" in members:
        chosen: type = str
    else:
        scalars = [SCALARS[m] for m in members if m in SCALARS]
        if len(scalars) != 1:
            raise TypeError(f"{parameter.name}: no command-line type for {parameter.annotation}")
        chosen = scalars[0]
    return chosen | None if optional else chosen


def option_name(name: str, flags: Mapping[str, Flag]) -> str:
    flag = flags.get(name)
    return flag.names[0] if flag else "--" + name.replace("_", "-")


def option_help(parameter: TaskParameter, spec: RunCommand, listed: bool) -> str:
    """The docstring's text as option help: capitalised, a ````name```` of another parameter
    said as its option (``--sampler``), and "Repeatable." after a list."""

    names = {p.name for p in task_parameters(spec.task)}

    def said(found: re.Match[str]) -> str:
        return option_name(found[1], spec.flags) if found[1] in names else found[1]

    text = re.sub(r"``([^`]+)``", said, parameter.help)
    text = text[:1].upper() + text[1:]
    return f"{text} Repeatable." if listed else text


def task_option(parameter: TaskParameter, spec: RunCommand) -> inspect.Parameter:
    """A task parameter as a typer option; a parameter that is a shared option (``agent``,
    ``max_tokens``) is declared as everywhere else."""
    if parameter.name in SHARED_OPTIONS:
        return shared_parameter(parameter.name)
    flag = spec.flags.get(parameter.name)
    kind = cli_type(parameter, flag)
    listed = kind == list[str] | None
    info = typer.Option(
        *(flag.names if flag else ()),
        help=option_help(parameter, spec, listed),
        metavar="PATH|URL" if flag is not None and flag.path else None,
    )
    return option_parameter(parameter.name, cast(Any, Annotated)[kind, info], parameter.default)


def run_signature(spec: RunCommand) -> inspect.Signature:
    """The shared options before and after the task's own, in ``--help`` order."""
    parameters = [p for p in task_parameters(spec.task) if p.name not in spec.hidden]
    taken = {p.name for p in parameters}
    clash = sorted(taken & set(SHARED_OPTIONS) - set(TASK_ARGUMENTS))
    if clash:
        raise TypeError(f"{spec.task}: {clash[0]} is a shared option; hide it or rename it")
    offered = [n for n in SHARED_OPTIONS if n not in TASK_ARGUMENTS or n in taken]
    return inspect.Signature(
        [
            *(shared_parameter(name) for name in offered if name in HEAD_OPTIONS),
            *(task_option(p, spec) for p in parameters if p.name not in SHARED_OPTIONS),
            *(shared_parameter(name) for name in offered if name not in HEAD_OPTIONS),
        ]
    )


def task_value(value: Any) -> Any:
    """An option's value as the task takes it: a path as text (as Inspect's ``-T`` gives
    it), a list with comma-separated items split (as the task splits ``-T a,b``)."""
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, list):
        return [item.strip() for given in value for item in given.split(",") if item.strip()]
    return value


def run(spec: RunCommand, values: dict[str, Any]) -> None:
    """Bind the roles, then run the task with the options' values as its arguments."""
    from normlab.runs.benchmark import RunOptions, finish_run

    factory = spec.factory()
    bench = spec.load_benchmark()
    model = values.pop("model")
    roles = bind_roles(bench.roles, values.pop("judge"), values.pop("role"))
    settings = role_settings(values.pop("max_tokens"), values.pop("reasoning_effort"), bench.roles)
    options = RunOptions(**{option: values.pop(option) for option in RUN_OPTIONS})
    args = {name: task_value(value) for name, value in values.items()}
    finish_run(bench, factory, {**args, **settings.task_args()}, model, roles, options)


def add_run_command(app: typer.Typer, spec: RunCommand) -> None:
    """Add ``run`` to a benchmark's command group."""

    def command(**values: Any) -> None:
        run(spec, values)

    command.__signature__ = run_signature(spec)  # type: ignore[attr-defined]
    app.command("run", help=spec.help)(reports_errors(command))
