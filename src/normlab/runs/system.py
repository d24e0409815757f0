"""One typed description per system: what the command line, the web app, studies and the demo
know of LoSoNA, SCENE, HSII or CRSEC, declared once in the system's own package.

A system's ``spec.py`` declares its [`SystemSpec`][normlab.runs.SystemSpec]: its name and command
group's help, its title and summary, its roles and their default models, its Inspect task. Light on
purpose (the command line lists the groups from it for ``normlab --help``, and Inspect's entry
point registers the tasks from it, neither importing the system). Its ``parts.py`` declares the
rest, its [`SystemParts`][normlab.runs.SystemParts], loaded on first use (``normlab.specs.parts``,
above the systems): the function whose parameters are its options, its run, the one loader of its
logs and its analysis, its headline (the number a study ranks subjects by) and that number's unit,
how a study plans its precision, pairs two subjects and judges a cell again with another model, the
human rating studies the web app offers, how a person plays the subject, and its demo. The
top-level ``normlab.specs`` finds every system's spec (a package with a ``spec.py``); no caller
keeps a table keyed by a system's name.

Callers hold the parts of different systems side by side, so they see them through
[`System`][normlab.runs.System], the base of every system's parts: it declares once what is of
the same type in every system, and where the system's loader read and its analysis made
something, its methods take and give plain objects: each goes back to the system's own
functions only after a check that it is of the system's own types (``RunT``, ``AnalysisT``), so
mypy checks every use inside a system and a value from another system fails at once, by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Generic, Never, TypeVar

if TYPE_CHECKING:
    from pydantic import BaseModel

    from normlab.core.sources import DataSource
    from normlab.models.usage import RunUsage
    from normlab.runs.benchmark import CellRun, Runner
    from normlab.runs.headline import Headline, UnitValues, Verdicts
    from normlab.runs.people import FolderRuns, Play, Rating
    from normlab.runs.reader import Reader
    from normlab.runs.statistics import HeadlineStats, Measured
    from normlab.stats.planning import Assumed, Design, Estimator

RunT = TypeVar("RunT")
"""What the system's loader reads from a cell's folders (its logs, or CRSEC's run folders)."""
AnalysisT = TypeVar("AnalysisT", bound="BaseModel")
"""What the system's analysis makes of it."""
RunIn = TypeVar("RunIn", contravariant=True)
AnalysisIn = TypeVar("AnalysisIn", bound="BaseModel", contravariant=True)
"""The same, for a part that only takes them (``Pairing``, ``Rejudge``): every such part is
one of ``Never``, which is how [`System`][normlab.runs.System] holds it, its text and its
system-typed functions apart."""


@dataclass(frozen=True)
class Pairing(Generic[RunIn, AnalysisIn]):
    """How two subjects on the same units are compared (``normlab.study.compare``): the
    headline per shared unit, and what a unit is."""

    unit: str
    units: Callable[[RunIn, AnalysisIn], UnitValues]
    resampled: str
    """What the paired bootstrap resamples, in words (``scenarios``)."""
    note: str = ""
    """What else the comparison's note says."""


def rescored_logs(logs: Path, folder: Path) -> list[Path]:
    """``[folder]`` once ``rescore_logs`` wrote a log judged again into it, else none."""
    from normlab.runs.rescore import rescored_folder

    return rescored_folder(folder)


@dataclass(frozen=True)
class Rejudge(Generic[RunIn]):
    """A finished cell judged again by another model (``normlab.study.judges``)."""

    items: str
    """What one per-unit verdict is, in words."""
    rescore: Callable[[Path, str, Path, Mapping[str, object]], None]
    """(the cell's logs, the other judge, the folder its rescored files go to, the cell's
    options): judge the logs again, keeping what an earlier rescoring wrote."""
    verdicts: Callable[[RunIn], Verdicts]
    """One judge's per-unit verdicts on one cell, as the loader read them."""
    judged: Callable[[Path, Path], list[Path]] = rescored_logs
    """(the cell's logs, that folder) → what the loader reads as the cell so judged (none
    before it was); by default an Inspect task's, the folder once a rescored log is in it."""


@dataclass(frozen=True, kw_only=True)
class System(ABC):
    """A system's parts as a caller holding several systems sees them, and the base of each
    system's [`SystemParts`][normlab.runs.SystemParts]: what is of the same type in every
    system, declared once, and the methods that take what its loader read and its analysis
    made as plain objects, checked when they come back."""

    estimator: Estimator
    """The headline's estimator, as a study plan sizes it; its ``unit`` is what the headline's
    n counts (``unit``)."""
    rejudge: Rejudge[Never]
    """How a finished cell is judged again by another model; its ``verdicts`` take the
    system's own run (``verdicts_of``)."""
    demo: Callable[[Path], Path]
    """The system small, on the embedded model, into ``OUT/NAME``; the report's path."""
    pairing: Pairing[Never, Never] | None = None
    """How two subjects pair up on shared units; None where they share none (CRSEC's runs).
    Its ``units`` take the system's own run and analysis (``units_of``)."""
    quantity_options: tuple[str, ...] = ()
    """Task options that are part of the headline's quantity (HSII's ε)."""
    shardable: bool = True
    """A cell can run as ``--shard I/N`` parts (an Inspect task's samples can be split)."""
    logs: str = "*.eval"
    """What a cell's folder holds once it has run."""
    ratings: tuple[Rating, ...] = ()
    play: Play | None = None
    reader: Reader | None = None
    """The web app's page of one sample and its line in a run's list (``runs.reader``); None
    where the system's runs are no Inspect logs (CRSEC's replay has a page of its own)."""
    folder_runs: FolderRuns | None = None
    """How the web app lists the system's run folders; None where its runs are Inspect logs
    (the web app reads those itself)."""
    subject_label: bool = True
    """Whether the logs name the subject as ``MODEL + AGENT`` (an Inspect task's subject);
    CRSEC's runs name every agent's model alone."""
    variants: Callable[[str], str] | None = None
    """Checks a prompt variant of the system (its task's ``variant``: ``rename:1``), a bad one
    a one-line ``InputError``, and gives it back as the task writes it; None where the system
    has no prompt variants (``normlab.core.variants``)."""
    statistics: HeadlineStats[Never, Never] | None = None
    """Its headline as a pooled ratio over units, how its cells run in batches of them and
    how a study of them is simulated (``normlab.runs.statistics``); None where a cell runs
    whole (a simulation of hours per run). Its ``values`` take the system's own run and
    analysis (``measured_of``)."""

    @property
    def unit(self) -> str:
        """What the headline's n counts (``scenario``, ``sanction``, ``case``, ``run``): the
        estimator's unit, stated once."""
        return self.estimator.unit

    @property
    def paired_unit(self) -> str | None:
        """What two subjects pair up on, or None where they share no unit."""
        return None if self.pairing is None else self.pairing.unit

    @property
    def paired_resampled(self) -> str:
        return "" if self.pairing is None else self.pairing.resampled

    @property
    def paired_note(self) -> str:
        return "" if self.pairing is None else self.pairing.note

    @property
    def verdict_items(self) -> str:
        return self.rejudge.items

    def rescore(self, logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
        self.rejudge.rescore(logs, judge, folder, options)

    def judged(self, logs: Path, folder: Path) -> list[Path]:
        return self.rejudge.judged(logs, folder)

    # --- what takes or gives the system's own types, as plain objects ---------------------

    @property
    @abstractmethod
    def options(self) -> Callable[..., object]:
        """The function whose parameters are the system's options (its ``@task``)."""

    @property
    @abstractmethod
    def run(self) -> CellRun[BaseModel]:
        """Run or resume a cell as the system's ``run`` command does; its analysis."""

    @property
    @abstractmethod
    def load(self) -> Callable[[list[Path]], object]:
        """The one loader of the system's logs."""

    @abstractmethod
    def analyze_cell(self, run: object) -> BaseModel:
        """The system's analysis of what ``load`` read."""

    @abstractmethod
    def headline_of(self, run: object, analysis: object) -> Headline | None:
        """The number a study ranks subjects by, with its n, interval and quantity."""

    @abstractmethod
    def design_of(self, run: object, analysis: object) -> Design:
        """How a run sampled the headline's units (a study plan's dry run)."""

    @abstractmethod
    def measure_of(self, headline: Headline, analysis: object) -> Assumed | None:
        """The rates a pilot's cell measured, for a study plan's power."""

    @abstractmethod
    def usage_of(self, analysis: object) -> RunUsage | None:
        """A cell's usage by role under a study's role names."""

    @abstractmethod
    def units_of(self, run: object, analysis: object) -> UnitValues | None:
        """The headline per shared unit, or None where two subjects share no unit."""

    @abstractmethod
    def verdicts_of(self, run: object) -> Verdicts:
        """One judge's per-unit verdicts on one cell."""

    @abstractmethod
    def measured_of(self, run: object, analysis: object) -> Measured | None:
        """A cell's units as its headline pools them, or None where its cells run whole."""


@dataclass(frozen=True, kw_only=True)
class SystemParts(System, Generic[RunT, AnalysisT]):
    """What a system's spec points to (its ``parts.py`` declares ``PARTS``), typed by what its
    loader reads (``RunT``) and its analysis makes (``AnalysisT``)."""

    runner: Runner[RunT, AnalysisT]
    """Its options, run, loader, analysis and usage, and the types its loader reads and its
    analysis makes (an Inspect task's: ``TaskRun.runner``)."""
    headline: Callable[[RunT, AnalysisT], Headline | None]
    design: Callable[[RunT, AnalysisT], Design]
    measure: Callable[[Headline, AnalysisT], Assumed | None]
    rejudge: Rejudge[RunT]
    pairing: Pairing[RunT, AnalysisT] | None = None
    statistics: HeadlineStats[RunT, AnalysisT] | None = None

    def checked_run(self, run: object) -> RunT:
        """``run`` as this system's loader's type, or a TypeError naming both."""
        expected = self.runner.run_type
        if not isinstance(run, expected):
            raise TypeError(f"a {expected.__name__} expected, not {type(run)}")
        return run

    def checked_analysis(self, analysis: object) -> AnalysisT:
        expected = self.runner.analysis_type
        if not isinstance(analysis, expected):
            raise TypeError(f"a {expected.__name__} expected, not {type(analysis)}")
        return analysis

    @property
    def options(self) -> Callable[..., object]:
        return self.runner.options

    @property
    def run(self) -> CellRun[AnalysisT]:
        return self.runner.run

    @property
    def load(self) -> Callable[[list[Path]], RunT]:
        return self.runner.load

    def analyze_cell(self, run: object) -> AnalysisT:
        return self.runner.analyze(self.checked_run(run))

    def headline_of(self, run: object, analysis: object) -> Headline | None:
        return self.headline(self.checked_run(run), self.checked_analysis(analysis))

    def design_of(self, run: object, analysis: object) -> Design:
        return self.design(self.checked_run(run), self.checked_analysis(analysis))

    def measure_of(self, headline: Headline, analysis: object) -> Assumed | None:
        return self.measure(headline, self.checked_analysis(analysis))

    def usage_of(self, analysis: object) -> RunUsage | None:
        return self.runner.usage(self.checked_analysis(analysis))

    def units_of(self, run: object, analysis: object) -> UnitValues | None:
        if self.pairing is None:
            return None
        return self.pairing.units(self.checked_run(run), self.checked_analysis(analysis))

    def verdicts_of(self, run: object) -> Verdicts:
        return self.rejudge.verdicts(self.checked_run(run))

    def measured_of(self, run: object, analysis: object) -> Measured | None:
        if self.statistics is None:
            return None
        return self.statistics.values(self.checked_run(run), self.checked_analysis(analysis))


@dataclass(frozen=True)
class SystemSpec:
    """One system, described once (see the module docstring); each system's ``spec.py``
    declares its ``SPEC``. Light: the rest is its ``parts.py``, loaded on first use
    (``normlab.specs.parts``)."""

    name: str
    """The command group and the folder a study writes its cells to (``losona``)."""
    title: str
    """The system's name in pages and reports (``LoSoNA``)."""
    position: int
    """Where it comes in listings (the command's help, the demo, the web app)."""
    help: str
    """The command group's help (``normlab --help``)."""
    summary: str
    """What the system is, in a few words (the demo's index)."""
    roles: Mapping[str, str]
    """The model roles besides the subject, each with the model it takes by default."""
    subject_role: str = "subject"
    """What the system calls the role a study's subject takes (CRSEC: every ``agent``)."""
    task: str | None = None
    """Its ``@task`` function in ``normlab.NAME.task`` (the module registers every task of the
    system with Inspect); None for a system that is no Inspect task (CRSEC, a simulation)."""

    @property
    def cli(self) -> str:
        """The module whose ``app`` is the command group."""
        return f"normlab.{self.name}.cli"

    def task_metadata(
        self,
        settings: Mapping[str, object],
        data: DataSource,
        variant: Mapping[str, str] | None = None,
    ) -> dict[str, object]:
        """What a task of the system records of a run (its ``Task.metadata``), the same way
        for every task: the system's name, the run's ``settings``, the data it read (for its
        report) and its prompt variant (none for the paper's prompt, so that its logs stay as
        they were)."""
        from normlab.core.sources import DATA_KEY
        from normlab.core.variants import VARIANT_KEY

        return {
            "benchmark": self.name,
            **settings,
            DATA_KEY: data.model_dump(),
            **({VARIANT_KEY: dict(variant)} if variant else {}),
        }
