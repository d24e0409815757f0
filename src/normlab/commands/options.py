"""Options every benchmark command shares, one meaning each, and the role bindings they make."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Annotated, Any, TypeVar, get_origin

import typer

from normlab.core.errors import InputError
from normlab.core.logs import BASE_AGENT
from normlab.models import DEFAULT_MODEL, RoleSettings
from normlab.models.roles import NORM_MEMORY_ROLE, parse_assignments

ModelOption = Annotated[
    str, typer.Option("--model", "-m", help="Subject model (any Inspect model string).")
]
"""``--model``/``-m``: the subject (in CRSEC, every agent); any Inspect model string."""
JudgeOption = Annotated[
    str | None, typer.Option("--judge", help="Judge model (same as --role judge=MODEL).")
]
"""``--judge``: the judge role's model, short for ``--role judge=MODEL``."""
RoleOption = Annotated[
    list[str] | None,
    typer.Option("--role", help="Assign a model to a role: NAME=MODEL (repeatable)."),
]
"""``--role NAME=MODEL``, repeatable: any role's model (judge, persona, orchestrator …)."""
LogDirOption = Annotated[
    Path | None,
    typer.Option(help="Where .eval logs go (default: runs/SYSTEM/<every role's model>); "
                 "rerunning on the same folder resumes."),
]  # fmt: skip
"""``--log-dir``: a local folder of .eval logs; rerunning into it resumes."""
LogLocationOption = Annotated[
    str | None,
    typer.Option("--log-dir",
                 help="Where .eval logs go (default: runs/SYSTEM/<every role's model>), a folder "
                 "or an s3://… (any fsspec) URL; rerunning on the same place resumes."),
]  # fmt: skip
"""``--log-dir`` of the sweep commands (``run``, with ``--shard``): object storage allowed."""
ReportDirOption = Annotated[
    Path | None, typer.Option(help="Where report.html goes (default: the log folder).")
]
"""``--report-dir``: where report.html goes (default: beside the logs)."""
MaxTokensOption = Annotated[
    list[str] | None,
    typer.Option(
        "--max-tokens",
        help="Output cap for a role: ROLE=N (repeatable). Thinking tokens count against it on "
        "reasoning models; a reply still cut off is retried once with twice the cap.",
    ),
]
"""``--max-tokens ROLE=N``, repeatable: a role's output cap (thinking tokens count)."""
ReasoningEffortOption = Annotated[
    list[str] | None,
    typer.Option(
        "--reasoning-effort",
        help="Reasoning effort for a role: ROLE=none|minimal|low|medium|high|xhigh (repeatable).",
    ),
]
"""``--reasoning-effort ROLE=LEVEL``, repeatable: a reasoning model's effort."""
AgentOption = Annotated[
    str,
    typer.Option(
        "--agent",
        help="The subject: 'base' (the model alone) or 'norm-memory' (the norm-learning "
        "subject: the same model with a personal norm database; its own calls use the "
        "norm_memory role, bound to --model unless --role norm_memory=M).",
    ),
]
"""``--agent``: the subject as the model alone (``base``) or with a norm database."""
MaxConnectionsOption = Annotated[
    int | None,
    typer.Option(
        "--max-connections",
        min=1,
        help="Concurrent calls per model (every role inherits it), with four times as many "
        "samples at once; default: the provider's (Inspect's) own limit.",
    ),
]
"""``--max-connections``: concurrent calls per model, four samples in flight each."""
ShardOption = Annotated[
    str | None,
    typer.Option(
        "--shard",
        help="Run part I of N of the sweep (every N-th sample), in its own log folder "
        "(LOG_DIR/shard-I-of-N); analyze the parent folder to read all shards as one run.",
    ),
]
"""``--shard I/N``: run every N-th sample of a sweep, in a log folder of its own."""
JsonOption = Annotated[
    bool, typer.Option("--json", help="Print only the analysis, as JSON, on stdout.")
]
"""``--json``: print only the analysis, as JSON, on stdout (notes go to stderr)."""
PathsArgument = Annotated[
    list[str],
    typer.Argument(
        help=".eval logs, folders of logs, or record JSONL files; s3://… (or any fsspec URL) "
        "for logs in object storage, read through a local mirror under runs/remote."
    ),
]
"""Strings, not paths: a path would turn ``s3://b/x`` into ``s3:/b/x``; each command reads
them through ``normlab.core.storage.log_paths``."""
ScenarioFilesArgument = Annotated[
    list[Path] | None,
    typer.Argument(help="Scenario JSONL files or folders (default: shipped)."),
]
"""The scenarios LoSoNA's and SCENE's ``validate`` lint: files or folders, else the bank the
package ships."""
OutOption = Annotated[Path, typer.Option(help="Folder for report.html.")]
"""``--out``: the folder report.html is written to."""
BlindCsvOption = Annotated[Path, typer.Option(help="CSV to write (key file goes beside it).")]
"""``--out`` of a human check's ``export``: the CSV people fill in, its key file beside it."""

