"""Run LoSoNA through Inspect's ``eval_set`` and turn the logs into results.

``eval_set`` writes one ``.eval`` log per task into ``log_dir`` and, when run
again on the same folder, keeps finished samples and runs only what is missing,
so an interrupted run resumes without redoing or losing work.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from inspect_ai import eval_set

from normlab.core.errors import RunIncompleteError
from normlab.core.logs import local_path
from normlab.losona.task import DEFAULT_EPOCHS, losona
from normlab.models import DEFAULT_MODEL


@dataclass
class LosonaRun:
    """What to run: models per role, scenarios, conditions, K, and where logs go."""

    model: str = DEFAULT_MODEL
    roles: dict[str, str] = field(default_factory=dict)
    scenarios: Path | None = None
    scenario_ids: list[str] | None = None
    limit_scenarios: int | None = None
    conditions: list[str] | None = None
    epochs: int = DEFAULT_EPOCHS
    log_dir: Path | None = None
    display: str | None = None

    @property
    def judge(self) -> str:
        return self.roles.get("judge", DEFAULT_MODEL)

    def resolved_log_dir(self) -> Path:
        """Default folder: one per subject × judge pair, so a rerun resumes it."""
        if self.log_dir is not None:
            return self.log_dir
        return Path("runs") / "losona" / f"{slug(self.model)}__judge-{slug(self.judge)}"


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip("-") or "model"


def run_losona(run: LosonaRun) -> list[Path]:
    """Run (or resume) the eval set; return the log files it produced."""
    task = losona(
        scenarios=str(run.scenarios) if run.scenarios else None,
        conditions=run.conditions,
        scenario_ids=run.scenario_ids,
        limit_scenarios=run.limit_scenarios,
        epochs=run.epochs,
    )
    # Build the task (which validates the scenarios) before creating any folder.
    log_dir = run.resolved_log_dir()
    log_dir.mkdir(parents=True, exist_ok=True)
    roles = {"judge": run.judge, **run.roles}
    success, logs = eval_set(
        tasks=[task],
        log_dir=str(log_dir),
        model=run.model,
        model_roles=roles,
        display=run.display,  # type: ignore[arg-type]
        retry_attempts=2,
    )
    if not success:
        failed = [log.location for log in logs if log.status != "success"]
        raise RunIncompleteError(
            f"{log_dir}: eval did not complete ({', '.join(failed)}); "
            "rerun the same command to resume"
        )
    return [local_path(log.location) for log in logs]
