"""Run one benchmark task through Inspect's ``eval_set``: resumable, one log folder per run.

``eval_set`` writes ``.eval`` logs into ``log_dir`` and, run again on the same
folder, keeps finished samples and runs only what is missing, so an interrupted
run resumes without redoing or losing work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, eval_set
from inspect_ai.dataset import MemoryDataset

from normlab.core.errors import InputError, RunIncompleteError
from normlab.core.logs import local_path
from normlab.core.progress import LineProgress
from normlab.core.storage import mirrored, pull

PROGRESS_HOOK = LineProgress
"""Registered with Inspect on import: plain progress lines when stderr is not a terminal."""

_OS_ERROR_REPR = re.compile(r"^\w+\((\d+), (['\"])(?P<reason>.+?)\2")
"""Inspect records an exception as its repr: ``OSError(28, 'No space left on device')``."""
MAX_REASON = 200


def failure_reason(message: str) -> str:
    """Why an eval failed, in one short line: an OSError's own words (a full disk reads "No
    space left on device"), else the first line of Inspect's message."""
    lines = message.strip().splitlines()
    first = lines[0] if lines else "unknown error"
    found = _OS_ERROR_REPR.match(first)
    reason = found.group("reason") if found else first
    return reason if len(reason) <= MAX_REASON else reason[:MAX_REASON] + "…"


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``: every ``count``-th sample of the task's dataset.

    A sweep too large for one process or machine runs as shards, each its own eval set in
    its own log folder; the dataset's order is fixed by the task's options, so the shards
    of one sweep never overlap and together cover it, and an analysis of all their folders
    reads them as one run (each sample and epoch counted once).
    """

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, slash, count = text.partition("/")
        if not (slash and index.isdigit() and count.isdigit()):
            raise InputError("--shard", f"expected I/N such as 1/4, got {text[:40]!r}")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count:
            raise InputError("--shard", f"I must be between 1 and N, got {text!r}")
        return shard

    @property
    def folder(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def apply(self, task: Task) -> Task:
        samples = [
            sample
            for position, sample in enumerate(task.dataset)
            if position % self.count == self.index - 1
        ]
        task.dataset = MemoryDataset(samples, name=task.dataset.name)
        return task


def run_task(
    task: Task,
    log_dir: Path | str,
    model: str | list[str],
    roles: dict[str, str],
    display: str | None = None,
    max_samples: int | None = None,
    max_connections: int | None = None,
) -> list[Path]:
    """Run (or resume) ``task`` with ``model`` (one or several) as eval model, ``roles`` bound.

    ``max_connections`` caps concurrent calls per model (every role inherits it) and, unless
    ``max_samples`` says otherwise, as many samples run at once, so an episode of many
    sequential calls still keeps every connection busy. Events are not streamed to a live
    database (``log_realtime``): finished samples still reach the log every few samples, so a
    killed run resumes, and each call costs about a quarter less CPU
    (``python -m benchmarks.sweep``). A URL ``log_dir`` (object storage) is written by
    Inspect itself; the logs returned are then their local mirror (:mod:`normlab.core.storage`).
    """
    if isinstance(log_dir, Path):
        log_dir.mkdir(parents=True, exist_ok=True)
    success, logs = eval_set(
        tasks=[task],
        log_dir=str(log_dir),
        model=model,
        model_roles=roles,
        display=display,  # type: ignore[arg-type]
        retry_attempts=2,
        max_samples=max_samples or max_connections,
        max_connections=max_connections,
        log_realtime=False,
    )
    if not success:
        failed = [log for log in logs if log.status != "success"]
        reasons = sorted({failure_reason(log.error.message) for log in failed if log.error})
        because = f": {'; '.join(reasons)}" if reasons else ""
        raise RunIncompleteError(
            f"{log_dir}: eval did not complete{because} "
            f"({', '.join(log.location for log in failed)}); rerun the same command to resume"
        )
    if isinstance(log_dir, str):
        pull(log_dir)
        return [mirrored(log.location, log_dir) for log in logs]
    return [local_path(log.location) for log in logs]
