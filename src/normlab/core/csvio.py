"""CSV files people fill in (ratings, labels): reading them with errors that name file, line,
field, and the blind-export pattern (a CSV for raters, a key file beside it that they never see).

These CSVs are opened in spreadsheets, and their cells hold text that came from elsewhere (an
imported dialogue, a model's reply, a rater's notes): a cell starting with ``=``, ``+``, ``-``
or ``@`` (or a tab or carriage return before one) is a formula to Excel, LibreOffice and Google
Sheets, which can fetch URLs or run commands ("CSV injection"). Every CSV normlab writes for
people goes through ``SpreadsheetWriter``, which does what OWASP's CSV Injection page
recommends: each such cell gets a leading ``'`` (shown as text, never evaluated), and every
cell is quoted, so a ``;`` in a cell cannot start a new one in a spreadsheet whose separator
is ``;``. ``csv_rows`` takes the ``'`` off again, so a CSV normlab wrote reads back
to the very text it was given (``spreadsheet_cell`` and ``cell_text`` are inverse).
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TextIO, TypeVar

from pydantic import BaseModel

from normlab.core.errors import InputError, quoted
from normlab.core.files import read_lines
from normlab.core.jsonio import decoded_lines, read_jsonl_rows, validate_row, write_jsonl
from normlab.core.outputs import replacing


def _line_breaks(row: dict[str | Any, Any]) -> int:
    """Line breaks inside a row's cells (a short row's missing cells are None, a long row's
    extra cells a list)."""
    cells = [
        cell for value in row.values() for cell in (value if isinstance(value, list) else [value])
    ]
    return sum(cell.count("\n") for cell in cells if isinstance(cell, str))


def _csv_problem(error: csv.Error, cell_limit: int) -> str:
    """The csv module's complaint in the words of someone who edits the file in a spreadsheet."""
    text = str(error)
    if text == "unexpected end of data":
        return 'a quoted cell in the row starting here is never closed (no closing ")'
    if text.startswith("field larger than field limit"):
        return f"a cell is longer than {cell_limit:,} characters"
    if text.startswith("',' expected after '\"'"):
        return 'text follows a closing quote (a " inside a quoted cell is written "")'
    return f"not a readable CSV ({text})"


CELL_LIMIT = 131_072
"""The longest cell of a CSV of answers (a rating, a label, a note): the csv module's own
limit. A longer one is a file gone wrong (a 10 MB score), said so at its row."""
TEXT_CELL_LIMIT = 1 << 24
"""The longest cell of a CSV of texts: a news corpus' article, a curation CSV's dialogue of
500 forum posts (16 Mi characters; each file is bounded by ``normlab.core.files`` too)."""


@contextlib.contextmanager
def _cells(limit: int) -> Iterator[None]:
    """The csv module's cell limit at ``limit`` while a row is read, and as it was after: the
    limit is one for the whole process, and two files may be read at once."""
    before = csv.field_size_limit(limit)
    try:
        yield
    finally:
        csv.field_size_limit(before)


def dict_rows(
    reader: csv.DictReader[str], where: str | Path, cell_limit: int = CELL_LIMIT
) -> Iterator[tuple[int, dict[str | Any, Any]]]:
    """``(line, row)`` for each row of a strict ``reader``, ``line`` the one the row starts on
    (a quoted cell may span lines); the csv module's complaint is an
    [`InputError`][normlab.core.InputError] at the line where the row it met it in starts, in a
    spreadsheet user's words (``"unexpected end of data"`` is a quote never closed). A cell
    over ``cell_limit`` characters is such a complaint (``_cells``)."""
    start = 1
    try:
        with _cells(cell_limit):
            _ = reader.fieldnames  # the header: its own errors are line 1's
        start = reader.line_num + 1
        while True:
            with _cells(cell_limit):
                row = next(reader, None)
            if row is None:
                return
            yield reader.line_num - _line_breaks(row), row
            start = reader.line_num + 1
    except csv.Error as error:
        raise InputError(where, _csv_problem(error, cell_limit), line=start) from error


FORMULA_STARTS = frozenset("=+-@\t\r")
"""What a cell may not start with in a spreadsheet (OWASP, "CSV Injection")."""
TEXT_MARK = "'"
"""What makes a spreadsheet show a cell as text: put before a cell that starts a formula."""


