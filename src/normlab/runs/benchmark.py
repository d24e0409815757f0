"""A system's read side and its run, alike for every benchmark and every caller (command, program).

A system describes its read side once ([`Benchmark`][normlab.runs.Benchmark]: its roles, how to
load logs, analyze them, show the analysis and write the report);
[`add_read_commands`][normlab.commands.add_read_commands] gives it ``analyze PATHS [--json]`` and
``report PATHS [--out DIR]``, [`add_run_command`][normlab.commands.add_run_command] its ``run``,
and [`TaskRun`][normlab.runs.TaskRun] the same run for a program (the web app, the demos): each
ends in [`finish_run`][normlab.runs.finish_run].
Conventions: ``--json`` prints only JSON on stdout; progress, notes and the
report path go to stderr; every log is read once and every sample counted once.
"""

from __future__ import annotations

import inspect
import shutil
from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass, field
from pathlib import Path
from typing import Generic, ParamSpec, Protocol, TypeAlias, TypeVar

from inspect_ai import Task
from inspect_ai.model import Model

from normlab.core.errors import InputError
from normlab.core.evalrun import (
    Configuration,
    OtherRunInFolder,
    Shard,
    check_folder,
    only_samples,
    run_task,
)
from normlab.core.logs import BASE_AGENT, SampleSet, variants_by_run
from normlab.core.outputs import output_folder
from normlab.core.storage import (
    check_remote_folder,
    log_location,
    mirror_folder,
    within,
)
from normlab.core.variants import PAPER
from normlab.models import DEFAULT_MODEL, AnalysisBase, RoleSettings
from normlab.models.preflight import check_models
from normlab.models.usage import SUBJECT_ROLE, RunUsage, TokenPrice, merge_usage, priced
from normlab.report import usage_table
from normlab.runs.console import note, print_json, print_table, stdout_to_stderr
from normlab.runs.folders import default_log_dir, roles_line


class Loaded(Protocol):
    """What a system's loader returns: at least the deduplicated samples it read and the
    records (trials, episodes, cases) they and any record files hold."""

    @property
    def samples(self) -> SampleSet: ...

    @property
    def records(self) -> Sized: ...


LoadedT = TypeVar("LoadedT", bound=Loaded)
AnalysisT = TypeVar("AnalysisT", bound=AnalysisBase)
P = ParamSpec("P")
RunT = TypeVar("RunT")
"""What any system's loader reads (a task's ``Loaded``, CRSEC's run folders)."""
ResultT = TypeVar("ResultT")
"""What any system's analysis makes (a task's ``AnalysisBase``, CRSEC's analysis)."""


@dataclass(frozen=True)
class Benchmark(Generic[LoadedT, AnalysisT]):
    """A system's read side: load logs or records, analyze, show, write the report."""

    name: str
    unit: str
    """What one sample is: "trial", "episode", "case"."""
    roles: tuple[str, ...]
    """The model roles besides the subject, as its task declares them (``Task.model_roles``)."""
    run_type: type[LoadedT]
    """What ``load`` reads, declared beside it: where a caller holds every system's runs as
    plain objects (studies, the web app), the system's parts check a run against it."""
    analysis_type: type[AnalysisT]
    """What ``analyze`` makes, likewise."""
    load: Callable[[list[Path]], LoadedT]
    analyze: Callable[[LoadedT], AnalysisT]
    show: Callable[[LoadedT, AnalysisT], None]
    write_report: Callable[[LoadedT, AnalysisT, Path], Path]


def emit(
    bench: Benchmark[LoadedT, AnalysisT], loaded: LoadedT, analysis: AnalysisT, as_json: bool
) -> None:
    """Print an analysis: JSON only on stdout, or the system's tables and the usage table;
    on stderr, the prompt variant each subject ran where it is not the paper's prompt."""
    for skipped in loaded.samples.skipped:
        note(f"counted once: {skipped}")
    for subject, variant in variants_by_run(loaded.samples).items():
        if variant.spec != PAPER:  # a variant's numbers are never read as the paper's
            said = f"{variant.label} ({variant.description})"
            note(f"{subject}: prompt variant {said}, as its logs record")
    if as_json:
        print_json(analysis)
    else:
        bench.show(loaded, analysis)
        if analysis.usage:
            print_table(usage_table(analysis.usage, bench.unit))


def load_some(bench: Benchmark[LoadedT, AnalysisT], paths: list[Path]) -> LoadedT:
    """``bench.load(paths)``, or an [`InputError`][normlab.core.InputError] when they hold nothing
    to analyze: an empty table with exit 0 would read as a run that measured nothing."""
    loaded = bench.load(paths)
    if not len(loaded.records):
        raise InputError(
            ", ".join(str(path) for path in paths),
            f"no {bench.name} {bench.unit}s found (no scored samples in logs, no record rows)",
        )
    return loaded


