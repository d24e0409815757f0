"""Data by URL: reading through fsspec, the SHA-256 of the bytes read, one-line errors, hf://."""

from __future__ import annotations

import gzip
import hashlib
import json
from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from fsspec.registry import _registry

from normlab.core.errors import InputError
from normlab.core.files import INPUT_LIMIT_ENV
from normlab.core.sources import (
    DataSource,
    data_note,
    logged_source,
    read_source,
    read_sourced,
    read_url_bytes,
)
from tests.helpers.hostile import fifo, finishes

ROWS = [{"id": "a", "x": 1}, {"id": "b", "x": 2}]


def jsonl(rows: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(row) + "\n" for row in rows).encode()


def read(location: str | Path) -> list[dict[str, Any]]:
    return read_sourced(location, lambda row, where, line: row, lambda row: row["id"], "id").items


@pytest.fixture
def memory() -> Iterator[MemoryFileSystem]:
    filesystem = fsspec.filesystem("memory")
    yield filesystem
    filesystem.rm("/normlab-test", recursive=True) if filesystem.exists("/normlab-test") else None


def test_a_memory_url_is_read_and_hashed(memory: MemoryFileSystem) -> None:
    data = jsonl(ROWS)
    memory.pipe_file("/normlab-test/rows.jsonl", data)
    files, source = read_source("memory://normlab-test/rows.jsonl")
    assert read("memory://normlab-test/rows.jsonl") == ROWS
    assert source.sha256 == hashlib.sha256(data).hexdigest()
    assert [file.sha256 for file in source.files] == [hashlib.sha256(data).hexdigest()]
    assert source.location == "memory://normlab-test/rows.jsonl"
    assert files[0][1] == data


def test_a_folder_url_reads_its_jsonl_in_order_with_one_digest_over_all(
    memory: MemoryFileSystem,
) -> None:
    first, second = jsonl(ROWS[:1]), jsonl(ROWS[1:])
    memory.pipe_file("/normlab-test/set/b.jsonl", second)
    memory.pipe_file("/normlab-test/set/a.jsonl", first)
    memory.pipe_file("/normlab-test/set/README.md", b"# not rows")
    _, source = read_source("memory://normlab-test/set")
    assert [Path(file.location).name for file in source.files] == ["a.jsonl", "b.jsonl"]
    assert source.sha256 == hashlib.sha256(first + second).hexdigest()
    assert read("memory://normlab-test/set") == ROWS


def test_a_json_array_file_is_rows(memory: MemoryFileSystem) -> None:
    memory.pipe_file("/normlab-test/rows.json", json.dumps(ROWS).encode())
    assert read("memory://normlab-test/rows.json") == ROWS