def _number(text: str) -> bool:
    """``-1`` or ``+2.5``: a number, which no spreadsheet evaluates as more than itself."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def _marked(text: str) -> bool:
    """Whether ``text`` reads as one ``spreadsheet_cell`` marked: ``'`` then a formula's
    start or another ``'``."""
    return len(text) > 1 and text[0] == TEXT_MARK and text[1] in FORMULA_STARTS | {TEXT_MARK}


def spreadsheet_cell(text: str) -> str:
    """``text`` as a spreadsheet shows it and never evaluates it: a ``'`` before a cell that
    starts with ``= + - @``, tab or carriage return (a number such as ``-1`` is left as it
    is), and before one that already reads as marked (``'=x`` written as ``''=x``), so that
    ``cell_text`` gives back exactly ``text``."""
    if text and ((text[0] in FORMULA_STARTS and not _number(text)) or _marked(text)):
        return TEXT_MARK + text
    return text


def cell_text(cell: str) -> str:
    """The text a ``spreadsheet_cell`` was made from (its one ``'`` taken off)."""
    return cell[1:] if _marked(cell) else cell


class SpreadsheetWriter:
    """A ``csv.DictWriter`` for CSVs people open in a spreadsheet: every text cell through
    ``spreadsheet_cell``, every cell quoted (see the module docstring)."""

    def __init__(self, handle: TextIO, fieldnames: Sequence[str]) -> None:
        self._writer = csv.DictWriter(handle, fieldnames=list(fieldnames), quoting=csv.QUOTE_ALL)

    def writeheader(self) -> None:
        self._writer.writeheader()

    def writerow(self, row: Mapping[str, Any]) -> None:
        self._writer.writerow(
            {key: spreadsheet_cell(v) if isinstance(v, str) else v for key, v in row.items()}
        )

    def writerows(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for row in rows:
            self.writerow(row)


_CR = re.compile(r"(?<=\r)(?!\n)")
"""Where a line ends at a carriage return not followed by a line feed."""


def csv_rows(
    path: Path,
    required: Iterable[str],
    written_by_normlab: bool = True,
    cell_limit: int = CELL_LIMIT,
) -> Iterator[tuple[int, dict[str, str]]]:
    """``(line_number, row)`` for each row, read as it is asked for (a large file is never held
    whole); a missing ``required`` column is an InputError.

    The line is the one the row starts on: a quoted cell may span lines (a transcript), and
    an error should point where a person finds the row. Spreadsheets often save UTF-8 with a
    byte-order mark, so one is accepted. The reader is strict: a quote left open, which the
    csv module would otherwise close at the end of the file (swallowing every row after it
    into one cell), is an error naming the line where that row starts. A CSV normlab wrote
    (``written_by_normlab``: an export, filled in) has each cell's spreadsheet mark taken off
    (``cell_text``); one from elsewhere (an imported corpus) is read as it stands. A cell may
    hold ``cell_limit`` characters (``dict_rows``).
    """
    # Split at a lone carriage return too, as a text file's universal newlines do (a CSV
    # saved by an old Mac spreadsheet ends its lines so).
    lines = (part for line in decoded_lines(read_lines(path), path) for part in _CR.split(line))
    reader = csv.DictReader(lines, strict=True)
    rows = dict_rows(reader, path, cell_limit)
    first = next(rows, None)  # the header, and the row after it
    fields = reader.fieldnames or []
    if not any(column.strip() for column in fields):
        raise InputError(path, "empty file (no header row)")
    # Blank names (a spreadsheet's trailing empty columns) are dropped, so only named ones count.
    repeated = sorted({column for column in fields if column and fields.count(column) > 1})
    if repeated:
        raise InputError(path, "column appears twice in the header", line=1, field=repeated[0])
    missing = [column for column in required if column not in fields]
    if missing:
        raise InputError(path, "missing column", line=1, field=missing[0])
    text_of = cell_text if written_by_normlab else str
    for line, row in itertools.chain([] if first is None else [first], rows):
        cells = {key: value for key, value in row.items() if key}
        yield line, {key: text_of(v) if isinstance(v, str) else "" for key, v in cells.items()}


# --- blind exports: a CSV for raters, a key beside it ---------------------------------


class KeyRow(BaseModel):
    """One row of a blind export's key file: the item's id, and (in subclasses) what raters must
    not see: where the item came from and the model's label for it."""

    item_id: str


KeyT = TypeVar("KeyT", bound=KeyRow)
AnswerT = TypeVar("AnswerT")


def key_path_for(csv_path: Path) -> Path:
    """The key file beside a blind CSV: ``audit.csv`` → ``audit.key.jsonl``."""
    return csv_path.with_suffix(".key.jsonl")


def write_blind(
    out_csv: Path, columns: Sequence[str], items: Sequence[tuple[dict[str, str], KeyRow]]
) -> int:
    """Write the raters' CSV (its ``item_id`` taken from each key, columns a row lacks left blank
    for the rater) and the key file beside it, replacing both; the count of items written."""
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    with replacing(out_csv) as handle:
        writer = SpreadsheetWriter(handle, columns)
        writer.writeheader()
        for row, key in items:
            writer.writerow(
                {column: row.get(column, "") for column in columns} | {"item_id": key.item_id}
            )
    write_jsonl(key_path_for(out_csv), [key for _, key in items])
    return len(items)


YES_WORDS = frozenset({"yes", "y", "true", "1"})
NO_WORDS = frozenset({"no", "n", "false", "0"})


def yes_no(
    text: str, yes: Collection[str] = YES_WORDS, no: Collection[str] = NO_WORDS
) -> bool | None:
    """A yes/no answer as people type it (any case), in ``yes`` or ``no`` (lower case);
    None when it is neither."""
    lowered = text.strip().lower()
    return True if lowered in yes else False if lowered in no else None


@dataclass(frozen=True)
class AnswerColumn(Generic[AnswerT]):
    """The column of a blind CSV that people fill in: its name, how an answer written there is
    read (``parse``; None: not an answer) and what an answer looks like (``expected``, e.g.
    "yes or no", said when one is not). One value, so the CSV's columns and its reader name
    the same column."""

    name: str
    parse: Callable[[str], AnswerT | None]
    expected: str


@dataclass
class Answers(Generic[KeyT, AnswerT]):
    """A filled blind CSV joined with its key: each answered item with its key row, and the key
    rows left unanswered (a blank answer, or a row the rater deleted)."""

    answered: list[tuple[KeyT, AnswerT]]
    unanswered: list[KeyT]
    keys: list[KeyT]


def read_answers(
    csv_path: Path,
    key_path: Path | None,
    key_model: type[KeyT],
    column: AnswerColumn[AnswerT],
) -> Answers[KeyT, AnswerT]:
    """Join the raters' answers in ``column`` with the key (``key_path``, else the one written
    beside the CSV).

    A non-blank answer is read by the column's ``parse``. An item answered twice, an item the
    key does not hold and an unreadable answer are [`InputError`][normlab.core.InputError]s
    naming the file, line and field, never skipped rows.
    """
    key_path = key_path or key_path_for(csv_path)
    if not key_path.exists():
        raise InputError(key_path, "key file not found (the export writes it beside its CSV)")
    keys: dict[str, KeyT] = {}
    for line, raw in read_jsonl_rows(key_path):
        key = validate_row(key_model, raw, key_path, line)
        if key.item_id in keys:
            raise InputError(
                key_path, f"item {key.item_id!r} appears twice", line=line, field="item_id"
            )
        keys[key.item_id] = key
    answers: dict[str, AnswerT] = {}
    seen: dict[str, int] = {}
    for line, row in csv_rows(csv_path, ("item_id", column.name)):
        item_id = row["item_id"].strip()
        if item_id in seen:
            raise InputError(
                csv_path,
                f"item {quoted(item_id)} appears twice (first on line {seen[item_id]}); "
                "each item is answered once",
                line=line,
                field="item_id",
            )
        seen[item_id] = line
        if item_id not in keys:
            raise InputError(
                csv_path,
                f"item {quoted(item_id)} is not in {key_path.name}",
                line=line,
                field="item_id",
            )
        value = row[column.name]
        if not value.strip():
            continue
        answer = column.parse(value)
        if answer is None:
            raise InputError(
                csv_path,
                f"expected {column.expected}, got {quoted(value)}",
                line=line,
                field=column.name,
            )
        answers[item_id] = answer
    return Answers(
        answered=[(keys[item], answer) for item, answer in answers.items()],
        unanswered=[key for item, key in keys.items() if item not in answers],
        keys=list(keys.values()),
    )
