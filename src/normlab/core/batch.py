"""Run many independent model jobs outside an Inspect task: bounded, visible, resumable.

Screening, re-judging and generation each call models for a list of items. They
share this runner: a concurrency bound (the provider's connection limit), a progress bar
with the time left (``normlab.core.progress.new_bar``), and an ``on_result`` hook that
callers use to append each finished result to a JSONL file at once, so an interrupted run
keeps everything finished and a rerun skips it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from normlab.core.jsonio import append_jsonl
from normlab.core.progress import new_bar

ItemT = TypeVar("ItemT")
ResultT = TypeVar("ResultT")


async def run_batch(
    items: Sequence[ItemT],
    work: Callable[[ItemT], Awaitable[ResultT]],
    *,
    concurrency: int,
    description: str,
    on_result: Callable[[ItemT, ResultT], None] | None = None,
) -> list[ResultT]:
    """Apply ``work`` to every item, at most ``concurrency`` at a time, in item order."""
    semaphore = asyncio.Semaphore(max(1, concurrency))
    results: list[ResultT | None] = [None] * len(items)
    with new_bar() as progress:
        task_id = progress.add_task(description, total=len(items))

        async def one(index: int, item: ItemT) -> None:
            async with semaphore:
                result = await work(item)
            results[index] = result
            if on_result is not None:
                on_result(item, result)
            progress.advance(task_id)

        await asyncio.gather(*(one(index, item) for index, item in enumerate(items)))
    return [result for result in results if result is not None]


def run_batch_to_jsonl(
    items: Sequence[ItemT],
    work: Callable[[ItemT], Awaitable[ResultT]],
    row: Callable[[ResultT], BaseModel | None],
    out: Path,
    *,
    concurrency: int,
    description: str,
) -> list[ResultT]:
    """``run_batch``, appending each result's ``row`` (when not None) to ``out`` as it lands.

    For generators: a valid candidate is on disk the moment it exists, an invalid
    one (``row`` returns None) never is.
    """

    def append(_: ItemT, result: ResultT) -> None:
        value = row(result)
        if value is not None:
            append_jsonl(out, value)

    return asyncio.run(
        run_batch(items, work, concurrency=concurrency, description=description, on_result=append)
    )