def test_a_file_url_and_a_local_path_hash_the_same_bytes(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_bytes(jsonl(ROWS))
    _, by_url = read_source(path.as_uri())
    _, by_path = read_source(path)
    assert by_url.sha256 == by_path.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    assert read(path.as_uri()) == ROWS
    assert by_path.location == str(path)


def test_a_missing_url_is_one_line_naming_it_without_its_credentials() -> None:
    with pytest.raises(InputError) as caught:
        read("memory://user:hunter22@normlab-test/missing.jsonl")
    message = str(caught.value)
    assert "\n" not in message and "hunter22" not in message
    assert message.startswith("memory://user:***@normlab-test/missing.jsonl: ")
    assert "not found" in message


def test_a_bad_row_at_a_url_names_the_url_line_and_field(memory: MemoryFileSystem) -> None:
    memory.pipe_file("/normlab-test/bad.jsonl", jsonl(ROWS) + b'{"id": "a"}\n')
    with pytest.raises(InputError) as caught:
        read("memory://normlab-test/bad.jsonl")
    assert str(caught.value).startswith("memory://normlab-test/bad.jsonl:3: field 'id'")


def test_an_unknown_protocol_is_one_line() -> None:
    with pytest.raises(InputError, match="no storage library"):
        read("nosuchscheme://bucket/rows.jsonl")


class FakeHub(MemoryFileSystem):  # type: ignore[misc]  # fsspec ships no types
    """huggingface_hub's filesystem stood in for, offline: its own store, protocol ``hf``."""

    protocol = "hf"
    store: dict[str, Any] = {}  # noqa: RUF012 - fsspec's class-level store, one per fake
    pseudo_dirs = [""]  # noqa: RUF012

    @classmethod
    def _strip_protocol(cls, path: str) -> str:
        return "/" + str(path).removeprefix("hf://").strip("/")


@pytest.fixture
def hub() -> Iterator[type[FakeHub]]:
    before = _registry.get("hf")
    fsspec.register_implementation("hf", FakeHub, clobber=True)
    FakeHub.store.clear()
    yield FakeHub
    if before is None:
        _registry.pop("hf", None)
    else:
        _registry["hf"] = before
    FakeHub.clear_instance_cache()


def test_an_hf_url_is_read_through_the_hf_protocol(hub: type[FakeHub]) -> None:
    data = jsonl(ROWS)
    hub().pipe_file("/datasets/Humalike-ai/LoSoNA/data/losona_scenarios.jsonl", data)
    url = "hf://datasets/Humalike-ai/LoSoNA/data/losona_scenarios.jsonl"
    assert read(url) == ROWS
    _, source = read_source(url)
    assert source.location == url
    assert source.sha256 == hashlib.sha256(data).hexdigest()


def test_old_logs_say_the_hash_was_not_recorded() -> None:
    source = DataSource(location="x.jsonl", sha256="ab" * 32, files=[])
    assert logged_source(None) is None
    assert logged_source({"data": "not ours"}) is None
    assert logged_source({"data": source.model_dump()}) == source
    assert data_note({"m": []}) == "Data: data hash: not recorded."
    assert data_note({"m": [source], "n": [source]}) == f"Data: x.jsonl (sha256 {'ab' * 32})."


# --- a path that is no regular file, or one too large (issue 32, item 4) --------------------


def test_a_fifo_or_device_among_a_folders_jsonl_is_refused_unread(tmp_path: Path) -> None:
    """``rglob("*.jsonl")`` lists a FIFO and a link to ``/dev/zero`` like any file: the first
    hung ``build`` for good, the second reached gigabytes. Each is now refused by name."""
    (tmp_path / "a.jsonl").write_bytes(jsonl(ROWS))
    with (
        fifo(tmp_path / "b.jsonl") as path,
        pytest.raises(InputError, match=f"{path}: not a regular file"),
    ):
        finishes(lambda: read_source(tmp_path))
    (tmp_path / "b.jsonl").unlink()
    (tmp_path / "z.jsonl").symlink_to("/dev/zero")
    with pytest.raises(InputError, match=r"z\.jsonl: not a regular file"):
        finishes(lambda: read_source(tmp_path))


def test_a_local_corpus_path_is_a_regular_file_within_the_limit(tmp_path: Path) -> None:
    """``hsii news search --corpus FIFO`` hung in fsspec's open; a local path or ``file://``
    URL is now opened as every local file is."""
    with fifo(tmp_path / "news.fifo.jsonl") as path:
        for location in (str(path), f"file://{path}"):
            with pytest.raises(InputError, match="not a regular file"):
                finishes(partial(read_url_bytes, location, "corpus"))
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    with pytest.raises(InputError, match="not a regular file"):
        finishes(lambda: read_url_bytes(str(zero), "corpus", "--corpus"))
    plain = tmp_path / "news.jsonl"
    plain.write_bytes(jsonl(ROWS))
    packed = tmp_path / "news.jsonl.gz"
    packed.write_bytes(gzip.compress(jsonl(ROWS)))
    assert read_url_bytes(str(plain)) == read_url_bytes(str(packed)) == jsonl(ROWS)
    assert read_url_bytes(f"file://{packed}") == jsonl(ROWS)
    with pytest.raises(InputError, match="corpus not found"):
        read_url_bytes(str(tmp_path / "none.jsonl"), "corpus")


def test_a_compressed_file_is_cut_at_the_limit_once_decompressed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """64 MiB of zeros packs into about 64 KiB: the limit holds for what is decompressed,
    so the read stops one byte past it (1 MiB here) instead of holding the whole."""
    bomb = tmp_path / "bomb.jsonl.gz"
    with gzip.open(bomb, "wb") as handle:
        for _ in range(64):
            handle.write(bytes(1 << 20))
    assert bomb.stat().st_size < 1 << 20
    monkeypatch.setenv(INPUT_LIMIT_ENV, str(1 << 20))
    with pytest.raises(InputError, match="holds more, over the 1 MiB normlab reads"):
        read_url_bytes(str(bomb), "corpus")
