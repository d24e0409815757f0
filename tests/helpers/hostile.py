"""What a hostile tester hands normlab (issue 32): a FIFO no one writes to, a billion-laughs
YAML file, and a guard that turns a read that would hang for good into a failing test."""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

BILLION_LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)
"""342 bytes whose aliases expand to 9⁹ ≈ 387 million strings (half a billion nodes)."""


def finishes(call: Callable[[], Any], seconds: float = 20) -> Any:
    """``call()`` in a thread: its result, or its exception raised here; a failure (not a hung
    test) if it is still running after ``seconds``, as a read blocked on a FIFO would be."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = call()
        except BaseException as error:  # handed back to the test
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still reading after {seconds} s"
    if "error" in outcome:
        raise outcome["error"]
    return outcome.get("value")


@contextlib.contextmanager
def fifo(path: Path) -> Iterator[Path]:
    """A FIFO at ``path`` with no writer; afterwards opened for writing once, so a reader the
    code under test left blocked on it (the old behaviour) gets its end and its thread ends."""
    os.mkfifo(path)
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):  # no reader left: nothing to release
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
