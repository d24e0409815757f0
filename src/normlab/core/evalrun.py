"""Run one benchmark task through Inspect's ``eval_set``: resumable, one log folder per run.

``eval_set`` writes ``.eval`` logs into ``log_dir`` and, run again on the same
folder, keeps finished samples and runs only what is missing, so an interrupted
run resumes without redoing or losing work.
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
import re
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from inspect_ai import Task, eval_set
from inspect_ai.dataset import MemoryDataset

from normlab.core.errors import (
    FILESYSTEM_ERRNOS,
    InputError,
    OutputError,
    RunIncompleteError,
    RunInterruptedError,
    unmarked,
)
from normlab.core.logs import local_path
from normlab.core.outputs import slug
from normlab.core.progress import drawing_bars
from normlab.core.progress import register as register_progress
from normlab.core.secrets import guard_inspect_logs, redact_text
from normlab.core.storage import mirrored, pull

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

_OS_ERROR_REPR = re.compile(r"^\w+\((\d+), (['\"])(?P<reason>.+?)\2")
"""Inspect records an exception as its repr: ``OSError(28, 'No space left on device')``."""
MAX_REASON = 200


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return unmarked(lines[0]) if lines else "unknown error"


def failure_reason(message: str) -> str:
    """Why an eval failed, in one short line: an OSError's own words (a full disk reads "No
    space left on device"), else the first line of Inspect's message."""
    first = _first_line(message)
    found = _OS_ERROR_REPR.match(first)
    reason = found.group("reason") if found else first
    return reason if len(reason) <= MAX_REASON else reason[:MAX_REASON] + "…"


MAX_CONFIGURATION_NAME = 80


def _plain(value: Any) -> Any:
    """A task argument as its log records it (JSON: tuples are lists, paths are text)."""
    return json.loads(json.dumps(value, default=str))


def _unset(value: Any) -> bool:
    return value is None or value == {} or value == [] or value == ""


def _word(value: Any) -> tuple[str, bool]:
    """A value in a folder name, and whether that name dropped part of it (a path's folders)."""
    if isinstance(value, list):
        return "+".join(_word(item)[0] for item in value), any(_word(i)[1] for i in value)
    if isinstance(value, dict):
        return "+".join(f"{k}={_word(v)[0]}" for k, v in sorted(value.items())), False
    text = str(value)
    if "/" in text:
        return slug(Path(text).name), True
    return slug(text), False


@dataclass(frozen=True)
class Configuration:
    """The arguments a task was built with: every parameter of its factory (defaults filled
    in, as Inspect records them in the log's ``task_args``), and those that differ from the
    defaults: what makes this run's samples differ from another's with the same models."""

    arguments: dict[str, Any] = field(default_factory=dict)
    changed: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(
        cls, factory: Callable[..., Task], args: Mapping[str, Any], beside: tuple[str, ...] = ()
    ) -> Configuration:
        """``args`` given to ``factory``; names in ``beside`` are said elsewhere in the folder
        name (the agent beside the subject) and are not repeated."""
        defaults = {
            name: parameter.default
            for name, parameter in inspect.signature(factory).parameters.items()
            if parameter.default is not inspect.Parameter.empty
        }
        arguments = _plain({**defaults, **args})
        changed = {
            name: value
            for name, value in arguments.items()
            if name not in beside
            and value != _plain(defaults.get(name))
            and not (_unset(value) and _unset(defaults.get(name)))
        }
        return cls(arguments, changed)

    def folder(self) -> str:
        """``defaults``, or the changed arguments as ``NAME-VALUE__…`` (with a digest of the
        whole when a value had to be shortened, so two different runs never share a name)."""
        if not self.changed:
            return "defaults"
        words = [(name, *_word(value)) for name, value in sorted(self.changed.items())]
        name = "__".join(f"{key}-{word}" for key, word, _ in words)
        if any(cut for *_, cut in words) or len(name) > MAX_CONFIGURATION_NAME:
            digest = hashlib.sha256(json.dumps(self.changed, sort_keys=True).encode())
            name = f"{name[: MAX_CONFIGURATION_NAME - 10]}__{digest.hexdigest()[:8]}"
        return name


_INPUT_ERROR_REPR = re.compile(r"^InputError\((?P<quoted>(['\"]).*\2)\)")


def _input_problem(reason: str) -> str | None:
    """The message of a normlab [`InputError`][normlab.core.InputError] that failed a sample, as
    Inspect recorded it (``InputError('script.json: no rule matches …')``), else ``None``."""
    found = _INPUT_ERROR_REPR.match(reason)
    if found is None:
        return None
    try:
        return str(ast.literal_eval(found.group("quoted")))
    except (ValueError, SyntaxError):
        return found.group("quoted")[1:-1]


