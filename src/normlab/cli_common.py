"""What every ``normlab`` sub-command shares: error reporting, the console, tables, options."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.table import Table as RichTable

from normlab.core.errors import NormlabError
from normlab.models import DEFAULT_MODEL
from normlab.report import Table

# Off a terminal (CI logs, pipes) rich would assume 80 columns and truncate model names.
console = Console(width=None if sys.stdout.isatty() else 200)

CommandT = TypeVar("CommandT", bound=Callable[..., Any])


def reports_errors(command: CommandT) -> CommandT:
    """Turn normlab errors into one line on stderr and the error's exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except NormlabError as error:
            # Plain write: a one-line error must stay one line, never wrapped.
            sys.stderr.write(f"normlab: error: {error}\n")
            raise typer.Exit(code=error.exit_code) from None

    return wrapper  # type: ignore[return-value]


def print_table(table: Table) -> None:
    rich_table = RichTable(title=table.caption, show_lines=False)
    for column in table.header:
        rich_table.add_column(column, no_wrap=True)
    for row in table.rows:
        rich_table.add_row(*row)
    console.print(rich_table)


def print_usage(log_paths: list[Path]) -> None:
    """Calls and tokens per role over a run's logs, with the prompt-cache share."""
    from normlab.models.usage import usage_by_role

    for role, usage in sorted(usage_by_role(log_paths).items()):
        cost = "cost unknown" if usage.cost is None else f"${usage.cost:.4f}"
        console.print(
            f"{role}: {usage.calls} calls, {usage.input_tokens} input tokens "
            f"({usage.cached_share:.0%} from prompt cache), {usage.output_tokens} output tokens, "
            f"{cost}"
        )


ModelOption = Annotated[
    str, typer.Option("--model", "-m", help="Subject model (any Inspect model string).")
]
JudgeOption = Annotated[
    str | None, typer.Option("--judge", help="Judge model (default: the embedded model).")
]
RoleOption = Annotated[
    list[str] | None,
    typer.Option("--role", help="Assign a model to a role: NAME=MODEL (repeatable)."),
]

__all__ = [
    "DEFAULT_MODEL",
    "JudgeOption",
    "ModelOption",
    "RoleOption",
    "console",
    "print_table",
    "print_usage",
    "reports_errors",
]
