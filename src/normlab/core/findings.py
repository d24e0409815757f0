"""What a data linter reports: one finding per problem, one line each."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """A problem in one row of a data file: ``FILE:LINE: ROW_ID: FIELD: message``."""

    path: str
    line: int
    row_id: str
    """The row's id (a scenario's, a case's), or ``?`` when it has none."""
    field: str
    message: str

    def one_line(self) -> str:
        return f"{self.path}:{self.line}: {self.row_id}: {self.field}: {self.message}"