def analyze_and_emit(
    bench: Benchmark[LoadedT, AnalysisT], loaded: LoadedT, as_json: bool
) -> AnalysisT:
    analysis = bench.analyze(loaded)
    emit(bench, loaded, analysis, as_json)
    return analysis


@dataclass(frozen=True)
class RunOptions:
    """How and where a run goes, whatever the benchmark: the shared ``run`` options that are
    not the task's arguments."""

    log_dir: str | Path | None = None
    report_dir: Path | None = None
    as_json: bool = False
    max_connections: int | None = None
    shard: str | None = None
    report: bool = True
    """Write the report (and name it). A program's run whose folder is thrown away after it
    (``study plan``'s dry runs) writes none: its path would name a folder that is gone."""
    samples: tuple[str, ...] | None = None
    """Run only these sample ids of the task (a sequential study's batch of units, into a
    folder of its own, so a finished sample is never run again)."""
    prices: Mapping[str, TokenPrice] = field(default_factory=dict)
    """Dollars per million tokens by model, over Inspect's (a study's ``prices:``), so the
    usage this run prints costs what the study's plan and budget cost it."""


def task_roles(task: Task) -> dict[str, str]:
    """The models a task binds its roles to by default (``Task(model_roles=…)``)."""

    def named(model: Model | list[Model]) -> str:
        return ",".join(map(str, model)) if isinstance(model, list) else str(model)

    return {role: named(model) for role, model in (task.model_roles or {}).items()}


def task_arguments(factory: Callable[..., Task], args: Mapping[str, object]) -> dict[str, object]:
    """Every argument of ``factory``, defaults included, caps and efforts as dictionaries:
    the arguments a run records, the same however a caller left its defaults, so a run
    started by the command line resumes from a program and the other way round."""
    bound = inspect.signature(factory).bind(**args)
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    if "max_tokens" in arguments:
        given = RoleSettings.of(arguments["max_tokens"], arguments.get("reasoning_effort"))
        arguments.update(given.task_args())
    return arguments


def finish_run(
    bench: Benchmark[LoadedT, AnalysisT],
    factory: Callable[..., Task],
    args: Mapping[str, object],
    model: str,
    roles: Mapping[str, str],
    options: RunOptions,
) -> AnalysisT:
    """Build the task ``factory(**args)``, run (or resume) it through eval_set, then analyze,
    print and write the report.

    The task is built first, so bad options and data fail before any folder exists. A role
    ``roles`` leaves out is bound to the task's default for it. Logs go
    to ``options.log_dir``, by default a folder naming every role's model and the agent
    wrapping the subject (``args["agent"]``), if any, and inside it one naming the task's
    configuration (the arguments that differ from the defaults), so a run of other options
    never lands in a folder it cannot resume; a folder that holds another configuration is
    refused up front, on one line. A URL puts the logs in object storage, and the report then
    goes beside their local mirror. A person in the subject's seat (``human/…``) answers one
    sample at a time.
    """
    arguments = task_arguments(factory, args)
    task = factory(**arguments)
    roles = {**task_roles(task), **roles}
    agent = str(arguments.get("agent", BASE_AGENT))
    configuration = Configuration.of(factory, arguments, beside=("agent",))
    check_models([("--model", model), *((f"--role {r}", used) for r, used in roles.items())])
    default = default_log_dir(bench.name, model, roles, agent) / configuration.folder()
    folder = log_location(options.log_dir or default)
    if options.shard is not None:
        part = Shard.parse(options.shard)
        task = part.apply(task)
        folder = within(folder, part.folder)
    if options.samples is not None:
        task = only_samples(task, options.samples)
    # Checked before the run, which may take hours, rather than when its logs are written.
    if isinstance(folder, Path):
        output_folder(folder, "--log-dir")
    else:
        check_remote_folder(folder, "--log-dir")
    check_folder(folder, task, configuration, model, roles)
    report_dir = options.report_dir
    if report_dir is not None:
        output_folder(report_dir, "--report-dir")
    for line in roles_line(model, roles):
        note(line)
    with stdout_to_stderr(options.as_json):
        one_at_a_time = 1 if model.startswith("human/") else None
        logs = run_task(
            task,
            folder,
            model,
            roles,
            max_samples=one_at_a_time,
            max_connections=options.max_connections,
        )
    loaded = bench.load(logs)
    analysis = bench.analyze(loaded)
    if options.prices:
        analysis.usage = priced(analysis.usage, {SUBJECT_ROLE: model, **roles}, options.prices)
    emit(bench, loaded, analysis, options.as_json)
    if options.report:
        local = folder if isinstance(folder, Path) else mirror_folder(folder)
        path = bench.write_report(loaded, analysis, report_dir or local)
        note(f"report: {path.resolve()}")
    return analysis


