"""Progress a person can read: a bar with the time left on a terminal, plain lines off one.

On a terminal, a ``normlab`` command that runs an Inspect task draws one bar per task on
stderr (samples finished of planned, retried calls, time elapsed and an estimate of the
time left, averaged over the whole run so that minutes between samples still give an
estimate) in place of Inspect's own panel, which shows no time left. ``bars`` draws the
same bars for normlab's other long jobs (CRSEC's ticks, batches of generation or judging).

Inspect draws its progress panel only on a terminal: with output sent to a file or a pipe
(a batch job, ``nohup``, CI) a run printed nothing for as long as it ran, retries included,
so a stalled run and a slow one looked the same. This hook writes one line when a task
starts, one per finished sample (with the retried call attempts it took), one per call
Inspect retries, one when the task ends, and, when nothing else was said for a minute,
a line saying the run is still going. It stays quiet on a terminal, where Inspect's own
display shows the same (``inspect eval normlab/…``), or normlab's bar does (a ``normlab``
command, ``drawing_bars``); ``NORMLAB_PROGRESS=0`` silences both, and a ``normlab``
command then leaves the terminal to Inspect's display.

It is registered with Inspect by [`register`][normlab.core.register_progress]: when a ``normlab``
command starts a run (``normlab.core.evalrun.run_task``), and for ``inspect eval normlab/…`` when a
normlab task is built (``normlab_task_built``); it follows normlab's tasks only. Inspect prints a
banner naming the registered hooks, to stdout, when it first builds a model; registering only when
a run starts keeps that banner out of ``normlab`` commands (whose ``--json`` promises stdout holds
only JSON), where the model was built before.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator

from inspect_ai.hooks import Hooks, ModelRetry, SampleEnd, TaskEnd, TaskStart, hooks
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from normlab.core.errors import flat
from normlab.core.logs import sample_retries
from normlab.core.secrets import NORMLAB_TASKS, guard_inspect_logs, is_normlab_task, redact_text

PROGRESS_ENV = "NORMLAB_PROGRESS"
HEARTBEAT_S = 60.0
"""Silence longer than this gets a "still running" line."""


ESTIMATE_WINDOW_S = 24 * 3600.0
"""The time left is estimated from the whole run's pace, not the last half minute (Rich's
default), which on a slow model often holds no finished sample at all."""


def enabled() -> bool:
    """Whether progress is shown at all (``NORMLAB_PROGRESS=0`` silences it)."""
    return os.environ.get(PROGRESS_ENV, "1") != "0"


def on_terminal() -> bool:
    """Whether stderr is a terminal (a bar), or a file or pipe (lines)."""
    return sys.stderr.isatty()


def bar_console() -> Console:
    """The console bars draw on: stderr, so stdout keeps only what a command prints."""
    return Console(stderr=True, highlight=False)


def new_bar() -> Progress:
    """A bar: what runs (user text, never markup), done of planned, elapsed, time left."""
    return Progress(
        TextColumn("{task.description}", markup=False),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=bar_console(),
        speed_estimate_period=ESTIMATE_WINDOW_S,
        transient=False,
    )


class Bars:
    """Bars under one display: one per job (a CRSEC run, a batch); none off a terminal."""

    def __init__(self, progress: Progress | None) -> None:
        self._progress = progress

    def add(self, description: str, total: int, done: int = 0) -> Callable[[int], None]:
        """A bar for a job of ``total`` steps, ``done`` of them already (a resumed run);
        returns ``advance(steps)``."""
        progress = self._progress
        if progress is None:
            return lambda steps: None
        task = progress.add_task(description, total=total, completed=done)
        return lambda steps: progress.advance(task, steps)


@contextlib.contextmanager
def bars() -> Iterator[Bars]:
    """Bars on a terminal while the block runs (lines printed meanwhile appear above them);
    off a terminal, or with progress off, bars that draw nothing, the callers' own lines
    saying the same."""
    if not (enabled() and on_terminal()):
        yield Bars(None)
        return
    with new_bar() as progress:
        yield Bars(progress)


_drawing = False


@contextlib.contextmanager
def drawing_bars() -> Iterator[bool]:
    """While a ``normlab`` command runs a task: on a terminal its hook draws the bars, and
    Inspect's display must stay off (yields True); elsewhere yields False."""
    global _drawing
    draw = enabled() and on_terminal()
    previous, _drawing = _drawing, draw
    try:
        yield draw
    finally:
        _drawing = previous


