"""One error type for bad input, so every command can report it on one line and exit 2."""

from __future__ import annotations

import errno
import re
from pathlib import Path


def printable(text: str) -> str:
    """``text`` with any lone surrogate spelled ``\\udc80``: an error or a line of output must
    print on any terminal, whatever bytes a file or a command-line argument held."""
    if text.isascii():
        return text
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


_LONG_WORD = re.compile(r"\S{81,}")
MAX_PROBLEM = 1000
PATH_LIMIT = 400
"""The longest word with a ``/`` in it an error keeps whole: a path says where to look, and a
test's or a deep project's folders are longer than 80 characters."""


def flat(text: str) -> str:
    """``text`` printable on one line: line breaks spelled ``\\n``, lone surrogates escaped."""
    return printable(text).replace("\r", "\\r").replace("\n", "\\n")


def tidy(problem: str) -> str:
    """What went wrong, as one line of bounded length: any run of more than 80 non-space
    characters (a pasted value, a key of five thousand digits) shortened, unless it is a path
    of at most ``PATH_LIMIT`` characters, the whole cut at ``MAX_PROBLEM`` characters. Every
    error's problem goes through it, so no message built from a user's file spans lines or
    pages (paths are kept whole: they say where to look)."""
    return shortened(_LONG_WORD.sub(_bounded, flat(problem)), MAX_PROBLEM)


def _bounded(found: re.Match[str]) -> str:
    word = found.group(0)
    return word if "/" in word and len(word) <= PATH_LIMIT else shortened(word)


_STYLE = (
    r"(?:bold|italic|underline|dim|reverse|strike|blink|(?:bright_)?"
    r"(?:red|green|blue|yellow|magenta|cyan|white|black))"
)
_MARKUP = re.compile(rf"\[/?(?:{_STYLE}(?: {_STYLE})*|link(?:=[^\]]*)?)?\]")
"""Rich's style tags (``[bold]``, ``[/blue]``, ``[bold red]``, ``[/]``, ``[link=…]``)."""


def unmarked(text: str) -> str:
    """A library's message without its Rich markup, on one line: Inspect writes its errors for
    its own terminal display (``No [bold][blue]OPENAI_API_KEY[/blue][/bold] defined``), and
    normlab prints them as plain text. Only for messages written by libraries: a user's own
    text (a model named ``[red]x[/red]``) is printed as it is, never stripped."""
    lines = [line.strip() for line in _MARKUP.sub("", text).splitlines() if line.strip()]
    joined = ""
    for line in lines:
        separator = "" if not joined else " " if joined.endswith((":", ".", ",", ";")) else "; "
        joined += separator + line
    return joined.removeprefix("ERROR: ")


def shortened(text: str, limit: int = 60) -> str:
    """``text`` cut at ``limit`` characters, saying how long it was: a 10 MB cell or a key of
    five thousand digits must not become a 10 MB error line."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def quoted(value: str, limit: int = 60) -> str:
    """A user's value quoted for an error message, cut at ``limit`` characters."""
    return repr(value) if len(value) <= limit else f"{value[:limit]!r}… ({len(value)} characters)"


class NormlabError(Exception):
    """Base of the errors a command reports on one line (no traceback) before exiting."""

    exit_code = 1


class RunIncompleteError(NormlabError):
    """A run stopped before every sample finished; rerunning the same command resumes it."""


class RunInterruptedError(RunIncompleteError):
    """The person running it stopped the run (Ctrl-C): exit 130, as a shell reports SIGINT."""

    exit_code = 130


class InputError(NormlabError):
    """A malformed file, row or field supplied by the user.

    The message always names the file, and where known the line and the field,
    so a researcher can fix the input without reading a traceback.
    """

    exit_code = 2

    def __init__(
        self,
        path: str | Path,
        problem: str,
        *,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.path = str(path)
        self.problem = problem
        self.line = line
        self.field = field
        super().__init__(self.one_line())

    def one_line(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.field:
            where += f": field '{shortened(self.field)}'"
        return f"{flat(where)}: {tidy(self.problem)}"


class OutputError(NormlabError):
    """A file or folder normlab must write cannot be written (a read-only folder, a path under
    a file, a full disk): one line naming the path and the operating system's reason."""

    exit_code = 2

    def __init__(self, path: str | Path | None, problem: str) -> None:
        self.path = None if path is None else str(path)
        self.problem = problem
        message = tidy(problem) if self.path is None else f"{flat(self.path)}: {tidy(problem)}"
        super().__init__(message)


FILESYSTEM_ERRNOS = frozenset(
    {
        errno.EACCES,
        errno.EPERM,
        errno.EROFS,
        errno.ENOSPC,
        errno.EDQUOT,
        errno.EFBIG,
        errno.ENOTDIR,
        errno.EISDIR,
        errno.EEXIST,
        errno.ENOENT,
        errno.ENAMETOOLONG,
        errno.ELOOP,
        errno.EIO,
    }
)
"""What a full disk, a read-only folder or a bad path raise, with or without a file name (a
``write`` to an open file that hits a full disk names none)."""


def filesystem_error(error: OSError) -> OutputError | None:
    """The one-line error for an OSError about files, or None for any other OSError (a network
    failure keeps its traceback)."""
    if error.filename is None and error.errno not in FILESYSTEM_ERRNOS:
        return None
    reason = error.strerror or str(error)
    if error.filename is None:
        return OutputError(None, reason)
    target = f" -> {error.filename2}" if error.filename2 is not None else ""
    return OutputError(f"{error.filename}{target}", reason)


def at_least(option: str, value: float | None, minimum: float) -> None:
    """A numeric command-line option below its minimum is an [`InputError`][normlab.core.InputError]
    on one line (typer's own ``min=`` prints a multi-line usage panel)."""
    if value is not None and value < minimum:
        raise InputError(
            option,
            f"must be at least {minimum}, got {value}",
            field=option.lstrip("-").replace("-", "_"),
        )
