"""Test inputs that the tests of several systems build the same way: a scripted model's rules
file, a LoSoNA trial record, a JSONL file of rows, a near miss of a field refused on one line,
a task's samples' digest, a blind CSV edited until its import refuses it, and a data file
served at a ``memory://`` URL."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import fsspec
import pytest
from inspect_ai import Task
from typer.testing import CliRunner

from normlab.core.errors import InputError


def scripted_rules(path: Path, replies: dict[str, dict[str, Any]]) -> str:
    """The ``scripted/PATH`` model whose script, written to ``path``, answers a prompt that
    matches a pattern of ``replies`` (the first that matches) with that pattern's reply as
    JSON, on every try."""
    rules = [{"match": match, "replies": [json.dumps(reply)]} for match, reply in replies.items()]
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


def losona_trial(
    model: str, scenario: str, trial: int, complies: object, **fields: object
) -> dict[str, Any]:
    """A LoSoNA trial record as a run writes it (``fields`` replace or add to its keys)."""
    record: dict[str, Any] = {
        "scenario_id": scenario,
        "event_type": "bug_report",
        "norm_id": "banned_direct_answers_norm",
        "condition": "naive",
        "trial": trial,
        "subject_model": model,
        "judge_model": "judge",
        "response": "see the wiki",
        "complies": complies,
    }
    return {**record, **fields}


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """``rows`` as a JSONL file at ``path``."""
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def refuses_near_miss(
    load: Callable[[Path], object], path: Path, name: str, meant: str, line: int = 2
) -> None:
    """``load`` refuses the file at ``path``, whose row on ``line`` has the field ``name``
    misspelt for ``meant``, on one line naming file, line and field."""
    with pytest.raises(InputError) as raised:
        load(path)
    assert raised.value.one_line().startswith(
        f"{path}:{line}: field '{name}': unknown field, a near miss of '{meant}'"
    )


def validate_keeps_release_columns(system: str, path: Path, rows: str) -> str:
    """``normlab SYSTEM validate PATH`` passes and names the release's ``license`` and
    ``source`` columns as kept metadata, each in ``rows`` (``1 of 2``); its output."""
    from normlab.cli import app

    result = CliRunner().invoke(app, [system, "validate", str(path)])
    assert result.exit_code == 0, result.output
    assert (
        f"{path}: kept as metadata (not read by the benchmark): license ({rows} rows), "
        f"source ({rows} rows)"
    ) in result.output
    return result.output


def inputs_digest(task: Task) -> str:
    """SHA-256 of every sample's (id, input, target) of ``task``: a text input as it is, a
    list of messages as (role, text) pairs."""
    rows = []
    for sample in task.dataset:
        shown = (
            sample.input
            if isinstance(sample.input, str)
            else [[m.role, m.text] for m in sample.input]
        )
        rows.append([sample.id, shown, sample.target])
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode()).hexdigest()


Rows = list[dict[str, str]]


def import_failure(
    path: Path, write: Callable[[Path, Rows], None], load: Callable[[Path], object]
) -> Callable[[Rows], InputError]:
    """``fails(rows)``: write ``rows`` to the CSV at ``path``, and the :class:`InputError`
    that ``load`` raises on it (the test fails if it raises none)."""

    def fails(edited: Rows) -> InputError:
        write(path, edited)
        with pytest.raises(InputError) as caught:
            load(path)
        return caught.value

    return fails


@contextmanager
def in_memory(path: Path, name: str) -> Iterator[tuple[str, bytes]]:
    """``path``'s bytes at ``memory://NAME`` for the block (removed after it): the URL and
    the bytes, whose hash the task must record."""
    filesystem = fsspec.filesystem("memory")
    data = path.read_bytes()
    folder = "/" + name.split("/", 1)[0]
    filesystem.pipe_file(f"/{name}", data)
    try:
        yield f"memory://{name}", data
    finally:
        filesystem.rm(folder, recursive=True)


def assert_data_recorded(metadata: dict[str, Any] | None, url: str, data: bytes) -> None:
    """The task's metadata names the URL it read and the SHA-256 of the bytes there."""
    recorded = (metadata or {})["data"]
    assert recorded["location"] == url
    assert recorded["sha256"] == hashlib.sha256(data).hexdigest()
