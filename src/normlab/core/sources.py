"""Data by location: scenarios and cases read from a local path or any fsspec URL, and hashed.

A run's numbers mean something only for the data it measured, and a name does not say which
data that was: ``data/scenarios.jsonl`` changes between releases, and
``hf://datasets/Humalike-ai/LoSoNA/…`` changes when its authors push. So every data file a
task reads is read here, once, as bytes: hashed (SHA-256 per file, and one digest over the
bytes of all files in order, what ``cat FILES | sha256sum`` prints), then decoded and parsed
by ``normlab.core.jsonio`` as a local file would be. The task records the
``DataSource`` in its metadata (``DATA_KEY``), so the log, the analysis and the
report can say exactly which bytes were measured.

A location is a local path (a file, or a folder of ``*.jsonl``) or any URL fsspec knows:
``memory://``, ``file://``, ``s3://`` (with s3fs), ``hf://datasets/OWNER/NAME/PATH`` (through
huggingface_hub's filesystem). Credentials come from each library's own settings; a URL is
recorded and named in errors only as [`redact_url`][normlab.core.redact_url] writes it.
"""

from __future__ import annotations

import hashlib
import lzma
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, BinaryIO, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from normlab.core.errors import InputError
from normlab.core.files import (
    input_limit,
    limited_lines,
    open_regular,
    read_bytes,
    read_limited,
)
from normlab.core.jsonio import collect_rows, decode_text, document_rows, jsonl_files
from normlab.core.logs import subject_of
from normlab.core.secrets import redact_text, redact_url
from normlab.core.storage import url_scheme

if TYPE_CHECKING:
    from normlab.core.logs import SampleSet

ItemT = TypeVar("ItemT")

DATA_KEY = "data"
"""The task metadata key holding the ``DataSource`` a run read."""
DATA_SUFFIX = ".jsonl"
"""What a folder's data files end with; a folder on a hub also holds a README and its
settings, which are no rows."""


class DataFile(BaseModel):
    """One file read: where (credentials redacted), its SHA-256 and its size in bytes."""

    location: str
    sha256: str
    size: int


class DataSource(BaseModel):
    """The data a run read: the location as given (redacted), the digest over all its files'
    bytes in order, and each file."""

    location: str
    sha256: str
    files: list[DataFile]

    def describe(self) -> str:
        """One line for a report: location, digest, and the file count when more than one."""
        count = f", {len(self.files)} files" if len(self.files) > 1 else ""
        return f"{self.location} (sha256 {self.sha256}{count})"


@dataclass(frozen=True)
class Sourced(Generic[ItemT]):
    """Rows read from a location, with the ``DataSource`` that says which bytes."""

    items: list[ItemT]
    source: DataSource


def is_url(location: str | Path) -> bool:
    """Whether ``location`` is a URL (``SCHEME://…``, ``file://`` included), not a path."""
    return url_scheme(location) is not None


def _reason(error: Exception) -> str:
    """An exception as one line, with any URL or secret in its text redacted."""
    return redact_text(f"{type(error).__name__}: {error}")


@contextmanager
def _opened(url: str, what: str, field: str | None) -> Iterator[BinaryIO]:
    """The file at ``url`` or local path, opened for reading and decompressed as its suffix
    says (``.jsonl.gz``); a local path must be a regular file (``open_regular``: a FIFO would
    hang the read, a device never end). Every failure to open or read it, in the block too,
    is an [`InputError`][normlab.core.InputError] naming the redacted URL; the block must
    raise none of its own (``read_url_lines`` keeps its reader's errors out of it)."""
    import fsspec
    from fsspec.compression import compr
    from fsspec.implementations.local import LocalFileSystem
    from fsspec.utils import infer_compression

    shown = redact_url(url)
    try:
        if url_scheme(url) in (None, "file"):
            compression = infer_compression(url)
            with open_regular(Path(LocalFileSystem._strip_protocol(url)), input_limit()) as raw:
                if compression is None:
                    yield raw
                else:
                    with compr[compression](raw, mode="rb") as handle:
                        yield handle
        else:
            with fsspec.open(url, "rb", compression="infer") as handle:
                yield handle
    except InputError as error:
        if error.problem == "no such file":
            raise InputError(shown, f"{what} not found", field=field) from error
        raise InputError(shown, error.problem, field=field) from error
    except FileNotFoundError as error:
        raise InputError(shown, f"{what} not found", field=field) from error
    except (OSError, EOFError, ValueError, ImportError, lzma.LZMAError) as error:
        raise InputError(shown, f"cannot read the {what}: {_reason(error)}", field=field) from error