@dataclass(frozen=True)
class Shard:
    """Part ``index`` (1-based) of ``count``: every ``count``-th sample of the task's dataset.

    A sweep too large for one process or machine runs as shards, each its own eval set in
    its own log folder; the dataset's order is fixed by the task's options, so the shards
    of one sweep never overlap and together cover it, and an analysis of all their folders
    reads them as one run (each sample and epoch counted once).
    """

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        index, slash, count = text.partition("/")
        if not (slash and index.isdigit() and count.isdigit()):
            raise InputError("--shard", f"expected I/N such as 1/4, got {text[:40]!r}")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count:
            raise InputError("--shard", f"I must be between 1 and N, got {text!r}")
        return shard

    @property
    def folder(self) -> str:
        return f"shard-{self.index}-of-{self.count}"

    def apply(self, task: Task) -> Task:
        samples = [
            sample
            for position, sample in enumerate(task.dataset)
            if position % self.count == self.index - 1
        ]
        task.dataset = MemoryDataset(samples, name=task.dataset.name)
        return task


def only_samples(task: Task, ids: Sequence[str]) -> Task:
    """``task`` with only the samples ``ids`` name (every epoch of each), in the dataset's
    order; an id the dataset lacks is refused on one line."""
    wanted = set(ids)
    samples = [sample for sample in task.dataset if str(sample.id) in wanted]
    if len(samples) != len(wanted):
        found = {str(sample.id) for sample in samples}
        missing = sorted(wanted - found)[0]
        raise InputError("samples", f"the task has no sample {missing!r}")
    task.dataset = MemoryDataset(samples, name=task.dataset.name)
    return task


def _differences(
    log: EvalLog, configuration: Configuration, model: str, roles: Mapping[str, str]
) -> list[str]:
    """How the run in ``log`` differs from the one about to start (models, then arguments)."""
    found = []
    if log.eval.model != model:
        found.append(f"model {log.eval.model} there, {model} now")
    made = {
        name: getattr(used, "model", used) for name, used in (log.eval.model_roles or {}).items()
    }
    for role in sorted(set(made) | set(roles)):
        if made.get(role) != roles.get(role):
            found.append(f"{role} {made.get(role)} there, {roles.get(role)} now")
    there = _plain(log.eval.task_args or {})
    for name in sorted(set(there) | set(configuration.arguments)):
        if there.get(name) != configuration.arguments.get(name):
            found.append(
                f"{name}={there.get(name)!r} there, {configuration.arguments.get(name)!r} now"
            )
    return found


class OtherRunInFolder(InputError):
    """A log folder holds a run of another task version, task, options or models: it cannot
    be resumed, and a run beside it would be mixed with it."""