def summed_usage(analysis: AnalysisBase) -> RunUsage | None:
    """A cell's usage by role: its runs summed (a cell has one subject)."""
    if not analysis.usage:
        return None
    parts = list(analysis.usage.values())
    return RunUsage(units=sum(p.units for p in parts), roles=merge_usage(p.roles for p in parts))


CellRun: TypeAlias = Callable[[str, Mapping[str, str], RunOptions, Mapping[str, object]], ResultT]
"""(subject model, roles, where and how, the task's arguments) → the analysis: a system run or
resumed as its ``run`` command does it (a task's ``TaskRun.with_arguments``)."""


@dataclass(frozen=True)
class Runner(Generic[RunT, ResultT]):
    """How a system runs a cell and reads it back, as its parts hold it
    ([`SystemParts`][normlab.runs.SystemParts]``.runner``): for an Inspect task, what its
    [`TaskRun`][normlab.runs.TaskRun] holds (``TaskRun.runner``); CRSEC names its own."""

    run_type: type[RunT]
    """What ``load`` reads (a task's: its ``Benchmark.run_type``)."""
    analysis_type: type[ResultT]
    """What ``analyze`` and ``run`` make (a task's: its ``Benchmark.analysis_type``)."""
    options: Callable[..., object]
    """The function whose parameters are the system's options (its ``@task``)."""
    run: CellRun[ResultT]
    load: Callable[[list[Path]], RunT]
    """The one loader of the system's logs (shards as one run, each sample counted once)."""
    analyze: Callable[[RunT], ResultT]
    usage: Callable[[ResultT], RunUsage | None]
    """A cell's usage by role under a study's role names (``summed_usage`` for a task's)."""


class TaskRun(Generic[P, LoadedT, AnalysisT]):
    """A benchmark's run for a program: ``run(model, roles, options, **task_args)`` with the
    task's own arguments, type-checked against its ``@task`` function, as ``normlab SYSTEM
    run`` runs it (roles left out take the task's defaults)."""

    def __init__(self, bench: Benchmark[LoadedT, AnalysisT], factory: Callable[P, Task]) -> None:
        self.bench = bench
        self.factory = factory

    @property
    def runner(self) -> Runner[LoadedT, AnalysisT]:
        """What the system's parts (``SystemParts.runner``) run a cell with and read it back
        with: the task's parameters are its options, its read side loads and analyzes, and a
        cell's usage is its runs summed (a cell has one subject)."""
        bench = self.bench
        return Runner(
            bench.run_type,
            bench.analysis_type,
            self.factory,
            self.with_arguments,
            bench.load,
            bench.analyze,
            summed_usage,
        )

    def __call__(
        self,
        model: str,
        roles: Mapping[str, str],
        options: RunOptions,
        /,
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> AnalysisT:
        """Run (or resume) the task, print the analysis and write the report."""
        named = inspect.signature(self.factory).bind(*args, **kwargs).arguments
        return finish_run(self.bench, self.factory, named, model, roles, options)

    def with_arguments(
        self,
        model: str,
        roles: Mapping[str, str],
        options: RunOptions,
        arguments: Mapping[str, object],
    ) -> AnalysisT:
        """The same run with the task's arguments as a mapping (a study file's options, the
        web app's pick): bound to the task's parameters when the task is built, so an unknown
        one is refused there, before any folder exists."""
        return finish_run(self.bench, self.factory, arguments, model, roles, options)

    def demo(self, out: Path, /, *args: P.args, **kwargs: P.kwargs) -> Path:
        """The benchmark's demo: every role on the embedded model, logs and report in
        ``OUT/NAME``; the report's path."""
        folder = out / self.bench.name
        options = RunOptions(log_dir=folder, report_dir=folder)
        try:
            self(DEFAULT_MODEL, {}, options, *args, **kwargs)
        except OtherRunInFolder:
            # The demo's own folder, from an older normlab (another task version) or other
            # demo options: nothing there is a user's, and a demo that refused to run after
            # an upgrade would be a demo that fails; start it over.
            note(f"{folder}: a demo of another version or options was there; starting over")
            shutil.rmtree(folder)
            self(DEFAULT_MODEL, {}, options, *args, **kwargs)
        return folder / "report.html"
