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
        failed = [log.location for log in logs if log.status != "success"]
        raise RunIncompleteError(
            f"{log_dir}: eval did not complete ({', '.join(failed)}); "
            "rerun the same command to resume"
        )
    return [local_path(log.location) for log in logs]
