"""A seat's eval in a process of its own, and the two pipes between it and the server.

Why a process: Inspect allows one ``eval_async`` at a time in a process ("Multiple concurrent
calls to eval_async are not allowed"), so seats that ran as threads of the server played one
at a time and every other player's seat failed (issue 41: 60 players, 66 seat failures). Each
seat now runs its task in a process of its own, and any number run at once (``Seats`` bounds
them). The process is spawned, not forked: the server holds threads (uvicorn's, the other
seats'), and a fork would copy their locks held by threads that do not exist in the child.

The process sends what the subject would see (``Asked``) and, last, how it ended (``Ended``);
the server sends back the person's reply as text. Each pipe goes one way, so the server's
thread waiting for the next question and a request giving an answer never share one end.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from inspect_ai.model import ChatMessage

from normlab.models import Answerer

STOP_SECONDS = 5.0
"""How long a stopped seat's process has to end before it is killed."""


@dataclass(frozen=True)
class Asked:
    """The subject's turn: what the model would see now."""

    messages: list[ChatMessage]


@dataclass(frozen=True)
class Ended:
    """The task ran to its end (``error`` empty) or failed with ``error``, in one line."""

    error: str = ""


Event = Asked | Ended


class Gone(Exception):
    """The seat's process ended without saying how (killed, out of memory, a crash)."""


class SeatProcess:
    """The server's side: the process, the end it reads events from, the end it answers on."""

    def __init__(self, target: Callable[..., None], *args: Any) -> None:
        context = multiprocessing.get_context("spawn")
        self._events, events_child = context.Pipe(duplex=False)
        answers_child, self._answers = context.Pipe(duplex=False)
        self.process = context.Process(
            target=target, args=(*args, events_child, answers_child), daemon=True
        )
        self._closing = threading.Lock()
        """Held while an answer is sent or the pipes closed: never a send on a closed one."""
        self.process.start()
        # The child holds its own copies now; closing these lets a read here see the end
        # (EOF) when the child dies, rather than wait on a pipe this process still holds.
        events_child.close()
        answers_child.close()

    def next_event(self, timeout: float) -> Event | None:
        """The process's next event, or None when none came within ``timeout`` seconds;
        ``Gone`` when the process ended without an ``Ended``."""
        try:
            if not self._events.poll(timeout):
                return None
            event: Event = self._events.recv()
        except (EOFError, OSError) as error:
            self.process.join(STOP_SECONDS)
            raise Gone(f"exit code {self.process.exitcode}") from error
        return event

    def answer(self, text: str) -> None:
        """Send the person's reply; a process that has just died takes none, and
        ``next_event`` says it is gone (no 500 for the person who answered)."""
        with self._closing, contextlib.suppress(OSError):
            self._answers.send(text)

    def stop(self) -> None:
        """End the process (a seat nobody answers, a server that stops): asked, then killed.
        The pipes stay open for the one thread that reads them to close."""
        self.process.terminate()
        self.process.join(STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(STOP_SECONDS)

    def close(self) -> None:
        """Close the pipes, once, by the thread that reads events (two closes of one file
        descriptor could close another file that took its number in between)."""
        with self._closing:
            self._events.close()
            self._answers.close()


def asking(events: Connection, answers: Connection) -> Answerer:
    """The child's side: an answerer for ``human/<name>`` that sends the question to the
    server and waits (off the event loop) for the person's reply."""

    async def answerer(messages: list[ChatMessage]) -> str:
        events.send(Asked(list(messages)))
        reply: str = await asyncio.to_thread(answers.recv)
        return reply

    return answerer
