"""What a study needs of each system, read from the system's own spec (``normlab.specs``): its
options, its run, its read side, and which of its numbers is the headline a study ranks subjects
by.

The headline is one number per system, the one its paper leads with: LoSoNA's accuracy-at-K
(norm-informed condition where run) over scenarios, SCENE's repair rate over sanctions (its
interval a bootstrap over scenarios), HSII's score (0–3) over cases in dialogues, CRSEC's final
share of agents adhering to the target norms over runs. Each names the unit its n counts and the
clusters its interval resamples, and the settings that make it the quantity a paper's number
may be set beside. Each system also says how its dry run sampled those units (``design``),
which estimator the plan sizes it with (``estimator``) and what a pilot's run measured for it
(``measure``): ``normlab.study.power``. Each is declared once, in the system's ``spec.py``.
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task
from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.storage import log_location, within
from normlab.core.variants import VariantSpec
from normlab.models.usage import RunUsage, TokenPrice
from normlab.runs.headline import Headline
from normlab.runs.system import System as Parts
from normlab.runs.system import SystemSpec
from normlab.specs import parts, specs, task_function
from normlab.stats.planning import Assumed, Design, Estimator
from normlab.study.location import local_logs
from normlab.study.schema import Study, Subject, variant_list


@dataclass(frozen=True)
class System:
    """A system as a study runs and reads its cells: its spec, with the cell's settings."""

    spec: SystemSpec

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def parts(self) -> Parts:
        """What the spec points to (the system's run, loader, analysis, headline…)."""
        return parts(self.spec)

    @property
    def estimator(self) -> Estimator:
        """The headline's estimator, as the plan sizes it (``normlab.study.power``)."""
        return self.parts.estimator

    @property
    def quantity_options(self) -> tuple[str, ...]:
        """Task options that are part of the headline's quantity (HSII's ε)."""
        return self.parts.quantity_options

    @property
    def shardable(self) -> bool:
        """A cell can run as ``--shard I/N`` parts (an Inspect task's samples can be split)."""
        return self.parts.shardable

    @property
    def logs(self) -> str:
        """What a cell's folder holds once it has run: its logs."""
        return self.parts.logs

    def factory(self) -> Callable[..., object]:
        """The function whose parameters are the system's options (the ``@task``)."""
        return self.parts.options

    def task(self) -> Callable[..., Task]:
        """The system's ``@task`` function (a system that is no Inspect task has none)."""
        return task_function(self.spec)

    def roles(self) -> tuple[str, ...]:
        """The roles besides the subject, as the system declares them."""
        return tuple(self.spec.roles)

    def run(
        self,
        cell: Cell,
        connections: int,
        shard: str | None = None,
        report: bool = True,
        samples: tuple[str, ...] | None = None,
        prices: Mapping[str, TokenPrice] | None = None,
    ) -> BaseModel:
        """The cell (or one shard of it, or only ``samples``) run or resumed by the system's
        own run; its analysis. A shard's report goes beside its logs (``FOLDER/shard-I-of-N``);
        a remote folder's beside its local mirror; none at all without ``report``. The usage
        it prints is costed at ``prices`` (the study's) where they name a model."""
        from normlab.runs import RunOptions

        folder = cell.folder
        report_dir = folder if isinstance(folder, Path) and shard is None else None
        settings = RunOptions(
            log_dir=folder,
            report_dir=report_dir,
            max_connections=connections,
            shard=shard,
            report=report,
            samples=samples,
            prices=dict(prices or {}),
        )
        return self.parts.run(cell.model, cell.roles, settings, cell.options)

    def load(self, folders: list[Path]) -> object:
        """The logs in ``folders``, read by the system's one loader (shards as one run)."""
        return self.parts.load(folders)

    def analyze_run(self, run: object) -> BaseModel:
        """The system's own analysis of what ``load`` read."""
        return self.parts.analyze_cell(run)

    def analyze(self, folders: list[Path]) -> BaseModel:
        return self.analyze_run(self.load(folders))

    def read(self, folder: Path | str) -> tuple[object, BaseModel] | None:
        """A cell's logs (a remote folder's through its local mirror) read by the system's
        loader and its analysis of them; None when the folder holds no logs yet."""
        logs = local_logs(folder, self.logs)
        if logs is None:
            return None
        run = self.load([logs])
        return run, self.analyze_run(run)

    def headline(self, run: object, analysis: object) -> Headline | None:
        """The headline of a cell's run (what ``load`` read) and its analysis."""
        return self.parts.headline_of(run, analysis)

    def design(self, run: object, analysis: object) -> Design:
        """How the run sampled the headline's units (the plan's dry run)."""
        return self.parts.design_of(run, analysis)

    def measure(self, headline: Headline, analysis: object) -> Assumed | None:
        """The rates a pilot's cell measured, for a plan's power (``normlab.study.pilot``)."""
        return self.parts.measure_of(headline, analysis)

    def usage(self, analysis: object) -> RunUsage | None:
        """The cell's usage by role (a cell has one subject: its runs summed)."""
        return self.parts.usage_of(analysis)


