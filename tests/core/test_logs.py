"""Every log read once, every sample counted once, whatever the user names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log, write_eval_log

from normlab.core.errors import InputError
from normlab.core.logs import expand_paths, read_samples

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy" / "losona_v0.eval"


def test_the_same_log_named_twice_counts_once(tmp_path: Path) -> None:
    once = read_samples(expand_paths([LEGACY]))
    twice = read_samples(expand_paths([LEGACY, LEGACY, LEGACY.parent / "." / LEGACY.name]))
    assert len(twice.samples) == len(once.samples) == 12
    copy = tmp_path / "copy.eval"
    shutil.copy(LEGACY, copy)
    both = read_samples([LEGACY, copy])
    assert len(both.samples) == 12
    assert len(both.skipped) == 1 and "12 sample(s)" in both.skipped[0]


def test_a_partial_log_beside_the_finished_one_is_superseded(tmp_path: Path) -> None:
    partial = read_eval_log(str(LEGACY))
    partial.status = "started"
    partial.eval.created = "2099-01-01T00:00:00+00:00"  # newer, but unfinished
    assert partial.samples is not None
    partial.samples = partial.samples[:5]
    path = tmp_path / "partial.eval"
    write_eval_log(partial, str(path))
    result = read_samples([path, LEGACY])
    assert len(result.samples) == 12
    assert all(item.path == LEGACY for item in result.samples)
    assert result.skipped == [f"{path}: 5 sample(s) already read from a finished or newer log"]


def test_nothing_to_read_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no logs or records found"):
        expand_paths([tmp_path])
    with pytest.raises(InputError, match="no such file"):
        expand_paths([tmp_path / "missing.eval"])
    broken = tmp_path / "broken.eval"
    broken.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a readable Inspect log"):
        read_samples([broken])


NOT_LOGS = {
    "notes.txt": (b"hello", "not an Inspect log (those are .eval or .json files)"),
    "other.json": (b'{"a": 1}', "not an Inspect log (eval: Field required)"),
    "empty.json": (b"", "not a readable Inspect log (EOF while parsing a value at line 1"),
    "broken.eval": (b"not a zip", "not a readable Inspect log ("),
}
"""A file that is no log, and the start of the one line that says so (issue 41, item 19: a
JSON file of another shape gave pydantic's dump, lines long, with its input and a link)."""


@pytest.mark.parametrize("name", NOT_LOGS)
def test_a_file_that_is_no_log_is_one_line_that_names_it_once(tmp_path: Path, name: str) -> None:
    content, reason = NOT_LOGS[name]
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(InputError) as raised:
        read_samples([path])
    message = str(raised.value)
    assert message.startswith(f"{path}: {reason}")
    assert "\n" not in message and "\\n" not in message and "pydantic" not in message
    assert message.count(str(tmp_path)) == 1  # the path once, where the error names the file
