"""What a study needs of each system, reached only through the system's face: its task,
its run, its read side, and which of its numbers is the headline a study ranks subjects by.

The headline is one rate per system, the one its paper leads with: LoSoNA's accuracy-at-K
(norm-informed condition where run), SCENE's repair rate, HSII's score. ``planned_n`` is the
count of units that rate's interval is over, which the plan's power figures use.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normlab.stats import Estimate
from normlab.study.schema import Study, Subject

HEADLINE_CONDITION = "norm_informed"


@dataclass(frozen=True)
class Headline:
    metric: str
    estimate: Estimate
    n: int
    """The units behind the metric's interval (scenarios, episodes, cases)."""
    unit: str


def _only(models: dict[str, Any]) -> Any | None:
    """A cell has one subject: its analysis has (at most) one model result."""
    return next(iter(models.values()), None)


def _losona(analysis: Any) -> Headline | None:
    result = _only(analysis.models)
    if result is None or not result.conditions:
        return None
    condition = (
        HEADLINE_CONDITION
        if HEADLINE_CONDITION in result.conditions
        else next(iter(result.conditions))
    )
    chosen = result.conditions[condition]
    return Headline(f"accuracy ({condition})", chosen.accuracy, chosen.n_scenarios, "scenario")


def _scene(analysis: Any) -> Headline | None:
    result = _only(analysis.models)
    if result is None:
        return None
    view = getattr(result, analysis.headline_view)
    return Headline("repair rate", view.repair, result.episodes, "episode")


def _hsii(analysis: Any) -> Headline | None:
    result = _only(analysis.models)
    if result is None:
        return None
    estimate = Estimate(value=result.hsii, ci=result.ci.get("hsii", (None, None)), n=result.n)
    return Headline("HSII score", estimate, result.n, "case")


@dataclass(frozen=True)
class System:
    name: str
    task: str
    """The face's ``@task`` function."""
    run: str
    """The face's :class:`~normlab.commands.TaskRun`."""
    headline: Callable[[Any], Headline | None]

    def face(self) -> Any:
        return importlib.import_module(f"normlab.{self.name}")

    def factory(self) -> Callable[..., Any]:
        return getattr(self.face(), self.task)  # type: ignore[no-any-return]

    def roles(self) -> tuple[str, ...]:
        """The roles besides the subject, as the system's read side declares them."""
        return tuple(self.face().BENCHMARK.roles)

    def analyze(self, folders: list[Path]) -> Any:
        """The system's own analysis of the logs in ``folders``."""
        face = self.face()
        return face.analyze(face.load_run(folders))


SYSTEMS = {
    "losona": System("losona", "losona", "run_losona", _losona),
    "scene": System("scene", "scene", "run_scene", _scene),
    "hsii": System("hsii", "hsii", "run_hsii", _hsii),
}


@dataclass(frozen=True)
class Cell:
    """One system × one subject: what a run needs, and where its logs go."""

    system: str
    subject: Subject
    model: str
    roles: dict[str, str]
    options: dict[str, Any]
    """The task's arguments, the agent included where the task takes one."""
    folder: Path

    @property
    def label(self) -> str:
        return f"{self.system}/{self.subject.name}"


def cells(study: Study) -> list[Cell]:
    """Every cell of the study, systems in the file's order, subjects within each."""
    found = []
    for name, spec in study.systems.items():
        system = SYSTEMS[name]
        known = system.roles()
        takes_seed = "seed" in inspect.signature(system.factory()).parameters
        roles = {r: m for r, m in {**study.roles, **spec.roles}.items() if r in known}
        for subject in study.subjects:
            options = dict(spec.options)
            if study.seed is not None and takes_seed and "seed" not in options:
                options["seed"] = study.seed
            if subject.agent != "base":
                options["agent"] = subject.agent
            found.append(
                Cell(
                    name,
                    subject,
                    subject.model_for(name),
                    roles,
                    options,
                    Path(study.out) / name / subject.name,
                )
            )
    return found
