"""Where outputs go, checked before the work that fills them.

A run can take hours; a ``--log-dir`` under a file, a read-only ``--report-dir`` or
a typo in ``--out`` should fail in a second with one line naming the path, not at
the end with a traceback. Each check creates the folder (as the writer would) and
writes a nameless temporary file in it: permission bits alone do not say whether a
folder is writable (root ignores them, a read-only mount does not show in them).

A file written at the end (a report) goes through ``replace_file``: a full disk then
leaves the previous file as it was, and says which file could not be written.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TextIO

from normlab.core.errors import FILESYSTEM_ERRNOS, InputError, OutputError


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
    ``OutputError`` naming ``option`` and the reason otherwise."""
    _writable(path, path, option)
    return path


def output_file(path: Path, option: str) -> Path:
    """Check that the file ``path`` can be written: its folder exists (or is created) and is
    writable, and ``path`` is not itself a folder."""
    if path.is_dir():
        raise OutputError(path, f"{option} names a folder, not a file")
    _writable(path.parent, path, option)
    return path


@contextlib.contextmanager
def replacing(path: Path, encoding: str = "utf-8") -> Iterator[TextIO]:
    """A text handle whose content becomes ``path`` when the block ends, in one rename.

    What is written goes to a file of a unique name beside ``path`` (so two writers never
    share it), flushed to disk, then renamed over ``path``: a reader, a second writer or a
    full disk never meets half a file, and a write that fails (a full disk, a quota, an error
    in the block) leaves the previous ``path`` untouched and removes its partial copy. A
    failure to write is an ``OutputError`` naming ``path``, since a write to an open
    file that meets a full disk names none; an error about another file (one the block
    reads) is left as it is. The new file gets the old one's permissions, or the usual ones
    (0666 less the umask) when there was none.
    """
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    ours = {None, str(temporary), str(path), str(path.parent)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(descriptor, "w", encoding=encoding, newline="") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        if path.exists():
            shutil.copymode(path, temporary)
        os.replace(temporary, path)
    except OSError as error:
        with contextlib.suppress(OSError):
            temporary.unlink()
        filename = None if error.filename is None else str(error.filename)
        if filename not in ours or (filename is None and error.errno not in FILESYSTEM_ERRNOS):
            raise
        raise OutputError(path, f"cannot write ({error.strerror or error})") from error
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise


@contextlib.contextmanager
def built_whole(target: Path) -> Iterator[Path]:
    """A scratch path to build ``target`` at (a file or a whole folder, written by code that
    takes a path, such as Inspect's log writer), moved onto ``target`` in one rename when the
    block ends; nothing when it fails. It is built in a hidden ``.FOLDER.partial`` beside
    ``target``'s folder, not in it, so a reader of that folder (a loader globbing its files)
    never meets a half-built one, even after a kill; the partial folder goes once empty."""
    folder = target.parent
    partial = folder.parent / f".{folder.name}.partial"
    folder.mkdir(parents=True, exist_ok=True)
    partial.mkdir(exist_ok=True)
    try:
        with tempfile.TemporaryDirectory(dir=partial) as scratch:
            built = Path(scratch) / target.name
            yield built
            os.replace(built, target)
    finally:
        with contextlib.suppress(OSError):  # not empty: another build is under way
            partial.rmdir()


def replace_file(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` through ``replacing``: all of it, or nothing changed."""
    with replacing(path, encoding) as handle:
        handle.write(text)
    return path


def replace_bytes(path: Path, data: bytes) -> Path:
    """Write ``data`` (a figure) to ``path`` through ``replacing``, as ``replace_file``."""
    with replacing(path) as handle:
        handle.flush()
        handle.buffer.write(data)
    return path


# --- an output is never an input ------------------------------------------------------


def _resolved(path: Path) -> Path:
    """``path`` absolute, its symbolic links followed as far as it exists (``..`` after a
    link is read as the system reads it)."""
    return Path(os.path.realpath(path))


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of ``path``, if it exists: two names for one file (a hard link,
    a bind mount) share them, whatever their paths say."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _is(path: Path, other: Path) -> bool:
    """Whether the resolved ``path`` and ``other`` are one file or folder."""
    if path == other:
        return True
    mine = _identity(path)
    return mine is not None and mine == _identity(other)


def _within(path: Path, folder: Path) -> bool:
    """Whether the resolved ``path`` lies somewhere below the resolved ``folder``."""
    return any(_is(parent, folder) for parent in path.parents)


def apart_from_inputs(
    out: Path,
    inputs: Iterable[Path | None],
    option: str = "--out",
    *,
    also: Iterable[Path] = (),
    whole: bool = False,
) -> None:
    """Refuse, on one line, an output that would write into what the command reads.

    ``out`` is what ``option`` names, ``also`` any other file the command writes beside it (a
    blind export's key file), ``inputs`` the files and folders it reads. Refused: a written
    path that *is* an input (``crsec export RUN --out RUN/events.jsonl`` destroyed the run it
    read), or lies inside an input folder (a key file in a log folder is read back as records
    by the next ``analyze``; a bank written inside the bank it came from is read as part of it);
    and, when ``whole`` (``out`` is a folder whose content the command replaces, or whose new
    files a reader of that folder would take in), an input inside ``out``. Paths are compared
    after resolving relative parts and symbolic links, and as files (device and inode), so a
    second name for an input is caught too. Checked before any work, so nothing is written.
    """
    written = [_resolved(path) for path in (out, *also)]
    for given in inputs:
        if given is None:
            continue
        source = _resolved(given)
        folder = source.is_dir()
        for path in written:
            if _is(path, source):
                kind = "input folder" if folder else "input"
                problem = f"{path} is the {kind} {given}"
            elif folder and _within(path, source):
                problem = f"{path} is inside the input folder {given}"
            elif whole and _within(source, path):
                problem = f"{path} holds the input {given}, and is written whole"
            else:
                continue
            raise InputError(option, f"{problem}, which is only read: write elsewhere")


# --- a folder written whole -----------------------------------------------------------


def replaceable_folder(path: Path, names: Iterable[str], option: str) -> Path:
    """Check that the folder ``path`` may be replaced by one holding only ``names`` (a bank's
    ``dialogues.jsonl`` and ``cases.jsonl``): it is new, empty, or holds nothing else (one
    written so before), and can be written. Anything else in it is a one-line error, since
    ``built_folder`` replaces the folder with all it holds."""
    if not path.exists():
        # Made when the work is done (``built_folder``): a failure before leaves nothing.
        _writable(path.parent, path, option)
        return path
    output_folder(path, option)
    allowed = set(names)
    foreign = sorted(child.name for child in path.iterdir() if child.name not in allowed)
    if foreign:
        shown = ", ".join(foreign[:3]) + (
            f" and {len(foreign) - 3} more" if len(foreign) > 3 else ""
        )
        raise OutputError(
            path,
            f"{option} holds {shown}, which it would lose: the folder is written whole, so "
            "give a new or empty folder (or one this command wrote)",
        )
    return path


@contextlib.contextmanager
def built_folder(target: Path) -> Iterator[Path]:
    """A new folder to fill, which replaces the folder ``target`` (its every file) when the
    block ends, and is removed when it fails: a reader never meets the new files beside stale
    ones (a curated bank's 0 cases beside the old ``dialogues.jsonl``, which ``validate``
    then called clean). Built as a hidden sibling of ``target``, so the last step is a
    rename: the old folder is moved aside, the new one put in its place, the old one deleted
    (a kill between the two renames leaves the old folder, whole, in the hidden
    ``.NAME.old-…`` beside). ``target`` is resolved first: a link to a folder keeps pointing
    at the new one. Check it with ``replaceable_folder`` before the work."""
    target = _resolved(target)
    tag = uuid.uuid4().hex[:12]
    scratch = target.with_name(f".{target.name}.{tag}.partial")
    old = target.with_name(f".{target.name}.old-{tag}")
    try:
        scratch.mkdir(parents=True)
    except OSError as error:
        raise OutputError(target, f"cannot write ({error.strerror or error})") from error
    try:
        yield scratch
        moved = False
        try:
            if target.exists():
                shutil.copymode(target, scratch)
                os.replace(target, old)
                moved = True
            os.replace(scratch, target)
        except OSError as error:
            if moved:
                os.replace(old, target)  # the old folder back, as it was
            raise OutputError(target, f"cannot write ({error.strerror or error})") from error
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if target.exists():  # else the old folder is all there is: it stays
            shutil.rmtree(old, ignore_errors=True)
