"""A byte stream that counts what is read from it: how a test sees that a file is read a line
at a time, not whole (issue 32, item 4)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

import pytest


class Reads(io.BytesIO):
    """A byte stream that counts what its readers took."""

    consumed = 0

    def read(self, size: int | None = -1, /) -> bytes:
        data = super().read(size)
        self.consumed += len(data)
        return data

    def readline(self, size: int | None = -1, /) -> bytes:
        data = super().readline(size)
        self.consumed += len(data)
        return data


def count_reads(monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> list[Reads]:
    """Every file ``module`` opens through ``open_regular`` from now on, as a ``Reads`` (what
    its readers took, counted), in the order opened."""
    opened: list[Reads] = []

    @contextmanager
    def counted(file: Path, limit: int | None = None) -> Iterator[Reads]:
        opened.append(Reads(file.read_bytes()))
        yield opened[-1]

    monkeypatch.setattr(module, "open_regular", counted)
    return opened
