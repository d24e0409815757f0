"""The ``ray`` executor: each part of a cell (the whole cell, or one ``--shard I/N`` of it) a Ray
task running :func:`~normlab.study.execute.run_part`.

Ray is an optional extra (``pip install normlab[ray]``) and is imported only when this executor
runs, so ``normlab --help`` and the faces never load it. Without an address a local Ray
instance is started (two CPUs, no dashboard, no usage stats: offline) and shut down afterwards;
with one (``--ray-address``), the cells go to that cluster, whose workers must have normlab and
the study's files.

A worker lost mid-part is Ray's to retry (``max_retries``): the retried task runs the same part
into the same folder, so the system's own resume counts each finished sample once.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from normlab.core.errors import InputError
from normlab.study.systems import Part

R = TypeVar("R")
"""A part's result (:class:`~normlab.study.execute.PartResult`)."""

RETRIES = 3
"""Attempts after the first for a cell whose worker died (Ray's ``max_retries``)."""

KILL_ENV = "NORMLAB_TEST_KILL_WORKER"
"""Tests only: ``DIR:SECONDS`` makes the first cell to claim ``DIR/killed`` end its own worker
process, as a lost machine would, once its folder holds a log (mid-run) or SECONDS into its
run, whichever comes first, so that Ray retries it."""


def _require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise InputError(
            "--executor", "ray is not installed; install it with: pip install normlab[ray]"
        ) from None
    return ray


def _kill_once_later(folder: Path | str) -> None:
    """The test hook of :data:`KILL_ENV`: at most one worker of a study dies, once."""
    spec = os.environ.get(KILL_ENV)
    if not spec:
        return
    markers, _, seconds = spec.rpartition(":")
    try:
        os.close(os.open(Path(markers) / "killed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    deadline = time.monotonic() + float(seconds)

    def die() -> None:
        while time.monotonic() < deadline and not (
            isinstance(folder, Path) and any(folder.rglob("*.eval"))
        ):
            time.sleep(0.05)
        os._exit(1)

    threading.Thread(target=die, daemon=True).start()


def _run_part_task(run_one: Callable[[Part], R], part: Part) -> R:
    _kill_once_later(part.cell.folder)
    return run_one(part)


def _resolved(part: Part) -> Part:
    """Workers may start in another folder: each part's logs go where the study says."""
    folder = part.cell.folder
    if not isinstance(folder, Path):
        return part
    return dataclasses.replace(part, cell=dataclasses.replace(part.cell, folder=folder.resolve()))


class RayExecutor:
    """Every part a Ray task, all submitted at once; results in the study's order."""

    def __init__(self, address: str | None = None) -> None:
        self.address = address
        self.ray = _require_ray()

    def run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]:
        from normlab.commands import stdout_to_stderr

        # What Ray prints (a lost worker, the instance's start) goes to stderr: a study's
        # stdout holds only its own result.
        with stdout_to_stderr():
            return self._run(parts, run_one)

    def _run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]:
        ray = self.ray
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        started = not ray.is_initialized()
        if started:
            if self.address:
                ray.init(address=self.address, log_to_driver=False)
            else:
                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            task = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_part_task)
            pending = [task.remote(run_one, _resolved(part)) for part in parts]
            try:
                results: list[R] = ray.get(pending)
            except ray.exceptions.RayTaskError as error:
                # A cell's own error (a bad option, a refused folder) as the local run gives it.
                cause = getattr(error, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise
            return results
        finally:
            if started:
                ray.shutdown()
