"""Where outputs go, checked before the work that fills them.

A run can take hours; a ``--log-dir`` under a file, a read-only ``--report-dir`` or
a typo in ``--out`` should fail in a second with one line naming the path, not at
the end with a traceback. Each check creates the folder (as the writer would) and
writes a nameless temporary file in it: permission bits alone do not say whether a
folder is writable (root ignores them, a read-only mount does not show in them).
"""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

from normlab.core.errors import OutputError


def slug(text: str) -> str:
    """``text`` as a file or folder name: runs of other characters become one ``-``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def _file_in_the_way(path: Path) -> Path | None:
    """The nearest of ``path`` and its parents that exists, if it is not a folder."""
    for candidate in (path, *path.parents):
        if candidate.exists():
            return None if candidate.is_dir() else candidate
    return None


def _writable(folder: Path, path: Path, option: str) -> None:
    """Create ``folder`` if missing and write a nameless file in it; errors name ``path``."""
    blocker = _file_in_the_way(folder)
    if blocker is not None:
        if blocker == path:
            raise OutputError(path, f"{option} names a file, not a folder")
        raise OutputError(path, f"{option}: {blocker} is a file, so nothing can be made under it")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise OutputError(
            path, f"{option}: cannot write here ({error.strerror or error})"
        ) from error


def output_folder(path: Path, option: str) -> Path:
    """Create the folder ``path`` if missing and prove that files can be written in it; an
    :class:`OutputError` naming ``option`` and the reason otherwise."""
    _writable(path, path, option)
    return path


def output_file(path: Path, option: str) -> Path:
    """Check that the file ``path`` can be written: its folder exists (or is created) and is
    writable, and ``path`` is not itself a folder."""
    if path.is_dir():
        raise OutputError(path, f"{option} names a folder, not a file")
    _writable(path.parent, path, option)
    return path