class LineProgress(Hooks):
    def __init__(self) -> None:
        self._bars: Progress | None = None
        self._bar_tasks: dict[str, TaskID] = {}
        self._tasks: dict[str, str] = {}
        self._planned: dict[str, int] = {}
        self._finished: Counter[str] = Counter()
        self._retries: Counter[str] = Counter()
        self._heartbeats: dict[str, asyncio.Task[None]] = {}
        self._last_line = time.monotonic()

    def enabled(self) -> bool:
        return enabled() and (_drawing or not on_terminal())

    def say(self, text: str) -> None:
        """One line on stderr, flushed at once (a file is block-buffered otherwise); a sample's
        error may name its endpoint, so credentials are redacted."""
        self._last_line = time.monotonic()
        if self._bars is not None:
            self._bars.console.print(flat(redact_text(text)), markup=False, highlight=False)
            return
        sys.stderr.write(flat(redact_text(text)) + "\n")
        sys.stderr.flush()

    def _bar_update(self, eval_id: str, advance: int = 0) -> None:
        """Move ``eval_id``'s bar (on a terminal), naming its retried calls."""
        if self._bars is None or eval_id not in self._bar_tasks:
            return
        retried = self._retries[eval_id]
        name = self._tasks.get(eval_id, "eval")
        self._bars.update(
            self._bar_tasks[eval_id],
            advance=advance,
            description=name + (f" ({retried} call(s) retried)" if retried else ""),
        )

    def _done(self, eval_id: str) -> str:
        planned = self._planned.get(eval_id)
        return f"{self._finished[eval_id]}/{planned}" if planned else str(self._finished[eval_id])

    async def _heartbeat(self, eval_id: str) -> None:
        if self._bars is not None:
            return  # the bar shows time passing by itself
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
        if not is_normlab_task(spec):
            return  # another task run in the same process: Inspect's own display says it
        name = spec.task.split("/")[-1]
        samples = spec.dataset.samples or 0
        epochs = spec.config.epochs or 1
        self._tasks[data.eval_id] = name
        self._planned[data.eval_id] = samples * epochs
        if _drawing:
            if self._bars is None:
                self._bars = new_bar()
                self._bars.start()
            self._bar_tasks[data.eval_id] = self._bars.add_task(name, total=samples * epochs)
            self.say(f"{name}: {samples} samples × {epochs} epochs ({spec.model})")
            return
        self.say(
            f"{name}: started, {samples} samples × {epochs} epochs = {samples * epochs} to run "
            f"({spec.model}); a line as each finishes"
        )
        with contextlib.suppress(RuntimeError):  # no asyncio loop (Inspect on trio): no beat
            self._heartbeats[data.eval_id] = asyncio.get_running_loop().create_task(
                self._heartbeat(data.eval_id)
            )

    async def on_sample_end(self, data: SampleEnd) -> None:
        if data.eval_id not in self._tasks:
            return
        sample = data.sample
        if sample.error and sample.error.message.startswith("CancelledError"):
            return  # stopped by an interrupt, not finished: the run says what is safe
        self._finished[data.eval_id] += 1
        if self._bars is not None:
            if sample.error:
                self.say(f"{self._tasks.get(data.eval_id, 'eval')}: {sample.id}: error: "
                         f"{sample.error.message[:120]}")  # fmt: skip
            self._bar_update(data.eval_id, advance=1)
            return
        retries = sample_retries(sample)
        retried = f", {retries} retried call attempt{'s' * (retries != 1)}" if retries else ""
        error = f", error: {sample.error.message[:120]}" if sample.error else ""
        self.say(
            f"{self._tasks.get(data.eval_id, 'eval')}: {self._done(data.eval_id)} finished "
            f"({sample.id}, epoch {sample.epoch}{retried}{error})"
        )

    async def on_model_retry(self, data: ModelRetry) -> None:
        eval_id = data.eval_id or ""
        if eval_id not in self._tasks and not (data.task_name or "").startswith(NORMLAB_TASKS):
            return
        self._retries[eval_id] += 1
        if self._bars is not None:
            self._bar_update(eval_id)
            return
        why = data.exception_type or "error"
        if data.status_code is not None:
            why = f"{why} {data.status_code}"
        self.say(
            f"{self._tasks.get(eval_id, data.task_name or 'eval')}: retrying a call to "
            f"{data.model_name} (attempt {data.attempt}, {why}; waiting {data.wait_time:.0f} s)"
        )

    async def on_task_end(self, data: TaskEnd) -> None:
        if data.eval_id not in self._tasks:
            return
        beat = self._heartbeats.pop(data.eval_id, None)
        if beat is not None:
            beat.cancel()
        log = data.log
        name = self._tasks.pop(data.eval_id)
        done = log.results.completed_samples if log.results else self._finished[data.eval_id]
        total = f" of {log.results.total_samples}" if log.results else ""
        self.say(f"{name}: {log.status}, {done}{total} in the log ({log.location})")
        if self._bars is not None:
            self._bar_tasks.pop(data.eval_id, None)
            if not self._bar_tasks:
                self._bars.stop()
                self._bars = None


_registered = False


def register() -> None:
    """Register ``LineProgress`` with Inspect, once per process."""
    global _registered
    if not _registered:
        hooks(name="normlab_progress", description="Plain progress lines off a terminal.")(
            LineProgress
        )
        _registered = True


def normlab_task_built() -> None:
    """What building a normlab task does to the process it runs in (``inspect eval normlab/…``
    or a normlab run): normlab's redaction of its own tasks' logs
    ([`guard_inspect_logs`][normlab.core.guard_inspect_logs], scoped to normlab's tasks) and its
    progress lines off a terminal for them. A ``normlab`` command registers the progress lines
    itself when its run starts (see the module docstring on Inspect's banner). Loading
    normlab's entry point alone does neither."""
    guard_inspect_logs(scoped=True)
    if "normlab.cli" not in sys.modules:
        register()
