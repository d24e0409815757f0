"""Reading JSON and JSONL with errors that name file, line and field."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from normlab.core.errors import InputError

ModelT = TypeVar("ModelT", bound=BaseModel)


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """A whole text file, or an :class:`InputError` saying why it cannot be read."""
    try:
        return path.read_text(encoding=encoding)
    except OSError as error:
        raise InputError(path, f"cannot read file ({error.strerror})") from error
    except UnicodeDecodeError as error:
        raise InputError(path, f"not UTF-8 text (byte {error.start})") from error


def read_json(path: Path) -> Any:
    """Parse a whole JSON file, turning any failure into an :class:`InputError`."""
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(path, f"invalid JSON: {error.msg}", line=error.lineno) from error


def append_jsonl(path: Path, row: BaseModel | dict[str, Any]) -> None:
    """Append one row and flush, so a crash loses at most the row being written."""
    data = row.model_dump(mode="json") if isinstance(row, BaseModel) else row
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(data, ensure_ascii=False) + "\n")
        handle.flush()


def write_jsonl(path: Path, rows: Iterable[BaseModel | dict[str, Any]]) -> Path:
    """Write rows as JSONL through a temporary file and a rename: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.tmp")
    with temporary.open("w", encoding="utf-8") as handle:
        for row in rows:
            data = row.model_dump(mode="json") if isinstance(row, BaseModel) else row
            handle.write(json.dumps(data, ensure_ascii=False) + "\n")
    temporary.replace(path)
    return path


def read_jsonl_rows(path: Path, limit: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line of a JSONL file (of its first
    ``limit`` lines, if given: what follows may be a line a killed writer left half-written)."""
    lines = read_text(path).splitlines()
    for number, line in enumerate(lines[:limit], start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise InputError(path, f"invalid JSON: {error.msg}", line=number) from error
        if not isinstance(row, dict):
            raise InputError(path, "each line must be a JSON object", line=number)
        yield number, row


def validation_field(error: ValidationError) -> tuple[str, str]:
    """The dotted location and message of the first pydantic error."""
    first = error.errors()[0]
    location = ".".join(str(part) for part in first["loc"])
    return location, first["msg"].removeprefix("Value error, ")


def validate_row(model: type[ModelT], row: Any, path: Path, line: int | None = None) -> ModelT:
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
    if not path.is_file():
        raise InputError(path, "no such file")
    return [path]


ItemT = TypeVar("ItemT")


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
    items: list[ItemT] = []
    seen: dict[str, str] = {}
    for file in jsonl_files(path):
        for line, row in read_jsonl_rows(file):
            item = parse_row(row, file, line)
            ident = id_of(item)
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
        raise InputError(path, f"holds no rows (no {id_field} found)")
    return items


def read_models(path: Path, model: type[ModelT]) -> list[ModelT]:
    """Rows of a JSONL file validated as ``model``; a missing file is an empty list.

    For append-only progress files that a rerun resumes from.
    """
    if not path.exists():
        return []
    return [validate_row(model, row, path, line) for line, row in read_jsonl_rows(path)]
