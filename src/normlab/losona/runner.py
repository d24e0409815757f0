"""Run LoSoNA through Inspect's ``eval_set`` (resumable) and return its logs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from normlab.core.evalrun import run_task, slug
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


def run_losona(run: LosonaRun) -> list[Path]:
    """Run (or resume) the eval set; return the log files it produced."""
    # Build the task (which validates the scenarios) before creating any folder.
    task = losona(
        scenarios=str(run.scenarios) if run.scenarios else None,
        conditions=run.conditions,
        scenario_ids=run.scenario_ids,
        limit_scenarios=run.limit_scenarios,
        epochs=run.epochs,
    )
    roles = {"judge": run.judge, **run.roles}
    return run_task(task, run.resolved_log_dir(), run.model, roles, run.display)