SYSTEMS: Mapping[str, System] = {spec.name: System(spec) for spec in specs()}
"""Every system a study can name, from its spec."""


@dataclass(frozen=True)
class Cell:
    """One system × one subject: what a run needs, and where its logs go."""

    system: str
    subject: Subject
    model: str
    roles: dict[str, str]
    options: Mapping[str, object]
    """The task's arguments, the agent included where the task takes one."""
    folder: Path | str
    """``OUT/SYSTEM/SUBJECT``: a local folder, or a URL in object storage."""
    shards: int = 1
    """Parts the cell runs as (``--shard I/N`` each, into ``FOLDER/shard-I-of-N``)."""
    variant: str | None = None
    """The prompt variant the cell runs (``rename:1``), in its options as the task's
    ``variant``; None for the paper's prompt (the study's own cells, as they always were)."""

    @property
    def label(self) -> str:
        found = f"{self.system}/{self.subject.name}"
        return found if self.variant is None else f"{found} ({self.variant})"

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


def read_cells(
    found: Iterable[Cell], missing: list[str]
) -> Iterator[tuple[Cell, System, object, BaseModel]]:
    """Each cell with its system, its logs as the system's loader read them and its analysis,
    in order; a cell with no logs yet is added to ``missing`` (its label) and skipped."""
    for cell in found:
        system = SYSTEMS[cell.system]
        read = system.read(cell.folder)
        if read is None:
            missing.append(cell.label)
            continue
        yield cell, system, *read


VARIANTS_FOLDER = "variants"
"""Where a study's prompt variants run: ``OUT/variants/SYSTEM/VARIANT/SUBJECT``, beside the
systems' folders (a subject's own folder holds only the paper's prompt: its loader reads every
log under it)."""


def variant_folder(study: Study, system: str, variant: str) -> Path | str:
    """``OUT/variants/SYSTEM/VARIANT``: one variant's cells, a folder per subject."""
    kind, _, argument = variant.partition(":")
    root = within(within(log_location(study.out), VARIANTS_FOLDER), system)
    return within(root, VariantSpec(kind, argument).slug)


def variant_cells(study: Study) -> list[Cell]:
    """Each system's cells again under each prompt variant besides the paper's
    (``variants:``), systems and subjects in ``cells``' order, variants in the file's: the
    same models and options, the variant given to the task as its ``variant``."""
    found = []
    for cell in cells(study):
        for variant in variant_list(study.systems[cell.system])[1:]:
            found.append(
                dataclasses.replace(
                    cell,
                    options={**cell.options, "variant": variant},
                    folder=within(variant_folder(study, cell.system, variant), cell.subject.name),
                    variant=variant,
                )
            )
    return found


def refuse_sequential_variants(study: Study) -> None:
    """A sequential run (``--until-halfwidth``) stops each cell on its own units; the spread
    across variants needs every variant on the same units, so the two are not combined."""
    if variant_cells(study):
        raise InputError(
            "--until-halfwidth",
            "a study with prompt variants runs every cell whole: run it without "
            "--until-halfwidth, or give the variants a study of their own",
        )


@dataclass(frozen=True)
class Part:
    """One unit of work: a whole cell, or one ``--shard I/N`` of it."""

    cell: Cell
    shard: str | None

    @property
    def label(self) -> str:
        return self.cell.label + (f" shard {self.shard}" if self.shard else "")
