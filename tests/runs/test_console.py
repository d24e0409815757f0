"""Tables on a narrow terminal stay readable: no value is squeezed into an ellipsis."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from normlab.report import Table
from normlab.runs import console as output

TABLE = Table(
    caption="Accuracy by model",
    header=["model", "condition", "accuracy-at-K", "compliance", "n trials"],
    rows=[["scripted//a/very/long/path/to/a/script.json", "norm_informed", "100.0% [100.0, 100.0]",
           "33.3% [33.3, 33.3]", "6"]],
)  # fmt: skip


def printed(width: int, monkeypatch: pytest.MonkeyPatch) -> str:
    buffer = io.StringIO()
    narrow = Console(file=buffer, width=width, highlight=False)
    monkeypatch.setattr(output, "console", narrow)
    monkeypatch.setattr(output, "notes", narrow)
    output.print_table(TABLE)
    return buffer.getvalue()


def test_a_table_too_wide_for_the_terminal_is_printed_a_row_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = printed(80, monkeypatch)
    assert "…" not in text and "┃" not in text
    assert "· scripted//a/very/long/path/to/a/script.json · norm_informed" in text
    assert "    accuracy-at-K: 100.0% [100.0, 100.0]" in text
    assert "    n trials: 6" in text


def test_a_table_that_fits_is_a_table(monkeypatch: pytest.MonkeyPatch) -> None:
    text = printed(200, monkeypatch)
    assert "┃ model" in text and "100.0% [100.0, 100.0]" in text and "…" not in text
