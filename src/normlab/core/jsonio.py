"""Reading JSON and JSONL with errors that name file, line and field (YAML: ``yamlio``).

Every file a user hands normlab is read here, so whatever bytes are on disk the
only error that comes out is an [`InputError`][normlab.core.InputError]: bytes
that are not UTF-8 (with the line of the first bad byte), JSON too deeply nested
for Python's parser, integers longer than Python will convert, a key given twice
in one object, and ``\\ud800``-style escapes that decode to a lone surrogate, which is
not text (printing or encoding it later would crash far from the file).
"""

from __future__ import annotations

import itertools
import json
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, RootModel, ValidationError

from normlab.core.errors import InputError, printable
from normlab.core.files import read_bytes, read_lines
from normlab.core.outputs import replacing

ModelT = TypeVar("ModelT", bound=BaseModel)

MAX_DEPTH = 100
"""Nesting deeper than any normlab file needs; deeper input would reach Python's recursion limit
in the parser, in pydantic or in ``json.dumps`` later on."""
MAX_VALUES = 2_000_000
"""Values one document may expand to (YAML aliases can make a small file expand to billions)."""
TOO_MANY_DIGITS = f"a number has more than {sys.get_int_max_str_digits()} digits"
"""Python refuses to convert longer integers (a guard against quadratic-time parsing)."""
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape in the surrogate range: the only way JSON text can hold a lone surrogate."""


def read_text(path: Path, encoding: str = "utf-8", limit: int | None = None) -> str:
    """A whole text file, or an [`InputError`][normlab.core.InputError] saying why it cannot be
    read: not a regular file, over ``limit`` bytes (``normlab.core.files.read_bytes``), or bytes
    that are not UTF-8 (the line of the first bad byte, so it can be found)."""
    return decode_text(read_bytes(path, limit), path, encoding)


def check_regular(path: Path) -> None:
    """An [`InputError`][normlab.core.InputError] for a path that exists but is no regular file or
    folder: a FIFO would block the read forever, a device never end."""
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # missing or unreadable: the read says why
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise InputError(path, "not a regular file (a FIFO, socket or device cannot be read)")


def decode_text(data: bytes, path: str | Path, encoding: str = "utf-8") -> str:
    """The bytes of ``path`` as text, or an [`InputError`][normlab.core.InputError] at the line of
    the first byte that is not UTF-8."""
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        decoded = error.object  # with ``utf-8-sig`` the codec sees the bytes after the BOM
        line = decoded.count(b"\n", 0, error.start) + 1
        raise InputError(
            path, f"not UTF-8 text (byte 0x{decoded[error.start]:02x} cannot be decoded)", line=line
        ) from error


def is_text(value: str) -> bool:
    """Whether ``value`` can be written as UTF-8 (it holds no lone surrogate)."""
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _child(where: str, key: object) -> str:
    return f"{where}.{key}" if where else str(key)


def check_value(value: Any, path: str | Path, line: int | None = None) -> None:
    """Reject a parsed document nested deeper than ``MAX_DEPTH``, larger than
    ``MAX_VALUES``, or holding a string that is not text; the error names the field."""
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    visited = 0
    while stack:
        item, where, depth = stack.pop()
        visited += 1
        if visited > MAX_VALUES:
            raise InputError(path, f"holds more than {MAX_VALUES} values", line=line)
        if isinstance(item, str):
            if not is_text(item):
                raise InputError(
                    path,
                    "holds a lone surrogate escape (\\ud800-\\udfff without its pair): not text",
                    line=line,
                    field=printable(where) or None,
                )
            continue
        if isinstance(item, dict):
            children: Iterable[tuple[Any, Any]] = item.items()
        elif isinstance(item, list | tuple):
            children = enumerate(item)
        else:
            continue
        if depth >= MAX_DEPTH:
            raise InputError(path, f"nested more than {MAX_DEPTH} levels deep", line=line)
        for key, child in children:
            if isinstance(key, str) and not is_text(key):
                raise InputError(
                    path,
                    "a key holds a lone surrogate escape (\\ud800-\\udfff without its pair): "
                    "not text",
                    line=line,
                    field=printable(_child(where, key)),
                )
            stack.append((child, _child(where, key), depth + 1))


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads`` keeps the last of two equal keys silently; a file that says a field twice
    (``"complies": true, "complies": false``) is ambiguous, so it is an error."""
    result = dict(pairs)
    if len(result) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return result


