"""A byte stream that counts what is read from it: how a test sees that a file is read a line
at a time, not whole (issue 32, item 4)."""

from __future__ import annotations

import io


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