def read_url_bytes(url: str, what: str = "file", field: str | None = None) -> bytes:
    """The bytes of one file at ``url`` or local path (``_opened``), at most ``input_limit``
    of them once decompressed; every failure an [`InputError`][normlab.core.InputError]
    naming the redacted URL."""
    limit = input_limit()
    with _opened(url, what, field) as handle:
        return read_limited(handle, redact_url(url), limit)


def read_url_lines(url: str, what: str = "file", field: str | None = None) -> Iterator[bytes]:
    """The lines of one file at ``url`` or local path (``_opened``), each with its line
    break, read as they are asked for: a corpus of hundreds of megabytes is never held whole
    (its bytes, its text and its list of lines were, all at once). At most ``input_limit``
    bytes in all, and no line is read past it (a file of one endless line is cut there and
    refused). A generator, so an error its reader raises between lines (a bad row) never
    passes through the file's own error handling."""
    with _opened(url, what, field) as handle:
        yield from limited_lines(handle, redact_url(url), input_limit())


def _url_files(url: str) -> list[str]:
    """The file at ``url``, or every ``*.jsonl`` below the folder it names (sorted)."""
    shown = redact_url(url)
    try:
        from fsspec.core import url_to_fs

        filesystem, root = url_to_fs(url)
    except (ImportError, ValueError) as error:
        raise InputError(shown, f"no storage library for this URL ({_reason(error)})") from error
    try:
        if not filesystem.isdir(root):
            return [url]
        found = sorted(filesystem.find(root))
    except Exception as error:  # each storage library raises its own types
        raise InputError(shown, f"cannot list ({_reason(error)})") from error
    names = [name for name in found if PurePosixPath(name).name.endswith(DATA_SUFFIX)]
    if not names:
        raise InputError(shown, f"no *{DATA_SUFFIX} files found in folder")
    return [filesystem.unstrip_protocol(name) for name in names]


def read_source(location: str | Path) -> tuple[list[tuple[str | Path, bytes]], DataSource]:
    """Every data file at ``location`` as ``(where, bytes)``, and the ``DataSource``
    hashing them; ``where`` is the path, or the redacted URL, that errors name."""
    if is_url(str(location)):
        files: list[tuple[str | Path, bytes]] = [
            (redact_url(name), read_url_bytes(name)) for name in _url_files(str(location))
        ]
        shown = redact_url(str(location))
    else:
        path = Path(location)
        # Regular files only, each within the input limit: a FIFO or a link to /dev/zero
        # among a folder's *.jsonl is refused before a byte is read.
        files = [(file, read_bytes(file)) for file in jsonl_files(path)]
        shown = str(path)
    total = hashlib.sha256()
    records = []
    for where, data in files:
        total.update(data)
        records.append(
            DataFile(location=str(where), sha256=hashlib.sha256(data).hexdigest(), size=len(data))
        )
    return files, DataSource(location=shown, sha256=total.hexdigest(), files=records)


def read_sourced(
    location: str | Path,
    parse_row: Callable[[dict[str, Any], str | Path, int], ItemT],
    id_of: Callable[[ItemT], str],
    id_field: str,
) -> Sourced[ItemT]:
    """[`read_collection`][normlab.core.read_collection] of a path or URL, with its data's hash."""
    files, source = read_source(location)
    rows = (
        (where, document_rows(decode_text(data, where, "utf-8-sig"), where))
        for where, data in files
    )
    return Sourced(collect_rows(rows, source.location, parse_row, id_of, id_field), source)


def logged_source(metadata: Mapping[str, Any] | None) -> DataSource | None:
    """The ``DataSource`` a task recorded in its metadata; ``None`` for a log written
    before data was hashed (or one whose record is not ours)."""
    value = (metadata or {}).get(DATA_KEY)
    if not isinstance(value, dict):
        return None
    try:
        return DataSource.model_validate(value)
    except ValidationError:
        return None


def data_by_run(samples: SampleSet) -> dict[str, list[DataSource]]:
    """Per subject (as [`usage_by_run`][normlab.models.usage_by_run] keys it): the distinct data its
    logs recorded, in the order read; an empty list where none was recorded."""
    found: dict[str, list[DataSource]] = {}
    for log in samples.logs:
        sources = found.setdefault(subject_of(log), [])
        source = logged_source(log.eval.metadata)
        if source is not None and source not in sources:
            sources.append(source)
    return dict(sorted(found.items()))


def data_note(data: Mapping[str, Iterable[DataSource]]) -> str:
    """The report's line on the data measured: each distinct source once, and "data hash: not
    recorded" for runs whose logs predate hashing (or when nothing says)."""
    described: list[str] = []
    unrecorded = not data
    for sources in data.values():
        listed = list(sources)
        unrecorded = unrecorded or not listed
        described += [s.describe() for s in listed if s.describe() not in described]
    if unrecorded:
        described.append("data hash: not recorded")
    return f"Data: {'; '.join(described)}."
