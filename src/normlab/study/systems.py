"""What a study needs of each system, reached only through the system's face: its task,
its run, its read side, and which of its numbers is the headline a study ranks subjects by.

The headline is one number per system, the one its paper leads with: LoSoNA's accuracy-at-K
(norm-informed condition where run) over scenarios, SCENE's repair rate over sanctions (its
interval a bootstrap over scenarios), HSII's score (0–3) over cases in dialogues, CRSEC's final
share of agents adhering to the target norms over runs (``normlab.study.crsec_cell``). Each
names the unit its n counts and the clusters its interval resamples, and the settings that make
it the quantity a paper's number may be set beside. Each system also says how its dry run
sampled those units (``design``), which estimator the plan sizes it with (``estimator``) and what
a pilot's run measured for it (``measure``): ``normlab.study.power``.
"""

from __future__ import annotations

import importlib
import inspect
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normlab.core.storage import log_location, within
from normlab.models.usage import RunUsage, merge_usage
from normlab.stats import Estimate
from normlab.study.headline import Headline
from normlab.study.power import (
    HSII_STAGES,
    Assumed,
    Design,
    Estimator,
    Proportion,
    RunMean,
    StagedScore,
    conservative,
)
from normlab.study.schema import Study, Subject

HEADLINE_CONDITION = "norm_informed"


def _only(models: dict[str, Any]) -> tuple[str, Any] | None:
    """A cell has one subject: its analysis has (at most) one model result."""
    return next(iter(models.items()), None)


def _losona(run: Any, analysis: Any) -> Headline | None:
    found = _only(analysis.models)
    if found is None or not found[1].conditions:
        return None
    model, result = found
    condition = (
        HEADLINE_CONDITION
        if HEADLINE_CONDITION in result.conditions
        else next(iter(result.conditions))
    )
    chosen = result.conditions[condition]
    return Headline(
        f"accuracy ({condition})",
        chosen.accuracy,
        chosen.n_scenarios,
        "scenario",
        quantity={"K": chosen.k},
        model=model,
    )


SCENE_VIEWS = {"all_episodes": "all episodes", "valid_only": "VALID episodes only"}


def _scene(run: Any, analysis: Any) -> Headline | None:
    """The repair rate pooled over sanctions, its interval a bootstrap over scenarios (a
    scenario's sanctions, over all its repetitions, are not independent); n is the sanctions,
    0 when no sanction was made (no rate then, and no interval)."""
    from normlab.study.compare import units_of

    found = _only(analysis.models)
    if found is None:
        return None
    counts = units_of("scene", run, analysis)
    assert isinstance(counts, dict)
    pooled = [value for value in counts.values() if isinstance(value, tuple)]
    estimate = Estimate.pooled_rate(pooled)
    clusters = sum(1 for _, sanctions in pooled if sanctions)
    note = None
    if not estimate.n:
        note = "no sanction was made: the repair rate has no denominator"
    elif clusters < 2:
        note = "an interval needs sanctions in at least 2 scenarios (its resampled unit)"
    return Headline(
        "repair rate",
        estimate,
        estimate.n,
        "sanction",
        clusters=clusters,
        cluster_unit="scenario",
        quantity={"view": SCENE_VIEWS.get(analysis.headline_view, analysis.headline_view)},
        model=found[0],
        note=note,
    )


def _hsii(run: Any, analysis: Any) -> Headline | None:
    found = _only(analysis.models)
    if found is None:
        return None
    model, result = found
    estimate = Estimate(value=result.hsii, ci=result.ci.get("hsii", (None, None)), n=result.n)
    return Headline(
        "HSII score",
        estimate,
        result.n,
        "case",
        clusters=result.dialogues,
        cluster_unit="dialogue",
        quantity={"formula": result.formula},
        model=model,
    )


