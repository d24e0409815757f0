"""The prefix scheduler runs prompts that share a prefix back to back."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest

from normlab.models.prefix_scheduler import (
    PrefixScheduler,
    Progress,
    SlotTimeoutError,
    scheduler_for_loop,
)

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


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def _gated(
    slots: int, result: str
) -> tuple[PrefixScheduler, asyncio.Event, Callable[[], Awaitable[str]]]:
    """A scheduler, a gate and a job that holds its slot until the gate opens (then returns
    ``result``): how the cancellation tests keep requests running or waiting at will."""
    gate = asyncio.Event()

    async def blocked() -> str:
        await gate.wait()
        return result

    return PrefixScheduler(slots=slots), gate, blocked


@pytest.mark.parametrize("slots", [1, 2])
@pytest.mark.parametrize(
    "order",
    [
        ("waiting", "running"),
        ("running", "waiting"),
        ("running",),
        ("waiting",),
        ("waiting", "waiting", "running", "running"),
    ],
)
async def test_cancelled_requests_give_their_slots_back(slots: int, order: tuple[str, ...]) -> None:
    """Cancel waiting and running requests in every order; later requests still complete."""
    scheduler, gate, blocked = _gated(slots, "blocked")

    running = [asyncio.create_task(scheduler.run(f"r{i}", blocked)) for i in range(slots)]
    waiting = [asyncio.create_task(scheduler.run(f"w{i}", blocked)) for i in range(3)]
    await _settle()
    assert scheduler.free_slots == 0 and scheduler.waiting == 3
    pools = {"running": list(running), "waiting": list(waiting)}
    for kind in order:
        if pools[kind]:
            victim = pools[kind].pop(0)
            victim.cancel()
            await _settle()
            assert victim.cancelled()
    gate.set()
    await asyncio.wait_for(asyncio.gather(*running, *waiting, return_exceptions=True), 5)

    async def quick(value: int) -> int:
        await asyncio.sleep(0)
        return value

    results = await asyncio.wait_for(
        asyncio.gather(*(scheduler.run(str(i), lambda i=i: quick(i)) for i in range(8))),  # type: ignore[misc]
        timeout=5,
    )
    assert results == list(range(8))
    assert scheduler.free_slots == slots and scheduler.waiting == 0


async def test_a_request_cancelled_the_moment_it_gets_its_slot_hands_the_slot_on() -> None:
    scheduler, gate, blocked = _gated(1, "done")

    first = asyncio.create_task(scheduler.run("a", blocked))
    second = asyncio.create_task(scheduler.run("b", blocked))
    third = asyncio.create_task(scheduler.run("c", blocked))
    await _settle()
    gate.set()
    # The first job's end grants the slot to "b" in a callback; cancel "b" before it wakes.
    await asyncio.sleep(0)
    second.cancel()
    assert await asyncio.wait_for(first, 5) == "done"
    assert await asyncio.wait_for(third, 5) == "done"
    with pytest.raises(asyncio.CancelledError):
        await second
    assert scheduler.free_slots == 1 and scheduler.waiting == 0


async def test_a_cancelled_running_job_keeps_its_slot_until_it_really_ends() -> None:
    """The llama.cpp call in a thread cannot be stopped: its slot is busy until it returns."""
    scheduler, gate, blocked = _gated(1, "done")

    running = asyncio.create_task(scheduler.run("a", blocked))
    await _settle()
    running.cancel()
    await _settle()
    assert scheduler.free_slots == 0, "the job still runs after its caller stopped waiting"
    gate.set()
    await _settle()
    assert scheduler.free_slots == 1
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_the_timeout_counts_from_the_slot_not_from_the_queue() -> None:
    scheduler = PrefixScheduler(slots=1)

    async def slow() -> str:
        await asyncio.sleep(0.15)
        return "slow"

    async def hangs() -> str:
        await asyncio.sleep(10)
        return "never"

    # Each waits 0.3 s or more in the queue, longer than its 0.2 s timeout, and still succeeds.
    queued = [asyncio.create_task(scheduler.run(str(i), slow, timeout=0.2)) for i in range(3)]
    assert await asyncio.gather(*queued) == ["slow"] * 3
    with pytest.raises(SlotTimeoutError):
        await scheduler.run("h", hangs, timeout=0.05)


async def test_inspects_attempt_timer_cancelling_waiters_leaks_nothing() -> None:
    """Inspect wraps each attempt in ``anyio.move_on_after``, which cancels again at every
    await until the scope ends: waiters timed out so must still leave the queue cleanly."""
    import anyio

    scheduler = PrefixScheduler(slots=2)

    async def slow() -> str:
        await asyncio.sleep(0.2)
        return "ok"

    async def attempt(key: str) -> str | None:
        with anyio.move_on_after(0.05):
            return await scheduler.run(key, slow)
        return None

    outcomes = await asyncio.gather(*(attempt(str(i)) for i in range(6)))
    assert outcomes == [None] * 6
    await asyncio.sleep(0.3)  # the two jobs that started run to their end
    assert scheduler.free_slots == 2 and scheduler.waiting == 0
    assert await scheduler.run("after", slow) == "ok"


async def test_a_job_making_progress_is_never_timed_out_however_long_it_takes() -> None:
    """Issue 34: on a slow machine a reply may take longer than any fixed bound while its
    tokens keep coming; only a job that stops making progress is timed out."""
    scheduler = PrefixScheduler(slots=1)
    progress = Progress()

    async def slow_but_steady() -> str:
        for _ in range(40):  # 0.8 s or more in all, over three times the 0.25 s stall timeout
            await asyncio.sleep(0.02)
            progress.tick()
        return "finished"

    assert await scheduler.run("a", slow_but_steady, timeout=0.25, progress=progress) == "finished"
    assert not progress.stopped


async def test_a_stalled_job_is_timed_out_and_asked_to_stop() -> None:
    scheduler = PrefixScheduler(slots=1)
    progress = Progress()
    steps = 0

    async def stalls_after_two_steps() -> str:
        nonlocal steps
        while not progress.stopped:
            if steps < 2:
                progress.tick()
            steps += 1
            await asyncio.sleep(0.02)
        return "stopped"

    with pytest.raises(SlotTimeoutError, match=r"no progress for 0\.1 s"):
        await scheduler.run("a", stalls_after_two_steps, timeout=0.1, progress=progress)
    assert progress.stopped
    await _settle()
    await asyncio.sleep(0.05)
    assert scheduler.free_slots == 1, "the stopped job ended and gave its slot back"


async def test_a_cancelled_caller_asks_its_job_to_stop() -> None:
    scheduler = PrefixScheduler(slots=1)
    progress = Progress()

    async def until_stopped() -> str:
        while not progress.stopped:
            progress.tick()
            await asyncio.sleep(0.01)
        return "stopped"

    caller = asyncio.create_task(scheduler.run("a", until_stopped, progress=progress))
    await asyncio.sleep(0.05)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.sleep(0.05)
    assert progress.stopped and scheduler.free_slots == 1
