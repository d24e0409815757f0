"""The one collection loader: files or folders, ids unique across files, errors on one line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.jsonio import read_collection, read_models, write_jsonl


class Row(BaseModel):
    id: str


def parse(row: dict[str, Any], file: Path, line: int) -> dict[str, Any]:
    return row


def write(path: Path, ids: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"id": i}) + "\n" for i in ids))


def test_folder_walk_and_duplicates_across_files(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", ["x", "y"])
    write(tmp_path / "sub" / "b.jsonl", ["z"])
    rows = read_collection(tmp_path, parse, lambda row: row["id"], "id")
    assert [row["id"] for row in rows] == ["x", "y", "z"]
    write(tmp_path / "sub" / "b.jsonl", ["y"])
    with pytest.raises(InputError, match=r"b.jsonl:1: field 'id': duplicate id 'y' \(first at"):
        read_collection(tmp_path, parse, lambda row: row["id"], "id")


def test_empty_inputs_are_errors(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"no \*\.jsonl files"):
        read_collection(tmp_path, parse, lambda row: row["id"], "id")
    (tmp_path / "empty.jsonl").write_text("\n")
    with pytest.raises(InputError, match="holds no rows"):
        read_collection(tmp_path / "empty.jsonl", parse, lambda row: row["id"], "id")


def test_write_is_atomic_and_read_models_resumes(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    assert read_models(path, Row) == []
    write_jsonl(path, [Row(id="a"), Row(id="b")])
    assert [row.id for row in read_models(path, Row)] == ["a", "b"]
    assert not list(tmp_path.glob(".*.tmp"))


@pytest.mark.parametrize(
    "command",
    [
        ["losona", "analyze"],
        ["hsii", "analyze"],
        ["crsec", "run", "--hours", "9-10", "--days", "1", "--society"],
        ["losona", "validate"],
    ],
)
def test_a_fifo_is_refused_instead_of_blocking(tmp_path: Path, command: list[str]) -> None:
    """Reading a FIFO with no writer blocks forever; every input is refused in one line."""
    import os

    from typer.testing import CliRunner

    from normlab.cli import app

    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    result = CliRunner().invoke(app, [*command, str(fifo)])
    assert result.exit_code == 2, result.output
    assert f"{fifo}: not a regular file" in result.output
