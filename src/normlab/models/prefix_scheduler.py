"""Order requests so that prompts sharing a prefix run back to back.

llama.cpp reuses the evaluated prefix of a slot's previous prompt (and restores
older prompts from its RAM cache), so throughput on a CPU depends on order:
the K epochs of a sample send the identical prompt K times, and the judge calls
for one scenario share everything up to the judged message. Inspect, however,
interleaves samples. This scheduler admits at most ``slots`` requests to the
server at a time; whenever a slot frees up, it starts the waiting request whose
prompt shares the longest prefix with the prompt that slot just finished
(ties: the longest-waiting request), instead of first-come first-served.

It keeps no background tasks: waiting requests sleep on a condition, and the
request that frees a slot picks its successor. One scheduler exists per event
loop, because asyncio primitives belong to the loop that created them.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from itertools import count
from typing import TypeVar

ResultT = TypeVar("ResultT")


def shared_prefix_length(a: str, b: str) -> int:
    """Number of leading characters ``a`` and ``b`` have in common."""
    limit = min(len(a), len(b))
    for index in range(limit):
        if a[index] != b[index]:
            return index
    return limit


@dataclass
class _Waiting:
    key: str
    order: int
    slot: int | None = None


@dataclass
class PrefixScheduler:
    slots: int
    _last_keys: list[str] = field(default_factory=list)
    _free: list[int] = field(default_factory=list)
    _waiting: list[_Waiting] = field(default_factory=list)
    _condition: asyncio.Condition = field(default_factory=asyncio.Condition)
    _counter: count[int] = field(default_factory=count)

    def __post_init__(self) -> None:
        self._last_keys = [""] * self.slots
        self._free = list(range(self.slots))

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
            best.slot = slot

    async def run(self, key: str, job: Callable[[], Awaitable[ResultT]]) -> ResultT:
        """Run ``job`` when a slot is free and this request is the best match for it."""
        entry = _Waiting(key=key, order=next(self._counter))
        async with self._condition:
            self._waiting.append(entry)
            self._assign()
            self._condition.notify_all()
            await self._condition.wait_for(lambda: entry.slot is not None)
        slot = entry.slot
        assert slot is not None
        try:
            return await job()
        finally:
            async with self._condition:
                self._last_keys[slot] = key
                self._free.append(slot)
                self._assign()
                self._condition.notify_all()


_schedulers: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, PrefixScheduler]] = (
    weakref.WeakKeyDictionary()
)


def scheduler_for_loop(slots: int) -> PrefixScheduler:
    """The running event loop's scheduler for ``slots`` (created on first use)."""
    per_loop = _schedulers.setdefault(asyncio.get_running_loop(), {})
    if slots not in per_loop:
        per_loop[slots] = PrefixScheduler(slots)
    return per_loop[slots]
