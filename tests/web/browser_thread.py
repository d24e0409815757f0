"""Playwright's sync API on a thread of its own, so the tests' thread keeps no event loop.

Playwright's sync API runs an asyncio loop in the thread that starts it and marks that loop as
running between its calls, for as long as Playwright lives. Started in pytest's thread by the
session's browser fixture, it made every later test in the process that runs an eval (Inspect's
``asyncio.run``) fail with "Runner.run() cannot be called from a running event loop". Here
Playwright lives on one worker thread, and the tests hold proxies: every attribute read and
call of a Playwright object runs on that thread, and what comes back that is a Playwright object
is handed out as a proxy again. Callbacks given to Playwright (``page.on("dialog", ...)``) run
on its thread, with Playwright's own objects.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

PLAYWRIGHT_MODULE = "playwright."
"""Objects whose class lives under this module are Playwright's, to be used on its thread."""


class PlaywrightThread:
    """The one thread Playwright's sync API is started, used and stopped on."""

    def __init__(self) -> None:
        # One worker: greenlets, and so Playwright's sync objects, belong to one thread.
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")

    def call(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` on Playwright's thread; proxies in, proxies out."""
        args = tuple(_unwrap(arg) for arg in args)
        kwargs = {name: _unwrap(value) for name, value in kwargs.items()}
        return self.wrap(self._executor.submit(function, *args, **kwargs).result())

    def wrap(self, value: Any) -> Any:
        """A Playwright object (or a list of them) as a proxy; anything else as it is."""
        if isinstance(value, list):
            return [self.wrap(item) for item in value]
        if type(value).__module__.startswith(PLAYWRIGHT_MODULE):
            return OnPlaywrightThread(value, self)
        return value

    def close(self) -> None:
        self._executor.shutdown(wait=True)


class OnPlaywrightThread:
    """A Playwright object held by another thread: reads and calls go to Playwright's thread.

    Attributes set on the proxy itself (a fixture's ``page.dialogs``) stay on the proxy."""

    def __init__(self, target: Any, thread: PlaywrightThread) -> None:
        object.__setattr__(self, "_target", target)
        object.__setattr__(self, "_thread", thread)

    def __getattr__(self, name: str) -> Any:
        thread: PlaywrightThread = object.__getattribute__(self, "_thread")
        value = thread.call(getattr, object.__getattribute__(self, "_target"), name)
        if isinstance(value, OnPlaywrightThread) or not callable(value):
            return value

        def on_thread(*args: Any, **kwargs: Any) -> Any:
            return thread.call(value, *args, **kwargs)

        return on_thread

    def __setattr__(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"OnPlaywrightThread({object.__getattribute__(self, '_target')!r})"


def _unwrap(value: Any) -> Any:
    if isinstance(value, OnPlaywrightThread):
        return object.__getattribute__(value, "_target")
    return value
