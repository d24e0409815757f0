"""CRSEC as a study's system (its parts' study side, ``normlab.crsec.parts``): the subject is every
agent's model, the society's runs are the cell's units, and the headline is the share of agents
adhering to the society's target norms at the end.

CRSEC is a simulation, not an Inspect task, so it has no ``@task`` function to read options
from: ``crsec_options`` stands in for one, with ``normlab crsec run``'s options as its
parameters (a study's ``systems.crsec.options`` are checked against it, as the other systems'
against their tasks). A cell's runs go to ``OUT/crsec/SUBJECT/run-1 … run-N`` with seeds
``seed … seed+N-1``; a rerun resumes each from its checkpoint, as ``normlab crsec resume``
does, so a killed cell counts every simulated tick once.

The headline, "adhering share (final)", is per run the mean over the society's target norms of
the share of agents whose plan or actions complied at the last hour; over several runs, their
mean with a bootstrap interval over runs (the unit is the run: agents of one society are not
independent). One run has no interval: the report says an interval needs at least two runs
(a Wilson interval over one run's agent × target pairs would treat them as independent).

A second judge (``judges:``) cannot score a finished log: CRSEC's judge classifies inside the
analysis. So each finished run is copied (what the analysis reads, its ``config.json`` naming
the other judge; not the judge cache) to the judge's folder, outside the cell's, and the
analysis runs again on the copies: the extra judge makes the analysis's judge calls again
(match and compliance), its verdicts cached in the copies. Its per-unit verdicts are the
final-hour adherence flags the headline is built from, one per (run, agent, target norm).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from normlab.core.errors import InputError
from normlab.core.outputs import built_whole
from normlab.crsec.analysis.figure2 import ANALYZED_FILES, CrsecAnalysis
from normlab.crsec.runner import analyze as analyze_folders
from normlab.crsec.runner import configure, simulate
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import Ablation
from normlab.crsec.sim.society import HOBBS_CAFE
from normlab.models.usage import SUBJECT_ROLE, RoleUsage, RunUsage, merge_usage
from normlab.runs.console import stdout_to_stderr
from normlab.runs.headline import Headline
from normlab.stats import Estimate

SUBJECT = "agent"
"""CRSEC's name for the role a study's subject takes."""
JUDGE = "judge"
ANALYSIS_SUFFIX = " (this analysis)"
METRIC = "adhering share (final)"


class CrsecOptions(BaseModel):
    """A CRSEC cell's options (``crsec_options``'s parameters), checked."""

    model_config = ConfigDict(extra="forbid")

    society: str | None = None
    days: int | None = None
    hours: str | None = None
    agents: str | None = None
    tick_minutes: int | None = None
    faithful: bool = False
    ablations: list[Ablation] = []
    synthesis_trigger: Literal["paper", "counter"] = "paper"
    max_utterances: int | None = None
    classify_hint: bool = False
    runs: int = 1
    seed: int = 0


def crsec_options(
    society: str | None = None,
    days: int | None = None,
    hours: str | None = None,
    agents: str | None = None,
    tick_minutes: int | None = None,
    faithful: bool = False,
    ablations: list[str] | None = None,
    synthesis_trigger: str = "paper",
    max_utterances: int | None = None,
    classify_hint: bool = False,
    runs: int = 1,
    seed: int = 0,
) -> CrsecOptions:
    """A CRSEC cell's options, as ``normlab crsec run`` takes them.

    Args:
        society: Society file (JSON or YAML); default Hobbs Cafe.
        days: Simulated days (default: the society's).
        hours: Active hours START-END, e.g. 8-16.
        agents: Only these agents (comma-separated names).
        tick_minutes: Minutes per tick.
        faithful: One call per operation, as the paper describes.
        ablations: no_entrepreneurs, no_communication, no_observation, no_evaluation,
            no_synthesis.
        synthesis_trigger: paper (utilities sum past the threshold) or counter.
        max_utterances: Conversation length cap.
        classify_hint: The authors' code's category hint in ClassifySpecificNorms.
        runs: Independent runs (seeds seed … seed+N-1).
        seed: Seed of the first run.
    """
    return checked_options(
        {
            "society": society,
            "days": days,
            "hours": hours,
            "agents": agents,
            "tick_minutes": tick_minutes,
            "faithful": faithful,
            "ablations": list(ablations or []),
            "synthesis_trigger": synthesis_trigger,
            "max_utterances": max_utterances,
            "classify_hint": classify_hint,
            "runs": runs,
            "seed": seed,
        }
    )


def checked_options(options: Mapping[str, object]) -> CrsecOptions:
    """A study file's ``systems.crsec.options``, checked: a bad one is one line naming it."""
    try:
        return CrsecOptions.model_validate(dict(options))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"] if isinstance(part, str))
        raise InputError(
            "study", first["msg"], field=f"systems.crsec.options.{where}".rstrip(".")
        ) from None


def run_folders(folder: Path, runs: int) -> list[Path]:
    return [folder / f"run-{index + 1}" for index in range(runs)]


def run_crsec(
    options: Mapping[str, object],
    model: str,
    roles: Mapping[str, str],
    folder: Path,
    connections: int | None,
) -> CrsecAnalysis:
    """Create the cell's runs (or keep those already there, to resume them), simulate them to
    their end and analyze them; the analysis."""
    given = checked_options(options)
    models = {JUDGE: roles.get(JUDGE, model), **roles, SUBJECT: model}
    folders = run_folders(folder, given.runs)
    for index, run_folder in enumerate(folders):
        run = RunDir(run_folder)
        if run.exists():
            continue
        # Every option but the cell's own (the society file, runs, the first seed) is
        # ``configure``'s override of the same name.
        config = configure(
            Path(given.society) if given.society else HOBBS_CAFE,
            models,
            seed=given.seed + index,
            **given.model_dump(exclude={"society", "runs", "seed"}),
        )
        run.create(config)
    simulate(folders, None, None, report=False, max_connections=connections)
    return analyze_folders(folders, models[JUDGE], connections)


class CrsecRuns(list[Path]):
    """A cell's run folders, as the study's loader gives CRSEC, and their analysis once made:
    the report reads the headline and the judges' per-unit verdicts from one analysis instead
    of reading every run's events twice."""

    analysis: CrsecAnalysis | None = None


def run_folders_in(folders: list[Path]) -> CrsecRuns:
    """Every CRSEC run folder (one holding ``config.json``) under ``folders``."""
    return CrsecRuns(
        sorted({path.parent for folder in folders for path in folder.rglob("config.json")})
    )


def crsec_analyze(runs: list[Path]) -> CrsecAnalysis:
    """The analysis of the runs by the judge their config names (the first run's), verdicts
    from their caches."""
    if isinstance(runs, CrsecRuns) and runs.analysis is not None:
        return runs.analysis
    with stdout_to_stderr():
        analysis = analyze_folders(runs, None)
    if isinstance(runs, CrsecRuns):
        runs.analysis = analysis
    return analysis


# --- a second judge -------------------------------------------------------------------------


def _copy_run(source: Path, target: Path, judge: str) -> None:
    """What the analysis reads of ``source``, to ``target``, its config naming ``judge``:
    built beside the judge's folder and moved whole (``built_whole``), so a kill mid-copy
    leaves nothing the judge's analysis or the report reads."""
    config = RunDir(source).config()
    with built_whole(target) as built:
        copy = RunDir(built)
        copy.create(config.model_copy(update={"models": {**config.models, JUDGE: judge}}))
        for name in ANALYZED_FILES:  # config.json is written above
            if source.joinpath(name).exists() and not copy.file(name).exists():
                shutil.copyfile(source / name, copy.file(name))


def rescore_crsec(cell: Path, judge: str, folder: Path) -> None:
    """The cell's finished runs judged again by ``judge``: each copied once to
    ``folder/run-N``, then the analysis of the copies with ``judge`` (its verdicts cached in
    them, so a rerun, or a rescoring killed half-way, pays only for what is missing). A run
    not finished yet is left for a later ``study run``: its copy would go stale."""
    copies = []
    for run in run_folders_in([cell]):
        state = RunDir(run).checkpoint()
        if state is None or not state.finished:
            continue
        target = folder / run.name
        if not RunDir(target).exists():
            _copy_run(run, target, judge)
        copies.append(target)
    if copies:
        with stdout_to_stderr():
            analyze_folders(copies, judge)


def crsec_judged(cell: Path, folder: Path) -> bool:
    """Whether every run of the cell has its copy in the judge's ``folder``."""
    runs = run_folders_in([cell])
    return bool(runs) and all(RunDir(folder / run.name).exists() for run in runs)


def crsec_verdicts(runs: list[Path]) -> dict[str, tuple[str, bool]]:
    """Per (run, agent, target norm), keyed the same in a run and its copy: whether the agent
    adhered at the last hour, clustered by run (agents of one society are not independent)."""
    return {
        f"{Path(run.folder).name}|{agent}|{target}": (run.folder, adheres)
        for run in crsec_analyze(runs).runs
        for target, flags in run.final_adhering.items()
        for agent, adheres in flags.items()
    }


def crsec_usage(analysis: CrsecAnalysis) -> RunUsage | None:
    """The cell's usage, summed over its runs, with CRSEC's roles under a study's names: the
    agents' calls are the subject's, the judge's calls of the analysis are the judge's. Verdicts
    an earlier analysis cached count as the judge's cache hits (a call a fresh run makes), so a
    report read after the run counts the calls the run made."""
    if not analysis.usage:
        return None
    merged = merge_usage(run.roles for run in analysis.usage.values())
    roles: dict[str, RoleUsage] = {}
    for role, usage in merged.items():
        name = SUBJECT_ROLE if role == SUBJECT else role.removesuffix(ANALYSIS_SUFFIX)
        roles[name] = roles.get(name, RoleUsage()) + usage
    cached = sum(run.judge_cached for run in analysis.runs)
    if cached:
        roles[JUDGE] = roles.get(JUDGE, RoleUsage()) + RoleUsage(cache_hits=cached)
    return RunUsage(units=len(analysis.runs), roles=roles)


def crsec_headline(analysis: CrsecAnalysis) -> Headline | None:
    """The mean final adhering share over target norms (see the module docstring): over runs,
    with a bootstrap interval over runs; one run has no interval (its agents are not
    independent units, so a Wilson interval over its agent × norm pairs would be too narrow),
    and says so."""
    runs = [run for run in analysis.runs if run.final]
    if not runs:
        return None
    shares = [sum(s["adhering"] for s in run.final.values()) / len(run.final) for run in runs]
    estimate = Estimate.mean_of(shares)
    one = len(runs) == 1
    models = sorted({run.models.get(SUBJECT, "") for run in runs} - {""})
    return Headline(
        METRIC,
        estimate.model_copy(update={"ci": (None, None)}) if one else estimate,
        len(runs),
        "run",
        model=", ".join(models) or None,
        note="an interval needs at least 2 runs (runs: N)" if one else None,
    )
