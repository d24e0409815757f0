"""The prefix scheduler runs prompts that share a prefix back to back."""

from __future__ import annotations

import asyncio

import pytest

from normlab.models.prefix_scheduler import PrefixScheduler, scheduler_for_loop

pytestmark = pytest.mark.anyio


async def test_waiting_requests_run_in_prefix_order() -> None:
    scheduler = PrefixScheduler(slots=1)
    started: list[str] = []
    gate = asyncio.Event()

    async def job(key: str) -> str:
        started.append(key)
        if key == "scenario-A judge 1":
            await gate.wait()  # hold the only slot while the others queue up
        return key

    first = asyncio.create_task(
        scheduler.run("scenario-A judge 1", lambda: job("scenario-A judge 1"))
    )
    await asyncio.sleep(0)
    keys = ["scenario-B judge 1", "scenario-A judge 2", "scenario-B judge 2", "scenario-A judge 3"]
    rest = [asyncio.create_task(scheduler.run(k, lambda k=k: job(k))) for k in keys]  # type: ignore[misc]
    await asyncio.sleep(0)
    gate.set()
    results = await asyncio.gather(first, *rest)
    assert results == ["scenario-A judge 1", *keys], "every caller gets its own result"
    assert started == [
        "scenario-A judge 1",
        "scenario-A judge 2",  # longest shared prefix with the prompt just served
        "scenario-A judge 3",
        "scenario-B judge 1",  # tie with B 2 on prefix: the earlier request first
        "scenario-B judge 2",
    ]


async def test_never_more_jobs_than_slots() -> None:
    scheduler = PrefixScheduler(slots=2)
    running = 0
    peak = 0

    async def job() -> None:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001)
        running -= 1

    await asyncio.gather(*(scheduler.run(str(i), job) for i in range(10)))
    assert peak == 2


async def test_a_failing_job_frees_its_slot() -> None:
    scheduler = PrefixScheduler(slots=1)

    async def fail() -> None:
        raise RuntimeError("model error")

    with pytest.raises(RuntimeError):
        await scheduler.run("a", fail)

    async def succeed() -> str:
        return "ok"

    assert await scheduler.run("b", succeed) == "ok"


async def test_one_scheduler_per_loop_and_slot_count() -> None:
    assert scheduler_for_loop(2) is scheduler_for_loop(2)
    assert scheduler_for_loop(2) is not scheduler_for_loop(3)
