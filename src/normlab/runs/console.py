"""Where command output goes: results on stdout, progress and notes on stderr, errors on one line.

``--json`` promises that stdout holds only JSON, so everything that is not the
result (Inspect's progress panel, notes, the report path) goes to stderr, and
user data is always printed as text, never parsed as rich markup. Everything printed passes
through [`normlab.core.secrets.redact_text`][normlab.core.redact_text]: a provider's error or a note
naming an endpoint must not put its password into a terminal's scrollback or a CI log.
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, NoReturn, Protocol, TypeVar

from pydantic import BaseModel
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table as RichTable
from rich.text import Text

from normlab.core.errors import NormlabError, filesystem_error, flat, printable
from normlab.core.secrets import redact_text

if TYPE_CHECKING:
    from normlab.core.fields import MetadataTally
    from normlab.models import Generated
    from normlab.report import Table

# Off a terminal (CI logs, pipes) rich would assume 80 columns and truncate model names.
console = Console(width=None if sys.stdout.isatty() else 200, highlight=False)
notes = Console(stderr=True, width=None if sys.stderr.isatty() else 200, highlight=False)

CommandT = TypeVar("CommandT", bound=Callable[..., object])


def reports_errors(command: CommandT) -> CommandT:
    """Turn normlab errors into one line on stderr and the error's exit code.

    An OSError about a file (a read-only folder, a path under a file, a full disk) is one
    too, naming the path and the system's reason, exit 2: outputs are written in many places,
    and none of them should end a long run in a traceback.
    """

    @functools.wraps(command)
    def wrapper(*args: object, **kwargs: object) -> object:
        try:
            return command(*args, **kwargs)
        except NormlabError as error:
            _report(error)
        except OSError as error:
            reported = filesystem_error(error)
            if reported is None:
                raise
            _report(reported)

    return wrapper  # type: ignore[return-value]


def _report(error: NormlabError) -> NoReturn:
    # Plain write: a one-line error must stay one line, never wrapped.
    sys.stderr.write(f"normlab: error: {flat(redact_text(str(error)))}\n")
    # SystemExit, not the command line's Exit: runs are also called from programs and the
    # web app, which must not load typer for it; the command line exits with it the same way.
    raise SystemExit(error.exit_code) from None


def shown(text: str) -> str:
    """``text`` as it may be printed: credentials redacted, lone surrogates spelled out."""
    return printable(redact_text(text))


def say(text: str, *, to_stderr: bool = False) -> None:
    """Print a line as plain text (user data never becomes markup, and a lone surrogate from
    a file name or an argument is spelled out rather than crashing the print)."""
    (notes if to_stderr else console).print(Text(shown(text)), soft_wrap=True)


def note(text: str) -> None:
    """A progress line or remark: stderr, so stdout stays the result."""
    say(text, to_stderr=True)


class Finding(Protocol):
    def one_line(self) -> str: ...


def report_findings(
    findings: Sequence[Finding], clean: str, kept: MetadataTally | None = None
) -> None:
    """A linter's verdict: one line per finding and exit 1, or ``clean`` and exit 0; first,
    given a ``validate`` command's tally (``kept``), each file's fields kept as metadata."""
    for line in kept.lines() if kept is not None else []:
        say(line)
    for finding in findings:
        say(finding.one_line())
    if findings:
        raise SystemExit(1)
    say(clean)


KEY_COLUMNS = 2
"""Columns that name a row (model, condition…): the heading of each row printed as a record."""


def print_table(table: Table) -> None:
    """A report table on the terminal; every caption, header and cell is text, never markup
    (a model named ``[/bold]`` would otherwise crash rich, ``[red]x[/red]`` lose its brackets).

    A table wider than the terminal is printed a row at a time, each cell on a line of its
    own under its column's name, rather than with columns squeezed until values vanish."""
    rich_table = RichTable(title=Text(shown(table.caption)), show_lines=False)
    for column in table.header:
        rich_table.add_column(Text(shown(column)), no_wrap=True)
    for row in table.rows:
        rich_table.add_row(*(Text(shown(cell)) for cell in row))
    unbounded = console.options.update(max_width=100_000)
    needed = Measurement.get(console, unbounded, rich_table).maximum
    if needed <= console.width or not table.rows:
        console.print(rich_table)
        return
    keys = min(KEY_COLUMNS, len(table.header) - 1)
    say(table.caption)
    for row in table.rows:
        say("· " + " · ".join(row[:keys]))
        for column, cell in zip(table.header[keys:], row[keys:], strict=False):
            say(f"    {column}: {cell}")


def print_json(value: BaseModel | Mapping[str, object] | Sequence[object]) -> None:
    """The result as JSON on stdout, and nothing else."""
    text = (
        value.model_dump_json(indent=2)
        if isinstance(value, BaseModel)
        else json.dumps(value, indent=2, ensure_ascii=False)
    )
    sys.stdout.write(shown(text) + "\n")


@contextlib.contextmanager
def stdout_to_stderr(active: bool = True) -> Iterator[None]:
    """Send what libraries print to stdout (Inspect's progress) to stderr while active."""
    if not active:
        yield
        return
    with contextlib.redirect_stdout(sys.stderr):
        yield


SHOWN_PROBLEMS = 5
"""Problems listed for a request whose result was not written (the rest are in its record)."""
GeneratedT = TypeVar("GeneratedT", bound=BaseModel)


def say_outcomes(
    outcomes: Sequence[Generated[GeneratedT]], named: Callable[[GeneratedT], str]
) -> None:
    """One line per request of a generating command: written (``named`` says more of the
    value, or nothing), or not written after how many calls, with its first problems. Here,
    light, so a command's ``--help`` that shares it loads no model code."""
    for outcome in outcomes:
        if outcome.value is None:
            problems = "; ".join(outcome.problems[:SHOWN_PROBLEMS])
            say(f"not written {outcome.label} after {outcome.calls} calls: {problems}")
        else:
            say(f"written {outcome.label}{named(outcome.value)}")