@dataclass(frozen=True)
class System:
    """A benchmark run as an Inspect task through its face's ``TaskRun``."""

    name: str
    task: str
    """The face's ``@task`` function."""
    run_name: str
    """The face's [`TaskRun`][normlab.runs.TaskRun]."""
    headline: Callable[[Any, Any], Headline | None]
    """The headline of a cell's run (what ``load`` read) and its analysis."""
    design: Callable[[Any, Any], Design]
    """How the run sampled the headline's units (the plan's dry run)."""
    estimator: Estimator
    """The headline's estimator, as the plan sizes it (``normlab.study.power``)."""
    measure: Callable[[Headline, Any], Assumed | None]
    """The rates a pilot's cell measured, for a plan's power (``normlab.study.pilot``)."""
    quantity_options: tuple[str, ...] = ()
    """Task options that are part of the headline's quantity (HSII's ε)."""
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
        self,
        cell: Cell,
        connections: int,
        shard: str | None = None,
        report: bool = True,
        samples: tuple[str, ...] | None = None,
    ) -> Any:
        """The cell (or one shard of it, or only ``samples``) run or resumed by the system's
        own run; its analysis. A shard's report goes beside its logs (``FOLDER/shard-I-of-N``);
        a remote folder's beside its local mirror; none at all without ``report``."""
        from normlab.runs import RunOptions

        run = getattr(self.face(), self.run_name)
        folder = cell.folder
        report_dir = folder if isinstance(folder, Path) and shard is None else None
        settings = RunOptions(
            log_dir=folder,
            report_dir=report_dir,
            max_connections=connections,
            shard=shard,
            report=report,
            samples=samples,
        )
        return run(cell.model, cell.roles, settings, **cell.options)

    def load(self, folders: list[Path]) -> Any:
        """The logs in ``folders``, read by the system's one loader (shards as one run)."""
        return self.face().load_run(folders)

    def analyze_run(self, run: Any) -> Any:
        """The system's own analysis of what ``load`` read."""
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
    """CRSEC, a simulation rather than an Inspect task: see ``normlab.study.crsec_cell``."""

    def factory(self) -> Callable[..., Any]:
        from normlab.study.crsec_cell import crsec_options

        return crsec_options

    def roles(self) -> tuple[str, ...]:
        return ("judge",)

    def run(
        self,
        cell: Cell,
        connections: int,
        shard: str | None = None,
        report: bool = True,
        samples: tuple[str, ...] | None = None,
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


def _crsec(run: Any, analysis: Any) -> Headline | None:
    from normlab.study.crsec_cell import crsec_headline

    return crsec_headline(analysis)


# --- the plan's design and a pilot's rates, per system -----------------------------------


def _losona_design(run: Any, analysis: Any) -> Design:
    headline = _losona(run, analysis)
    return Design(sampled="scenario", cluster=None, sizes=[1] * (headline.n if headline else 0))


def _scene_design(run: Any, analysis: Any) -> Design:
    episodes = Counter(record.outcome.scenario_id for record in run.records)
    return Design(sampled="episode", cluster="scenario", sizes=sorted(episodes.values()))


def _hsii_design(run: Any, analysis: Any) -> Design:
    cases = Counter(record.cluster for record in run.records)
    return Design(sampled="case", cluster="dialogue", sizes=sorted(cases.values()))


def _crsec_design(run: Any, analysis: Any) -> Design:
    runs = [result for result in analysis.runs if result.final]
    pairs = max((result.agents * len(result.final) for result in runs), default=0)
    return Design(sampled="run", cluster="run", sizes=[pairs] * len(runs), pairs_per_run=pairs)


def _share(headline: Headline, analysis: Any) -> Assumed | None:
    """A measured share, made usable for planning (``conservative``)."""
    value = headline.estimate.value
    if value is None:
        return None
    k_of_n = (value * headline.n, headline.n) if headline.unit != "run" else None
    rate = conservative(value, k_of_n, headline.estimate.ci)
    return None if rate is None else Assumed(rate=rate)


def _scene_measure(headline: Headline, analysis: Any) -> Assumed | None:
    found = _only(analysis.models)
    episodes = getattr(found[1], analysis.headline_view).episodes if found else 0
    share = _share(headline, analysis)
    per_episode = headline.n / episodes if episodes else None
    if share is None and per_episode is None:
        return None
    return Assumed(rate=share.rate if share else None, sanctions_per_episode=per_episode)


def _hsii_measure(headline: Headline, analysis: Any) -> Assumed | None:
    """r1–r4, each made usable over its own denominator (n, n1, n2); a stage no case reached
    keeps the default's rate."""
    found = _only(analysis.models)
    if found is None or not found[1].n:
        return None
    result = found[1]
    stages = []
    for index, (name, n) in enumerate(
        (("r1", result.n), ("r2", result.n1), ("r3", result.n2), ("r4", result.n2))
    ):
        value = getattr(result, name)
        usable = (
            None
            if value is None
            else conservative(value, (value * n, n), result.ci.get(name, (None, None)))
        )
        stages.append(HSII_STAGES[index] if usable is None else usable)
    return Assumed(stages=(stages[0], stages[1], stages[2], stages[3]))


SYSTEMS: dict[str, System] = {
    "losona": System(
        "losona", "losona", "run_losona", _losona, _losona_design, Proportion("scenario"), _share
    ),
    "scene": System(
        "scene",
        "scene",
        "run_scene",
        _scene,
        _scene_design,
        Proportion("sanction", per_sampled=True),
        _scene_measure,
    ),
    "hsii": System(
        "hsii",
        "hsii",
        "run_hsii",
        _hsii,
        _hsii_design,
        StagedScore(),
        _hsii_measure,
        quantity_options=("epsilon",),
    ),
    "crsec": CrsecSystem(
        "crsec",
        "",
        "",
        _crsec,
        _crsec_design,
        RunMean(),
        _share,
        shardable=False,
        logs="config.json",
    ),
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