SHARED_OPTIONS: dict[str, tuple[object, object]] = {
    "model": (ModelOption, DEFAULT_MODEL),
    "judge": (JudgeOption, None),
    "role": (RoleOption, None),
    "max_tokens": (MaxTokensOption, None),
    "reasoning_effort": (ReasoningEffortOption, None),
    "agent": (AgentOption, BASE_AGENT),
    "max_connections": (MaxConnectionsOption, None),
    "shard": (ShardOption, None),
    "log_dir": (LogLocationOption, None),
    "report_dir": (ReportDirOption, None),
    "as_json": (JsonOption, False),
}
"""Every benchmark's ``run`` options that are not its task's own: parameter name →
(declaration, default), in the order ``--help`` lists them (the task's own come after
``--role``). [`normlab.commands.running.add_run_command`][normlab.commands.add_run_command] declares
them on each benchmark's ``run``, and [`shared_options`][normlab.commands.shared_options] on any
other command that takes them."""
HEAD_OPTIONS = ("model", "judge", "role")
"""The shared options ``--help`` lists before a command's own; the rest come after them."""

CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def option_parameter(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    """An option as typer reads it from a command's signature: a keyword-only parameter that
    its annotation declares. For options made rather than written out in a ``def``: the shared
    ones, a task's own, an ``option_group``'s."""
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
    )


def shared_parameter(name: str) -> inspect.Parameter:
    """The shared option ``name`` as a parameter of a command's signature, for typer."""
    return option_parameter(name, *SHARED_OPTIONS[name])


def shared_options(command: CommandT) -> CommandT:
    """Declare the shared options a command takes by their shared names, undeclared (plain
    ``judge: str | None``), as the benchmarks' ``run`` declares them: the same flags, help and
    defaults, listed in the same places in ``--help``. A parameter with its own ``Annotated``
    declaration (``crsec trace --agent``, an agent's name) keeps it."""
    signature = inspect.signature(command, eval_str=True)
    own: list[inspect.Parameter] = []
    head: list[inspect.Parameter] = []
    tail: list[inspect.Parameter] = []
    for parameter in signature.parameters.values():
        if parameter.name in SHARED_OPTIONS and get_origin(parameter.annotation) is not Annotated:
            shared = shared_parameter(parameter.name)
            (head if parameter.name in HEAD_OPTIONS else tail).append(shared)
        else:
            own.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY))
    command.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[*head, *own, *tail]
    )
    return command


def option_group(
    name: str,
    options: list[inspect.Parameter],
    make: Callable[..., Any],
    standins: dict[str, Any] | None = None,
) -> Callable[[CommandT], CommandT]:
    """A command whose parameter ``name`` is typer's ``options`` in its place, passed on as
    ``make(**those options' values)``: options declared once for several commands (as
    [`shared_options`][normlab.commands.shared_options] declares the shared ones). ``standins``
    resolve annotations named only for type checking (the group's own type, kept unimported), which
    typer never sees."""

    def decorate(command: CommandT) -> CommandT:
        signature = inspect.signature(command, eval_str=True, locals=standins)
        parameters: list[inspect.Parameter] = []
        for parameter in signature.parameters.values():
            parameters += options if parameter.name == name else [parameter]

        @functools.wraps(command)
        def wrapper(**kwargs: Any) -> Any:
            values = {option.name: kwargs.pop(option.name) for option in options}
            return command(**kwargs, **{name: make(**values)})

        wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=[p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in parameters]
        )
        wrapper.__annotations__ = {p.name: p.annotation for p in parameters}
        return wrapper  # type: ignore[return-value]

    return decorate


def role_settings(
    max_tokens: list[str] | None,
    reasoning_effort: list[str] | None,
    roles: Sequence[str] = (),
) -> RoleSettings:
    """``--max-tokens`` and ``--reasoning-effort`` as one validated
    [`RoleSettings`][normlab.models.RoleSettings]; with the system's ``roles``, a setting for a role
    it does not have is an error."""
    settings = RoleSettings.of(
        parse_assignments(max_tokens or [], "max_tokens"),
        parse_assignments(reasoning_effort or [], "reasoning_effort"),
    )
    if roles:
        known = ("subject", *roles, NORM_MEMORY_ROLE)
        for option, given in (
            ("--max-tokens", settings.max_tokens),
            ("--reasoning-effort", settings.reasoning_effort),
        ):
            unknown = [name for name in given if name not in known]
            if unknown:
                raise InputError(
                    option,
                    f"unknown role {unknown[0]!r}; roles: {', '.join(known)}",
                    field=option[2:].replace("-", "_"),
                )
    return settings
