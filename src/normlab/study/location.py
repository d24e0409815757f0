"""A study's files where its ``out`` says: a local folder or object storage (``s3://…``).

Cells' logs are written by each system's own run, which already takes a URL (Inspect writes
there; normlab reads a local mirror, ``normlab.core.storage``). What a study itself writes
(``plan.json``, each cell's ``cell.json``) and reads back goes through these few functions, so
the rest of the package never asks which kind of place it writes to.
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.jsonio import read_text as read_file
from normlab.core.outputs import replace_file
from normlab.core.storage import get_text, pull, put_text, within


def write_text(folder: Path | str, name: str, text: str) -> str:
    """``FOLDER/NAME`` written whole or not at all; where it went."""
    if isinstance(folder, Path):
        folder.mkdir(parents=True, exist_ok=True)
        return str(replace_file(folder / name, text))
    target = str(within(folder, name))
    put_text(target, text)
    return target


def read_text(folder: Path | str, name: str) -> str | None:
    """``FOLDER/NAME``'s text, or None when it is not there."""
    if isinstance(folder, Path):
        path = folder / name
        # Read as every local file is (a regular file, within the input limit, UTF-8).
        return read_file(path) if path.is_file() else None
    return get_text(str(within(folder, name)))


def local_logs(folder: Path | str, pattern: str = "*.eval") -> Path | None:
    """A local folder holding the cell's logs (files matching ``pattern``; a remote folder's
    mirror, fetched now), or None when the cell has written none yet."""
    if isinstance(folder, Path):
        return folder if folder.is_dir() and any(folder.rglob(pattern)) else None
    try:
        local = pull(folder)
    except InputError:  # nothing under the URL yet
        return None
    return local if any(local.rglob(pattern)) else None
