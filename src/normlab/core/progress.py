"""Progress as plain lines on stderr when stderr is not a terminal.

Inspect draws its progress panel only on a terminal: with output sent to a file or a pipe
(a batch job, ``nohup``, CI) a run printed nothing for as long as it ran, retries included,
so a stalled run and a slow one looked the same. This hook writes one line when a task
starts, one per finished sample (with the retried call attempts it took), one per call
Inspect retries, one when the task ends, and, when nothing else was said for a minute,
a line saying the run is still going. It stays quiet on a terminal, where Inspect's own
display shows the same; ``NORMLAB_PROGRESS=0`` silences it.

It is registered with Inspect by :func:`register`: when a ``normlab`` command starts a run
(:func:`normlab.core.evalrun.run_task`), and for ``inspect eval normlab/…`` when Inspect loads
normlab's entry point. Inspect prints a banner naming the registered hooks, to stdout, when it
first builds a model; registering only when a run starts keeps that banner out of ``normlab``
commands (whose ``--json`` promises stdout holds only JSON), where the model was built before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections import Counter

from inspect_ai.hooks import Hooks, ModelRetry, SampleEnd, TaskEnd, TaskStart, hooks

from normlab.core.errors import flat
from normlab.core.logs import sample_retries
from normlab.core.secrets import redact_text

PROGRESS_ENV = "NORMLAB_PROGRESS"
HEARTBEAT_S = 60.0
"""Silence longer than this gets a "still running" line."""


class LineProgress(Hooks):
    def __init__(self) -> None:
        self._tasks: dict[str, str] = {}
        self._planned: dict[str, int] = {}
        self._finished: Counter[str] = Counter()
        self._retries: Counter[str] = Counter()
        self._heartbeats: dict[str, asyncio.Task[None]] = {}
        self._last_line = time.monotonic()

    def enabled(self) -> bool:
        return os.environ.get(PROGRESS_ENV, "1") != "0" and not sys.stderr.isatty()

    def say(self, text: str) -> None:
        """One line on stderr, flushed at once (a file is block-buffered otherwise); a sample's
        error may name its endpoint, so credentials are redacted."""
        sys.stderr.write(flat(redact_text(text)) + "\n")
        sys.stderr.flush()
        self._last_line = time.monotonic()

    def _done(self, eval_id: str) -> str:
        planned = self._planned.get(eval_id)
        return f"{self._finished[eval_id]}/{planned}" if planned else str(self._finished[eval_id])

    async def _heartbeat(self, eval_id: str) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_S / 4)
            if time.monotonic() - self._last_line >= HEARTBEAT_S:
                retried = self._retries[eval_id]
                self.say(
                    f"{self._tasks[eval_id]}: still running, {self._done(eval_id)} finished"
                    + (f", {retried} call(s) retried so far" if retried else "")
                )

    async def on_task_start(self, data: TaskStart) -> None:
        spec = data.spec
        name = spec.task.split("/")[-1]
        samples = spec.dataset.samples or 0
        epochs = spec.config.epochs or 1
        self._tasks[data.eval_id] = name
        self._planned[data.eval_id] = samples * epochs
        self.say(
            f"{name}: started, {samples} samples × {epochs} epochs = {samples * epochs} to run "
            f"({spec.model}); a line as each finishes"
        )
        with contextlib.suppress(RuntimeError):  # no asyncio loop (Inspect on trio): no beat
            self._heartbeats[data.eval_id] = asyncio.get_running_loop().create_task(
                self._heartbeat(data.eval_id)
            )

    async def on_sample_end(self, data: SampleEnd) -> None:
        sample = data.sample
        if sample.error and sample.error.message.startswith("CancelledError"):
            return  # stopped by an interrupt, not finished: the run says what is safe
        self._finished[data.eval_id] += 1
        retries = sample_retries(sample)
        retried = f", {retries} retried call attempt{'s' * (retries != 1)}" if retries else ""
        error = f", error: {sample.error.message[:120]}" if sample.error else ""
        self.say(
            f"{self._tasks.get(data.eval_id, 'eval')}: {self._done(data.eval_id)} finished "
            f"({sample.id}, epoch {sample.epoch}{retried}{error})"
        )

    async def on_model_retry(self, data: ModelRetry) -> None:
        eval_id = data.eval_id or ""
        self._retries[eval_id] += 1
        why = data.exception_type or "error"
        if data.status_code is not None:
            why = f"{why} {data.status_code}"
        self.say(
            f"{self._tasks.get(eval_id, data.task_name or 'eval')}: retrying a call to "
            f"{data.model_name} (attempt {data.attempt}, {why}; waiting {data.wait_time:.0f} s)"
        )

    async def on_task_end(self, data: TaskEnd) -> None:
        beat = self._heartbeats.pop(data.eval_id, None)
        if beat is not None:
            beat.cancel()
        log = data.log
        name = self._tasks.pop(data.eval_id, log.eval.task.split("/")[-1])
        done = log.results.completed_samples if log.results else self._finished[data.eval_id]
        total = f" of {log.results.total_samples}" if log.results else ""
        self.say(f"{name}: {log.status}, {done}{total} in the log ({log.location})")


_registered = False


def register() -> None:
    """Register :class:`LineProgress` with Inspect, once per process."""
    global _registered
    if not _registered:
        hooks(name="normlab_progress", description="Plain progress lines off a terminal.")(
            LineProgress
        )
        _registered = True