def parse_json(text: str, path: str | Path, line: int | None = None) -> Any:
    """One JSON document (a whole file, or line ``line`` of a JSONL file), checked with
    ``check_value``; every failure is an [`InputError`][normlab.core.InputError]."""
    try:
        value = json.loads(text, object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as error:
        at = error.lineno if line is None else line
        raise InputError(path, f"invalid JSON: {error.msg}", line=at) from error
    except _DuplicateKey as error:
        raise InputError(
            path, "key appears twice in one object", line=line, field=printable(error.key)
        ) from error
    except RecursionError as error:
        raise InputError(path, f"nested more than {MAX_DEPTH} levels deep", line=line) from error
    except ValueError as error:  # only Python's limit on digits in an integer is left
        raise InputError(path, TOO_MANY_DIGITS, line=line) from error
    if _SURROGATE_ESCAPE.search(text) or text.count("[") + text.count("{") > MAX_DEPTH:
        check_value(value, path, line)
    return value


def read_json(path: Path) -> Any:
    """Parse a whole JSON file (a byte-order mark is allowed), turning any failure into an
    [`InputError`][normlab.core.InputError]; an empty file is one."""
    text = read_text(path, "utf-8-sig")
    if not text.strip():
        raise InputError(path, "empty file")
    return parse_json(text, path)


def jsonl_line(row: BaseModel | dict[str, Any]) -> str:
    """One row as a JSONL line (a model as its JSON dump, text unescaped), with its ``\\n``."""
    data = row.model_dump(mode="json") if isinstance(row, BaseModel) else row
    return json.dumps(data, ensure_ascii=False) + "\n"


def append_jsonl(path: Path, row: BaseModel | dict[str, Any]) -> None:
    """Append one row and flush, so a crash loses at most the row being written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(jsonl_line(row))
        handle.flush()


def write_jsonl(path: Path, rows: Iterable[BaseModel | dict[str, Any]]) -> Path:
    """Write rows as JSONL through a temporary file and a rename: never a half-written file,
    and a full disk is an error naming ``path`` (``normlab.core.outputs.replacing``). The rows
    are written as they are iterated, so a generator's are never all held at once."""
    with replacing(path) as handle:
        for row in rows:
            handle.write(jsonl_line(row))
    return path


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSONL text: split at ``\\n`` only (``str.splitlines`` would also split at
    U+2028 and other separators that JSON strings may hold unescaped)."""
    return text.split("\n")


def read_jsonl_rows(path: Path, limit: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (of its first
    ``limit`` lines, if given: what follows may be a line a killed writer left half-written).
    Read a line at a time, so a large file is never held whole (its bytes, its text and its
    list of lines were, all at once)."""
    yield from line_rows(decoded_lines(itertools.islice(read_lines(path), limit), path), path)


def text_rows(
    text: str, where: str | Path, limit: int | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """[`read_jsonl_rows`][normlab.core.read_jsonl_rows] of a text already read (from a URL, or
    hashed first)."""
    yield from line_rows(jsonl_lines(text)[:limit], where)


def decoded_lines(lines: Iterable[bytes], where: str | Path) -> Iterator[str]:
    """Each line of a file read line by line, as UTF-8 text (a byte-order mark at its start
    dropped, as ``utf-8-sig`` does); a byte that is not UTF-8 is an error at its line, as
    ``decode_text`` says it of a whole file."""
    for number, data in enumerate(lines, start=1):
        try:
            yield data.decode("utf-8-sig" if number == 1 else "utf-8")
        except UnicodeDecodeError as error:
            raise InputError(
                where,
                f"not UTF-8 text (byte 0x{error.object[error.start]:02x} cannot be decoded)",
                line=number,
            ) from error


def line_rows(lines: Iterable[str], where: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``text_rows`` of lines read one at a time (``decoded_lines``), so a large file is
    parsed as it is read, never held whole."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        row = parse_json(line, where, number)
        if not isinstance(row, dict):
            raise InputError(where, "each line must be a JSON object", line=number)
        yield number, row


def document_rows(text: str, where: str | Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of a data file: JSONL, or one JSON array of objects (a ``.json`` export, as
    dataset hubs often publish), whose rows are numbered by position, not line. Only a
    ``.json`` file that opens with ``[`` is an array (no JSONL row can open so); a ``.jsonl``
    file is always lines, so its errors keep their line numbers."""
    if not (str(where).endswith(".json") and text.lstrip().startswith("[")):
        yield from text_rows(text, where)
        return
    rows = parse_json(text, where)
    for number, row in enumerate(rows, start=1):
        if not isinstance(row, dict):
            raise InputError(where, f"item {number} of the array is not a JSON object")
        yield number, row


def validation_field(error: ValidationError) -> tuple[str, str]:
    """The dotted location and message of the first pydantic error."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    return location, first["msg"].removeprefix("Value error, ")


def validate_row(
    model: type[ModelT], row: Any, path: str | Path, line: int | None = None
) -> ModelT:
    """Validate one row against a pydantic model, reporting the first bad field."""
    try:
        return model.model_validate(row)
    except ValidationError as error:
        location, message = validation_field(error)
        raise InputError(path, message, line=line, field=location or None) from error


def jsonl_files(path: Path) -> list[Path]:
    """``path`` itself, or every ``*.jsonl`` below a folder (sorted); no files is an error."""
    if path.is_dir():
        found = sorted(path.rglob("*.jsonl"))
        if not found:
            raise InputError(path, "no *.jsonl files found in folder")
        return found
    check_regular(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    return [path]


ItemT = TypeVar("ItemT")
WhereT = TypeVar("WhereT", str, Path, str | Path)
"""How a file is named in errors: a local path, or a (redacted) URL."""


def read_collection(
    path: Path,
    parse_row: Callable[[dict[str, Any], Path, int], ItemT],
    id_of: Callable[[ItemT], str],
    id_field: str,
) -> list[ItemT]:
    """Every row of a JSONL file or folder, parsed, with ids unique across all its files.

    The one loader shape every system's data files share (scenarios, cases, trial
    records): errors name file, line and field; an empty input is an error, never
    an empty result.
    """
    files = ((file, file_rows(file)) for file in jsonl_files(path))
    return collect_rows(files, path, parse_row, id_of, id_field)


def file_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows of one data file (``document_rows``): a ``.json`` file read whole (it may be
    one array), any other a line at a time (``read_jsonl_rows``)."""
    if path.suffix == ".json":
        return document_rows(read_text(path, "utf-8-sig"), path)
    return read_jsonl_rows(path)


def collect_rows(
    files: Iterable[tuple[WhereT, Iterable[tuple[int, dict[str, Any]]]]],
    location: str | Path,
    parse_row: Callable[[dict[str, Any], WhereT, int], ItemT],
    id_of: Callable[[ItemT], str],
    id_field: str,
) -> list[ItemT]:
    """[`read_collection`][normlab.core.read_collection] of files' rows, each ``(where,
    rows)``: local files read a line at a time, or files fetched from a URL
    (``normlab.core.sources``), checked the same way."""
    items: list[ItemT] = []
    seen: dict[str, str] = {}
    for file, rows in files:
        for line, row in rows:
            item = parse_row(row, file, line)
            ident = id_of(item)
            if not ident.strip():
                raise InputError(file, f"{id_field} is blank", line=line, field=id_field)
            if ident in seen:
                raise InputError(
                    file,
                    f"duplicate {id_field} {ident!r} (first at {seen[ident]})",
                    line=line,
                    field=id_field,
                )
            seen[ident] = f"{file}:{line}"
            items.append(item)
    if not items:
        raise InputError(location, f"holds no rows (no {id_field} found)")
    return items


def read_json_list(path: Path, model: type[ModelT]) -> list[ModelT]:
    """A JSON file holding one list of ``model`` rows (a taxonomy's events, its norms); errors
    name the file and the first bad field (``3.statement``)."""
    rows = validate_row(RootModel[list[model]], read_json(path), path)  # type: ignore[valid-type]
    return list(rows.root)


def read_models(path: Path, model: type[ModelT]) -> list[ModelT]:
    """Rows of a JSONL file validated as ``model``; a missing file is an empty list.

    For append-only progress files that a rerun resumes from.
    """
    if not path.exists():
        return []
    return [validate_row(model, row, path, line) for line, row in read_jsonl_rows(path)]
