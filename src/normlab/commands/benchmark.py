"""The one command factory: every benchmark's ``run``, ``analyze`` and ``report`` behave alike.

A system describes its read side once (:class:`Benchmark`: how to load logs,
analyze them, show the analysis and write the report);
:func:`~normlab.commands.reading.add_read_commands` gives it ``analyze PATHS [--json]`` and
``report PATHS [--out DIR]``, and its own ``run`` command (whose options are the system's)
ends in :func:`finish_run`.
Conventions: ``--json`` prints only JSON on stdout; progress, notes and the
report path go to stderr; every log is read once and every sample counted once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from inspect_ai import Task

from normlab.commands.console import (
    note,
    print_json,
    print_table,
    stdout_to_stderr,
)
from normlab.commands.options import default_log_dir, roles_line
from normlab.core.errors import InputError
from normlab.core.evalrun import Configuration, Shard, check_folder, run_task
from normlab.core.logs import BASE_AGENT, SampleSet
from normlab.core.outputs import output_folder
from normlab.core.storage import (
    check_remote_folder,
    log_location,
    mirror_folder,
    within,
)
from normlab.models import AnalysisBase
from normlab.models.preflight import check_models
from normlab.report import usage_table


class Loaded(Protocol):
    """What a system's loader returns: at least the deduplicated samples it read and the
    records (trials, episodes, cases) they and any record files hold."""

    @property
    def samples(self) -> SampleSet: ...

    @property
    def records(self) -> Sized: ...


LoadedT = TypeVar("LoadedT", bound=Loaded)
AnalysisT = TypeVar("AnalysisT", bound=AnalysisBase)


@dataclass(frozen=True)
class Benchmark(Generic[LoadedT, AnalysisT]):
    """A system's read side: load logs or records, analyze, show, write the report."""

    name: str
    unit: str
    """What one sample is: "trial", "episode", "case"."""
    load: Callable[[list[Path]], LoadedT]
    analyze: Callable[[LoadedT], AnalysisT]
    show: Callable[[LoadedT, AnalysisT], None]
    write_report: Callable[[LoadedT, AnalysisT, Path], Path]


def emit(
    bench: Benchmark[LoadedT, AnalysisT], loaded: LoadedT, analysis: AnalysisT, as_json: bool
) -> None:
    """Print an analysis: JSON only on stdout, or the system's tables and the usage table."""
    for skipped in loaded.samples.skipped:
        note(f"counted once: {skipped}")
    if as_json:
        print_json(analysis)
    else:
        bench.show(loaded, analysis)
        if analysis.usage:
            print_table(usage_table(analysis.usage, bench.unit))


def load_some(bench: Benchmark[LoadedT, AnalysisT], paths: list[Path]) -> LoadedT:
    """``bench.load(paths)``, or an :class:`InputError` when they hold nothing to analyze: an
    empty table with exit 0 would read as a run that measured nothing."""
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


def finish_run(
    bench: Benchmark[LoadedT, AnalysisT],
    factory: Callable[..., Task],
    args: Mapping[str, Any],
    model: str,
    roles: Mapping[str, str],
    log_dir: str | Path | None,
    report_dir: Path | None,
    as_json: bool,
    max_connections: int | None = None,
    shard: str | None = None,
) -> AnalysisT:
    """Build the task ``factory(**args)``, run (or resume) it through eval_set, then analyze,
    print and write the report.

    The task is built first, so bad options and data fail before any folder exists. Logs go
    to ``log_dir``, by default a folder naming every role's model and the agent wrapping the
    subject (``args["agent"]``), if any, and inside it one naming the task's configuration (the
    arguments that differ from the defaults), so a run of other options never lands in a
    folder it cannot resume; a folder that holds another configuration is refused up front,
    on one line. A URL puts the logs in object storage, and the report then goes beside their
    local mirror. A person in the subject's seat (``human/…``) answers one sample at a time.
    """
    task = factory(**args)
    agent = str(args.get("agent", BASE_AGENT))
    configuration = Configuration.of(factory, args, beside=("agent",))
    check_models([("--model", model), *((f"--role {r}", used) for r, used in roles.items())])
    default = default_log_dir(bench.name, model, roles, agent) / configuration.folder()
    folder = log_location(log_dir or default)
    if shard is not None:
        part = Shard.parse(shard)
        task = part.apply(task)
        folder = within(folder, part.folder)
    # Checked before the run, which may take hours, rather than when its logs are written.
    if isinstance(folder, Path):
        output_folder(folder, "--log-dir")
    else:
        check_remote_folder(folder, "--log-dir")
    check_folder(folder, task, configuration, model, roles)
    if report_dir is not None:
        output_folder(report_dir, "--report-dir")
    for line in roles_line(model, roles):
        note(line)
    with stdout_to_stderr(as_json):
        one_at_a_time = 1 if model.startswith("human/") else None
        logs = run_task(
            task,
            folder,
            model,
            dict(roles),
            max_samples=one_at_a_time,
            max_connections=max_connections,
        )
    loaded = bench.load(logs)
    analysis = analyze_and_emit(bench, loaded, as_json)
    local = folder if isinstance(folder, Path) else mirror_folder(folder)
    path = bench.write_report(loaded, analysis, report_dir or local)
    note(f"report: {path.resolve()}")
    return analysis
