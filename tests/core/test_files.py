"""Reading a path a user names (issue 32, item 4): regular files only, never more than a set
size, each refused before a byte is read. Every probe here would hang a read for good or grow
memory without end if it reached one, so each refusal is checked structurally: the read that
would misbehave never starts (a FIFO with no writer, ``/dev/zero``, a 1 TiB sparse file)."""

from __future__ import annotations

import io
from functools import partial
from pathlib import Path

import pytest

from normlab.core import files
from normlab.core.errors import InputError
from normlab.core.files import (
    INPUT_LIMIT_ENV,
    input_limit,
    limited_lines,
    read_bytes,
    read_limited,
)
from normlab.core.jsonio import read_json, read_jsonl_rows, read_text
from tests.helpers.hostile import fifo, finishes
from tests.helpers.reads import Reads, count_reads

TIB = 1 << 40


def test_a_fifo_is_refused_at_once(tmp_path: Path) -> None:
    with fifo(tmp_path / "rows.jsonl") as path:
        for read in (read_bytes, read_text, read_json):
            with pytest.raises(InputError, match="not a regular file"):
                finishes(partial(read, path))


def test_a_link_to_a_device_is_refused(tmp_path: Path) -> None:
    for device in ("/dev/zero", "/dev/urandom", "/dev/null"):
        link = tmp_path / f"{Path(device).name}.jsonl"
        link.symlink_to(device)
        with pytest.raises(InputError, match="not a regular file"):
            finishes(partial(read_bytes, link))


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path: Path) -> None:
    """1 TiB (sparse: no disk used): reading it would take hours and all the memory there
    is; its size is enough to refuse it."""
    huge = tmp_path / "huge.jsonl"
    with huge.open("wb") as handle:
        handle.truncate(TIB)
    with pytest.raises(InputError, match=f"holds {TIB:,} bytes, over the 1 GiB normlab reads"):
        finishes(lambda: read_text(huge))
    small = tmp_path / "small.txt"
    small.write_text("x" * 101)
    assert read_bytes(small, 101) == b"x" * 101
    with pytest.raises(InputError, match="holds 101 bytes, over the 100 bytes"):
        read_bytes(small, 100)


def test_a_stream_is_read_no_further_than_the_limit_plus_one() -> None:
    """A file that grows after its size was taken (or a decompressed stream) is cut there."""
    stream = io.BytesIO(b"y" * 1000)
    with pytest.raises(InputError, match="holds more, over the 10 bytes"):
        read_limited(stream, "stream", 10)
    assert stream.tell() == 11
    assert read_limited(io.BytesIO(b"y" * 10), "stream", 10) == b"y" * 10


def test_the_limit_can_be_raised_by_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b"z" * 2048)
    monkeypatch.setenv(INPUT_LIMIT_ENV, "1024")
    with pytest.raises(InputError, match=f"over the 1 KiB .*set {INPUT_LIMIT_ENV}"):
        read_bytes(path)
    monkeypatch.setenv(INPUT_LIMIT_ENV, "4096")
    assert len(read_bytes(path)) == 2048
    for bad in ("lots", "0", "9" * 5000, "-1"):
        monkeypatch.setenv(INPUT_LIMIT_ENV, bad)
        with pytest.raises(InputError, match=f"{INPUT_LIMIT_ENV}: expected whole bytes"):
            input_limit()


def test_a_folder_or_a_missing_file_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="a folder, not a file"):
        read_bytes(tmp_path)
    with pytest.raises(InputError, match="no such file"):
        read_bytes(tmp_path / "nowhere.jsonl")


def test_lines_are_read_one_at_a_time_and_never_past_the_limit() -> None:
    """Issue 32: a large JSONL or corpus was held whole (its bytes, its text, its lines) before
    its first row was parsed; ``limited_lines`` hands out a line at a time, and a line with no
    end (a stream of one endless line) is read no further than the limit plus one byte."""
    stream = Reads(b"one\ntwo\n" + b"x" * 100)
    lines = limited_lines(stream, "s", 50)
    assert next(lines) == b"one\n" and stream.consumed == 4
    assert next(lines) == b"two\n" and stream.consumed == 8
    with pytest.raises(InputError, match="over the 50 bytes"):
        next(lines)
    assert stream.consumed == 51


def test_jsonl_rows_come_as_their_lines_are_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first row of a 2 MB JSONL is parsed after its first line was read, not the file."""
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(f'{{"id": "r{i}", "text": "{"w " * 40}"}}\n' for i in range(20_000)))
    opened = count_reads(monkeypatch, files)
    rows = read_jsonl_rows(path)
    assert next(rows) == (1, {"id": "r0", "text": "w " * 40})
    assert opened[0].consumed < 200 and path.stat().st_size > 2_000_000
    assert sum(1 for _ in rows) == 19_999
