"""Run one benchmark task through Inspect's ``eval_set``: resumable, one log folder per run.

``eval_set`` writes ``.eval`` logs into ``log_dir`` and, run again on the same
folder, keeps finished samples and runs only what is missing, so an interrupted
run resumes without redoing or losing work.
"""

from __future__ import annotations

import re
from pathlib import Path

from inspect_ai import Task, eval_set

from normlab.core.errors import RunIncompleteError
from normlab.core.logs import local_path


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


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


def run_task(
    task: Task,
    log_dir: Path,
    model: str | list[str],
    roles: dict[str, str],
    display: str | None = None,
    max_samples: int | None = None,
) -> list[Path]:
    """Run (or resume) ``task`` with ``model`` (one or several) as eval model, ``roles`` bound."""
    log_dir.mkdir(parents=True, exist_ok=True)
    success, logs = eval_set(
        tasks=[task],
        log_dir=str(log_dir),
        model=model,
        model_roles=roles,
        display=display,  # type: ignore[arg-type]
        retry_attempts=2,
        max_samples=max_samples,
    )
    if not success:
        failed = [log for log in logs if log.status != "success"]
        reasons = sorted({failure_reason(log.error.message) for log in failed if log.error})
        because = f": {'; '.join(reasons)}" if reasons else ""
        raise RunIncompleteError(
            f"{log_dir}: eval did not complete{because} "
            f"({', '.join(log.location for log in failed)}); rerun the same command to resume"
        )
    return [local_path(log.location) for log in logs]
