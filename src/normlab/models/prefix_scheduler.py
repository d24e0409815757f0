"""Order requests so that prompts sharing a prefix run back to back.

llama.cpp reuses the evaluated prefix of a slot's previous prompt (and restores
older prompts from its RAM cache), so throughput on a CPU depends on order:
the K epochs of a sample send the identical prompt K times, and the judge calls
for one scenario share everything up to the judged message. Inspect, however,
interleaves samples. This scheduler admits at most ``slots`` requests to the
server at a time; whenever a slot frees up, it starts the waiting request whose
prompt shares the longest prefix with the prompt that slot just finished
(ties: the longest-waiting request), instead of first-come first-served.

A slot can never leak, whatever is cancelled when (Inspect cancels a request
after its attempt timeout, a sample limit or Ctrl-C cancels whole samples):

- every change of state is synchronous (no lock, no ``await`` on the way out),
  so a cancellation delivered again and again by an anyio cancel scope cannot
  interrupt a release half-way;
- a request cancelled while it waits leaves the queue, and if a slot was handed
  to it in the same instant, gives that slot straight to the next request;
- a job runs as a task of its own that frees its slot when it finishes: the
  caller may stop waiting for it (cancelled, or past ``timeout``), but the
  llama.cpp call in its thread cannot be stopped, so the slot stays taken
  until the server is really free again.

``timeout`` counts from the moment a request gets its slot: time spent waiting
in this queue behind a slow CPU is not the endpoint hanging, and must not be
timed out as if it were. A job that reports its ``Progress`` (the embedded
model ticks it for every prompt batch evaluated and every token written) is timed
out only when it has made no progress for ``timeout`` seconds: on a machine slow
enough, a whole reply may take longer than any fixed bound while tokens keep coming,
and cutting it to start again from nothing would never end. When its caller gives
up (a stall, or a cancellation), the job is asked to stop (``Progress.stopped``),
so its slot frees at its next step instead of after the whole reply.

One scheduler exists per event loop, because asyncio primitives belong to the
loop that created them.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import count
from typing import Any, TypeVar

ResultT = TypeVar("ResultT")


class SlotTimeoutError(TimeoutError):
    """A job held its slot for ``timeout`` seconds without making progress."""

    def __init__(self, timeout: float) -> None:
        super().__init__(f"no progress for {timeout:g} s after getting a slot")
        self.timeout = timeout


def shared_prefix_length(a: str, b: str) -> int:
    """Number of leading characters ``a`` and ``b`` have in common."""
    limit = min(len(a), len(b))
    for index in range(limit):
        if a[index] != b[index]:
            return index
    return limit


class Progress:
    """A running job's heartbeat: when it last made progress, and whether to stop.

    Ticked from the job's worker thread and read from the event loop; a float and a
    bool are each written and read whole, so no lock is needed.
    """

    def __init__(self) -> None:
        self._last = time.monotonic()
        self.stopped = False

    def tick(self) -> None:
        """The job made progress (a prompt batch evaluated, a token written)."""
        self._last = time.monotonic()

    def idle(self) -> float:
        """Seconds since the last progress (or since the job got its slot)."""
        return time.monotonic() - self._last

    def stop(self) -> None:
        """Ask the job to stop at its next step: nobody waits for its result any more."""
        self.stopped = True


@dataclass(eq=False)
class _Waiting:
    key: str
    order: int
    granted: asyncio.Future[int]


@dataclass
class PrefixScheduler:
    slots: int
    _last_keys: list[str] = field(default_factory=list)
    _free: list[int] = field(default_factory=list)
    _waiting: list[_Waiting] = field(default_factory=list)
    _counter: count[int] = field(default_factory=count)
    _running: set[asyncio.Task[Any]] = field(default_factory=set)

    def __post_init__(self) -> None:
        self._last_keys = [""] * self.slots
        self._free = list(range(self.slots))

    @property
    def free_slots(self) -> int:
        return len(self._free)

    @property
    def waiting(self) -> int:
        return len(self._waiting)

    def _assign(self) -> None:
        """Give each free slot the waiting request with the longest shared prefix."""
        while self._free and self._waiting:
            slot = self._free[0]
            last = self._last_keys[slot]
            best = max(
                self._waiting,
                key=lambda item: (shared_prefix_length(item.key, last), -item.order),
            )
            self._waiting.remove(best)
            self._free.pop(0)
            best.granted.set_result(slot)

    def _release(self, slot: int, key: str | None) -> None:
        """Free ``slot`` (after serving ``key``, if it served anything) and refill it."""
        if key is not None:
            self._last_keys[slot] = key
        self._free.append(slot)
        self._assign()

    async def _wait_for_slot(self, entry: _Waiting) -> int:
        try:
            return await asyncio.shield(entry.granted)
        except BaseException:
            # Cancelled while waiting: leave the queue, or hand on a slot granted meanwhile.
            if entry in self._waiting:
                self._waiting.remove(entry)
            elif entry.granted.done() and not entry.granted.cancelled():
                self._release(entry.granted.result(), None)
            raise

    async def run(
        self,
        key: str,
        job: Callable[[], Awaitable[ResultT]],
        timeout: float | None = None,
        progress: Progress | None = None,
    ) -> ResultT:
        """Run ``job`` when a slot is free and this request is the best match for it.

        Raises ``SlotTimeoutError`` once the job has gone ``timeout`` seconds without
        progress since it started: without a ``progress`` it reports, that is ``timeout``
        seconds after it started. The slot is freed when the job really ends; a job
        that watches ``progress.stopped`` ends at its next step once nobody waits for it.
        """
        loop = asyncio.get_running_loop()
        entry = _Waiting(key=key, order=next(self._counter), granted=loop.create_future())
        self._waiting.append(entry)
        self._assign()
        slot = await self._wait_for_slot(entry)
        heartbeat = progress if progress is not None else Progress()
        heartbeat.tick()  # the attempt's clock starts with its slot, not in the queue

        async def hold() -> ResultT:
            return await job()

        task = loop.create_task(hold())
        self._running.add(task)

        def finished(done: asyncio.Task[ResultT]) -> None:
            self._running.discard(done)
            if not done.cancelled():
                done.exception()  # retrieved: a caller that stopped waiting cannot see it
            self._release(slot, key)

        task.add_done_callback(finished)
        try:
            while True:
                wait = None if timeout is None else max(timeout - heartbeat.idle(), 0.0)
                try:
                    return await asyncio.wait_for(asyncio.shield(task), wait)
                except TimeoutError as error:
                    if task.done():
                        raise  # the job's own TimeoutError
                    assert timeout is not None
                    if heartbeat.idle() < timeout:
                        continue  # it made progress while we waited: wait on
                    raise SlotTimeoutError(timeout) from error
        except BaseException:
            heartbeat.stop()
            raise


_schedulers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, PrefixScheduler]] = (
    weakref.WeakKeyDictionary()
)


def scheduler_for_loop(slots: int) -> PrefixScheduler:
    """The running event loop's scheduler for ``slots`` (created on first use)."""
    per_loop = _schedulers.setdefault(asyncio.get_running_loop(), {})
    if slots not in per_loop:
        per_loop[slots] = PrefixScheduler(slots)
    return per_loop[slots]
