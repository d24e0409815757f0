"""Kill a real ``normlab`` process part-way through a run, as a crash or a Ctrl-\\ would."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from inspect_ai.log import read_eval_log


def finished_samples(log_dir: Path) -> int:
    """Samples written so far to the logs of ``log_dir`` (0 while a log is unreadable)."""
    total = 0
    for path in log_dir.glob("*.eval"):
        try:
            total += len(read_eval_log(str(path)).samples or [])
        except Exception:  # a log being written may not be readable yet
            continue
    return total


def kill_when(
    args: list[str],
    ready: Callable[[], bool],
    cwd: Path,
    timeout: float = 60.0,
    poll: float = 0.2,
) -> None:
    """Start ``normlab ARGS``; SIGKILL it as soon as ``ready()`` holds (checked every ``poll``
    seconds), or fail after ``timeout`` with the end of the run's stderr in the message."""
    env = {**os.environ, "INSPECT_DISPLAY": "none"}
    with tempfile.TemporaryFile(dir=cwd) as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "normlab.cli", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
        )

        def failure(why: str) -> AssertionError:
            stderr.seek(0)
            tail = stderr.read().decode("utf-8", "replace")[-2000:]
            return AssertionError(f"{why} (exit {process.poll()}); its stderr ended:\n{tail}")

        deadline = time.monotonic() + timeout
        try:
            while time.monotonic() < deadline:
                if process.poll() is not None:
                    raise failure("the run finished before it could be interrupted")
                if ready():
                    process.send_signal(signal.SIGKILL)
                    process.wait()
                    return
                time.sleep(poll)
            raise failure("the run never reached the point to interrupt it")
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
