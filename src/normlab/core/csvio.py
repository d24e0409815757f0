"""Reading CSV files people filled in (ratings, labels) with errors that name file, line, field."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.jsonio import read_text


def read_csv_rows(path: Path, required: Iterable[str]) -> list[tuple[int, dict[str, str]]]:
    """``(line_number, row)`` for each row; a missing ``required`` column is an InputError.

    Spreadsheets often save UTF-8 with a byte-order mark, so one is accepted.
    """
    text = read_text(path, "utf-8-sig")
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        fields = reader.fieldnames or []
        rows = [(reader.line_num, row) for row in reader]
    except csv.Error as error:
        raise InputError(path, f"not a readable CSV ({error})") from error
    missing = [column for column in required if column not in fields]
    if missing:
        raise InputError(path, "missing column", line=1, field=missing[0])
    return [
        (line, {key: value if isinstance(value, str) else "" for key, value in row.items() if key})
        for line, row in rows
    ]