def check_folder(
    log_dir: Path | str,
    task: Task,
    configuration: Configuration,
    model: str,
    roles: Mapping[str, str],
) -> None:
    """Before a run: a log folder holding a run of other options or models cannot be resumed
    (Inspect refuses it); say so on one line, naming what differs, before anything starts. A
    run of another task version is refused too: Inspect would start the run again beside it,
    and the folder's analysis would mix results that are not comparable (a new version is
    one whose results are not)."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    for info in list_eval_logs(str(log_dir), recursive=False):
        log = read_eval_log(info.name, header_only=True)
        if log.eval.task_version != task.version:
            raise OtherRunInFolder(
                "--log-dir",
                f"{log_dir} holds a run of task version {log.eval.task_version}, and this is "
                f"version {task.version}, whose results are not comparable with it: choose "
                "another --log-dir",
            )
        if log.eval.task.split("/")[-1] != task.name.split("/")[-1]:
            found = [f"task {log.eval.task} there, {task.name} now"]
        else:
            found = _differences(log, configuration, model, roles)
        if found:
            raise OtherRunInFolder(
                "--log-dir",
                f"{log_dir} holds a run with other options ({'; '.join(found[:3])}): rerun "
                "with the same options to resume it, or choose another --log-dir",
            )


def resume_command() -> str:
    """The command line that resumes this run: the one that started it (a run resumes in
    its own log folder), or "the same command" when normlab was not started from a shell."""
    program = Path(sys.argv[0]).name
    if program != "normlab":
        return "the same command"
    return redact_text(shlex.join([program, *sys.argv[1:]]))


def safe_samples(log_dir: Path | str) -> int:
    """Samples finished without error in the logs of ``log_dir``: what a resume keeps."""
    from inspect_ai.log import list_eval_logs, read_eval_log_sample_summaries

    try:
        return sum(
            summary.error is None
            for info in list_eval_logs(str(log_dir), recursive=False)
            for summary in read_eval_log_sample_summaries(info.name)
        )
    except Exception:  # a log cut short by the interrupt itself: say nothing rather than fail
        return 0


SAMPLES_PER_CONNECTION = 4
"""Samples in flight per connection when ``--max-connections`` is given: see
``samples_in_flight``."""


def samples_in_flight(max_connections: int | None, max_samples: int | None = None) -> int | None:
    """How many samples run at once: ``max_samples`` when given, else
    ``SAMPLES_PER_CONNECTION`` × ``max_connections``, else ``None`` (Inspect's own rule:
    with no connection limit its adaptive controller sets the connections, and the samples
    follow them a few ahead).

    Why more samples than connections: a sample holds a connection only during a call, and
    its calls run one after another. With as many samples as connections a run goes in
    waves, and the samples started last play out their sequential calls with connections
    idle beside them: 120 SCENE episodes at 64 connections ran as two waves, the second of
    56 (bound ratio 0.83 to 0.87 at 2 s latency, bare Inspect's 0.92 to 0.96: ``python -m
    benchmarks.sweep --latency 2 --bare``). With four per connection, a dataset of up to
    four times the connections starts at once, its samples share the connections and finish
    together (SCENE 0.88 to 0.92); a larger one keeps calls queued for every connection, so a
    connection freed is taken at once. Inspect's connection limit still caps the calls. The
    price: a call waits its turn in that queue, so a sample takes up to four times as long
    as alone and reaches the log (where a kill cannot lose it) that much later, and all the
    samples start at once (240 LoSoNA samples take about a second before their first call).
    Memory is no limit: 120 SCENE episodes in flight peaked at 355 MB, as 64 did.
    """
    if max_samples is not None:
        return max_samples
    if max_connections is None:
        return None
    return SAMPLES_PER_CONNECTION * max_connections


def run_task(
    task: Task,
    log_dir: Path | str,
    model: str | list[str],
    roles: dict[str, str],
    display: str | None = None,
    max_samples: int | None = None,
    max_connections: int | None = None,
) -> list[Path]:
    """Run (or resume) ``task`` with ``model`` (one or several) as eval model, ``roles`` bound.

    ``max_connections`` caps concurrent calls per model (every role inherits it); more
    samples than that run at once (``samples_in_flight``) unless ``max_samples`` says
    otherwise. Events are not streamed to a live
    database (``log_realtime``): finished samples still reach the log every few samples, so a
    killed run resumes, and each call costs about a quarter less CPU
    (``python -m benchmarks.sweep``). A URL ``log_dir`` (object storage) is written by
    Inspect itself; the logs returned are then their local mirror (``normlab.core.storage``).
    """
    if isinstance(log_dir, Path):
        log_dir.mkdir(parents=True, exist_ok=True)
    register_progress()
    guard_inspect_logs()
    # Off a terminal, Inspect's panels (and the traceback it draws for a failed task) would
    # land in the output file; the progress lines of normlab.core.progress say it instead.
    # On a terminal normlab draws its own bar, with the time left, unless progress is off.
    with drawing_bars() as drawing:
        display = display or ("none" if drawing or not sys.stdout.isatty() else None)
        return _eval_set(task, log_dir, model, roles, display, max_connections, max_samples)


def _eval_set(
    task: Task,
    log_dir: Path | str,
    model: str | list[str],
    roles: dict[str, str],
    display: str | None,
    max_connections: int | None,
    max_samples: int | None,
) -> list[Path]:
    """Inspect's ``eval_set`` with normlab's settings; one-line errors for what it refuses."""
    try:
        success, logs = eval_set(
            tasks=[task],
            log_dir=str(log_dir),
            model=model,
            model_roles=roles,
            display=display,  # type: ignore[arg-type]
            retry_attempts=2,
            max_samples=samples_in_flight(max_connections, max_samples),
            max_connections=max_connections,
            log_realtime=False,
        )
    except OSError as error:
        # A write to an open file that fails (the folder's disk filled while Inspect wrote
        # its manifest or a log) names no file: say which folder the run was writing.
        if error.filename is not None or error.errno not in FILESYSTEM_ERRNOS:
            raise
        reason = error.strerror or str(error)
        raise OutputError(log_dir, f"{reason} (while writing this run's logs)") from error
    except Exception as error:
        # Inspect's refusals before it runs anything (another eval set's logs in the folder,
        # a model it cannot build): one line, not a traceback; anything else is a bug.
        if type(error).__name__ != "PrerequisiteError":
            raise
        raise InputError("--log-dir", f"{log_dir}: {unmarked(str(error))}") from None
    if not logs or any(log.status == "cancelled" for log in logs):
        raise RunInterruptedError(
            f"{log_dir}: interrupted; {safe_samples(log_dir)} finished samples are safe in the "
            f"log; to resume, rerun {resume_command()}"
        )
    if not success:
        failed = [log for log in logs if log.status != "success"]
        messages = [log.error.message for log in failed if log.error]
        reasons = sorted({failure_reason(message) for message in messages})
        inputs = sorted({_input_problem(_first_line(message)) or "" for message in messages})
        if messages and all(inputs):
            # Bad input met inside a sample (a scripted model with no rule for a prompt): a
            # rerun would only meet it again; fixing the input is what helps.
            raise InputError(
                str(log_dir),
                f"stopped by bad input: {'; '.join(p for p in inputs if p)} (finished samples "
                "are kept; fix it and rerun the same command)",
            )
        because = f": {'; '.join(reasons)}" if reasons else ""
        raise RunIncompleteError(
            f"{log_dir}: eval did not complete{because} "
            f"({', '.join(log.location for log in failed)}); rerun the same command to resume"
        )
    if isinstance(log_dir, str):
        pull(log_dir)
        return [mirrored(log.location, log_dir) for log in logs]
    return [local_path(log.location) for log in logs]
