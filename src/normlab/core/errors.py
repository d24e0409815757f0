"""One error type for bad input, so every command can report it on one line and exit 2."""

from __future__ import annotations

from pathlib import Path


class NormlabError(Exception):
    """Base of the errors a command reports on one line (no traceback) before exiting."""

    exit_code = 1


class RunIncompleteError(NormlabError):
    """A run stopped before every sample finished; rerunning the same command resumes it."""


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
            where += f": field '{self.field}'"
        return f"{where}: {self.problem}"
