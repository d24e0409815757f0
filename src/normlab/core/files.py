"""Opening the files a user names: regular files only, and never more than a set size.

Every byte normlab reads from a path someone handed it (a data file, a study file, a filled
CSV, a report served by the web app) comes through ``read_bytes`` or
``open_regular``, because a path can name things that are not files: a FIFO blocks a read
until some writer comes (a request, a build, a search hung for good), ``/dev/zero`` or
``/dev/urandom`` never end (a server grew to gigabytes in seconds), and a regular file can be
larger than any input normlab means to hold. So the path is opened without blocking and the
*open descriptor* is checked (a check of the path before opening could be raced by a rename),
and its size is compared with the limit before a byte is read. A file that grows while it is
read is cut at the limit plus one byte and refused, so memory stays bounded by the limit
whatever the file does.

The limit is ``MAX_INPUT_BYTES`` unless ``NORMLAB_MAX_INPUT_BYTES`` says otherwise (a
corpus larger than a gigabyte is possible; the error says how to allow it). Readers of inputs
that are always small (a study file, a YAML document) pass a smaller limit of their own.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from normlab.core.errors import InputError

MAX_INPUT_BYTES = 1 << 30
"""1 GiB: the most normlab reads of one file unless ``INPUT_LIMIT_ENV`` allows more."""
INPUT_LIMIT_ENV = "NORMLAB_MAX_INPUT_BYTES"
NOT_REGULAR = "not a regular file (a FIFO, socket or device cannot be read)"


def input_limit() -> int:
    """The bytes one input file may hold: ``NORMLAB_MAX_INPUT_BYTES`` (whole bytes ≥ 1) or
    ``MAX_INPUT_BYTES``."""
    text = os.environ.get(INPUT_LIMIT_ENV, "").strip()
    if not text:
        return MAX_INPUT_BYTES
    # Checked as digits first: int() refuses (with a traceback) past 4,300 of them.
    if not (text.isascii() and text.isdigit()) or len(text) > 19 or int(text) < 1:
        raise InputError(INPUT_LIMIT_ENV, f"expected whole bytes ≥ 1, got {text[:40]!r}")
    return int(text)


def _size(count: int) -> str:
    """A byte count as people read it: ``1 GiB``, ``10 MiB``, ``512 bytes``."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            value = count / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{count} bytes"


def too_large(where: str | Path, size: int | None, limit: int) -> InputError:
    """The one-line refusal of a file over ``limit`` (``size`` when known)."""
    held = f"holds {size:,} bytes" if size is not None else "holds more"
    hint = f" (set {INPUT_LIMIT_ENV} to allow more)" if limit == input_limit() else ""
    return InputError(where, f"{held}, over the {_size(limit)} normlab reads of one file{hint}")


@contextmanager
def open_regular(path: Path, limit: int | None = None) -> Iterator[BinaryIO]:
    """``path`` opened for reading if it is a regular file of at most ``limit`` bytes
    (``input_limit`` by default); an [`InputError`][normlab.core.InputError] otherwise, before any
    byte is read. Opened with ``O_NONBLOCK`` so that opening a FIFO returns at once, then checked on
    the descriptor itself."""
    limit = input_limit() if limit is None else limit
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError as error:
        raise InputError(path, "no such file") from error
    except OSError as error:
        raise InputError(path, f"cannot read file ({error.strerror or error})") from error
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(path, "a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise InputError(path, NOT_REGULAR)
        if info.st_size > limit:
            raise too_large(path, info.st_size, limit)
        os.set_blocking(fd, True)
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with handle:
        yield handle


def read_limited(handle: BinaryIO, where: str | Path, limit: int) -> bytes:
    """At most ``limit`` bytes of ``handle``; an [`InputError`][normlab.core.InputError] if it holds
    more (read up to ``limit + 1`` bytes to find out, never further)."""
    try:
        data = handle.read(limit + 1)
    except OSError as error:
        raise InputError(where, f"cannot read file ({error.strerror or error})") from error
    if len(data) > limit:
        raise too_large(where, None, limit)
    return data


def read_bytes(path: Path, limit: int | None = None) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (see the module
    docstring); every failure an [`InputError`][normlab.core.InputError] naming the path."""
    limit = input_limit() if limit is None else limit
    with open_regular(path, limit) as handle:
        return read_limited(handle, path, limit)


def limited_lines(handle: BinaryIO, where: str | Path, limit: int) -> Iterator[bytes]:
    """The lines of ``handle``, each with its line break, read as they are asked for (a large
    file is never held whole), at most ``limit`` bytes in all: no line is read past the limit
    (a file of one endless line is cut there), and one byte more is an
    [`InputError`][normlab.core.InputError]."""
    read = 0
    while True:
        try:
            line = handle.readline(limit - read + 1)
        except OSError as error:
            raise InputError(where, f"cannot read file ({error.strerror or error})") from error
        if not line:
            return
        read += len(line)
        if read > limit:
            raise too_large(where, None, limit)
        yield line


def read_lines(path: Path, limit: int | None = None) -> Iterator[bytes]:
    """The lines of the regular file ``path`` (``open_regular``), as ``limited_lines`` reads
    them; a generator, so nothing is opened until the first line is asked for."""
    limit = input_limit() if limit is None else limit
    with open_regular(path, limit) as handle:
        yield from limited_lines(handle, path, limit)
