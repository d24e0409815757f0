"""What a study needs of each system, reached only through the system's face: its task,
its run, its read side, and which of its numbers is the headline a study ranks subjects by.

The headline is one rate per system, the one its paper leads with: LoSoNA's accuracy-at-K
(norm-informed condition where run), SCENE's repair rate, HSII's score, CRSEC's final share of
agents adhering to the target norms (:mod:`normlab.study.crsec_cell`). ``planned_n`` is the
count of units that rate's interval is over, which the plan's power figures use.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normlab.core.storage import log_location, within
from normlab.models.usage import RunUsage, merge_usage
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
    """A benchmark run as an Inspect task through its face's :class:`TaskRun`."""

    name: str
    task: str
    """The face's ``@task`` function."""
    run_name: str
    """The face's :class:`~normlab.commands.TaskRun`."""
    headline: Callable[[Any], Headline | None]
    shardable: bool = True
    """A cell can run as ``--shard I/N`` parts (an Inspect task's samples can be split)."""
    logs: str = "*.eval"
    """What a cell's folder holds once it has run: its logs."""

    def face(self) -> Any:
        return importlib.import_module(f"normlab.{self.name}")

    def factory(self) -> Callable[..., Any]:
        """The function whose parameters are the system's options (the ``@task``)."""
        return getattr(self.face(), self.task)  # type: ignore[no-any-return]

    def roles(self) -> tuple[str, ...]:
        """The roles besides the subject, as the system's read side declares them."""
        return tuple(self.face().BENCHMARK.roles)

    def run(
        self, cell: Cell, connections: int, shard: str | None = None, report: bool = True
    ) -> Any:
        """The cell (or one shard of it) run or resumed by the system's own run; its analysis.
        A shard's report goes beside its logs (``FOLDER/shard-I-of-N``); a remote folder's
        beside its local mirror; none at all without ``report``."""
        from normlab.commands import RunOptions

        run = getattr(self.face(), self.run_name)
        folder = cell.folder
        report_dir = folder if isinstance(folder, Path) and shard is None else None
        settings = RunOptions(
            log_dir=folder,
            report_dir=report_dir,
            max_connections=connections,
            shard=shard,
            report=report,
        )
        return run(cell.model, cell.roles, settings, **cell.options)

    def load(self, folders: list[Path]) -> Any:
        """The logs in ``folders``, read by the system's one loader (shards as one run)."""
        return self.face().load_run(folders)

    def analyze_run(self, run: Any) -> Any:
        """The system's own analysis of what :meth:`load` read."""
        return self.face().analyze(run)

    def analyze(self, folders: list[Path]) -> Any:
        return self.analyze_run(self.load(folders))

    def usage(self, analysis: Any) -> RunUsage | None:
        """The cell's usage by role (a cell has one subject: its runs summed)."""
        if not analysis.usage:
            return None
        parts = list(analysis.usage.values())
        return RunUsage(
            units=sum(p.units for p in parts), roles=merge_usage(p.roles for p in parts)
        )


class CrsecSystem(System):
    """CRSEC, a simulation rather than an Inspect task: see :mod:`normlab.study.crsec_cell`."""

    def factory(self) -> Callable[..., Any]:
        from normlab.study.crsec_cell import crsec_options

        return crsec_options

    def roles(self) -> tuple[str, ...]:
        return ("judge",)

    def run(
        self, cell: Cell, connections: int, shard: str | None = None, report: bool = True
    ) -> Any:
        """A CRSEC cell writes no report of its own either way (the study's report reads it)."""
        from normlab.core.errors import InputError
        from normlab.study.crsec_cell import run_crsec

        if not isinstance(cell.folder, Path):
            raise InputError("study", "CRSEC runs write to a local folder", field="out")
        return run_crsec(cell.options, cell.model, cell.roles, cell.folder, connections)

    def load(self, folders: list[Path]) -> Any:
        """The run folders under the cell folders (CRSEC's analysis reads them itself)."""
        from normlab.study.crsec_cell import run_folders_in

        return run_folders_in(folders)

    def analyze_run(self, run: Any) -> Any:
        from normlab.study.crsec_cell import crsec_analyze

        return crsec_analyze(run)

    def usage(self, analysis: Any) -> RunUsage | None:
        from normlab.study.crsec_cell import crsec_usage

        return crsec_usage(analysis)


def _crsec(analysis: Any) -> Headline | None:
    from normlab.study.crsec_cell import crsec_headline

    found = crsec_headline(analysis)
    return None if found is None else Headline(*found)


SYSTEMS: dict[str, System] = {
    "losona": System("losona", "losona", "run_losona", _losona),
    "scene": System("scene", "scene", "run_scene", _scene),
    "hsii": System("hsii", "hsii", "run_hsii", _hsii),
    "crsec": CrsecSystem("crsec", "", "", _crsec, shardable=False, logs="config.json"),
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
    folder: Path | str
    """``OUT/SYSTEM/SUBJECT``: a local folder, or a URL in object storage."""
    shards: int = 1
    """Parts the cell runs as (``--shard I/N`` each, into ``FOLDER/shard-I-of-N``)."""

    @property
    def label(self) -> str:
        return f"{self.system}/{self.subject.name}"

    def parts(self) -> list[str | None]:
        """The ``--shard`` of each part: ``[None]`` for a cell run whole."""
        if self.shards == 1:
            return [None]
        return [f"{index}/{self.shards}" for index in range(1, self.shards + 1)]


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
                    within(within(log_location(study.out), name), subject.name),
                    spec.shards,
                )
            )
    return found


@dataclass(frozen=True)
class Part:
    """One unit of work: a whole cell, or one ``--shard I/N`` of it."""

    cell: Cell
    shard: str | None

    @property
    def label(self) -> str:
        return self.cell.label + (f" shard {self.shard}" if self.shard else "")
