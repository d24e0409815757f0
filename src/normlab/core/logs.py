"""Reading Inspect logs: the paths a user names, every log read once, every sample counted once.

An interrupted and resumed run leaves its partial logs (status ``started`` or
``error``) beside the finished one, and a user may name the same log twice or
a folder and a file inside it. Analyses must still count each trial once, so
[`read_samples`][normlab.core.read_samples] keeps one sample per (task, models, sample id, epoch):
the one from a finished log if there is one, else from the newest log, and
says what it skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from normlab.core.errors import InputError
from normlab.core.jsonio import check_regular, validation_field

if TYPE_CHECKING:
    from inspect_ai.event import ModelEvent
    from inspect_ai.log import EvalLog, EvalSample

    from normlab.core.variants import VariantRecord

LOG_SUFFIXES = (".eval", ".json")

BASE_AGENT = "base"
"""The subject with no agent around it: the eval's model answering the benchmark's prompt."""
UNUSABLE_ERROR_NAMES = ("JSONDecodeError", "UnicodeDecodeError", "APIResponseValidationError")
"""How Inspect records (as ``repr``) the errors normlab retries as responses that were no reply
(``normlab.models.structured.unusable_errors``; a test keeps the two lists the same)."""

AGENT_KEY = "agent"
"""The task metadata key naming the agent that wrapped the subject model (absent: base)."""


def local_path(location: str) -> Path:
    """A filesystem path from an Inspect log location (``file://…``, ``file:…`` or plain)."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return Path(location.removeprefix(prefix))
    return Path(location)


def logs_in_folder(folder: Path) -> list[Path]:
    """Inspect logs (found by Inspect itself, skipping eval-set bookkeeping) and JSONL files."""
    from inspect_ai.log import list_eval_logs

    logs = [local_path(info.name) for info in list_eval_logs(str(folder))]
    return sorted(logs) + sorted(folder.rglob("*.jsonl"))


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files named, plus the logs and JSONL files inside folders named; each file once."""
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(logs_in_folder(path))
        elif not path.exists():
            raise InputError(path, "no such file")
        else:
            check_regular(path)
            files.append(path)
    unique: dict[Path, Path] = {}
    for file in files:
        unique.setdefault(file.resolve(), file)
    if not unique:
        raise InputError(", ".join(str(p) for p in paths) or ".", "no logs or records found")
    return list(unique.values())


def is_log(path: Path) -> bool:
    return path.suffix in LOG_SUFFIXES


def read_log(path: Path) -> EvalLog:
    """One whole log (header and samples), or an [`InputError`][normlab.core.InputError] naming the
    file."""
    from inspect_ai.log import read_eval_log

    if not is_log(path):
        raise InputError(path, f"not an Inspect log (those are {' or '.join(LOG_SUFFIXES)} files)")
    try:
        return read_eval_log(str(path))
    except Exception as error:  # Inspect raises several types for unreadable logs
        raise InputError(path, unreadable(error, path)) from error


def unreadable(error: Exception, path: Path) -> str:
    """Why Inspect could not read ``path`` as a log, on one line that does not repeat the path
    (the error names the file already, as its reader was asked for it: the web app must not
    show the server's absolute path): a JSON file of another shape gives its first missing
    or wrong field, not pydantic's dump of the input with a link per error; an archive
    without Inspect's members names the missing one."""
    if isinstance(error, ValidationError):
        location, message = validation_field(error)
        return f"not an Inspect log ({location}: {message})"
    if isinstance(error, KeyError):
        return f"not an Inspect log (no {error.args[0]} in the archive)"
    text = str(error).replace(str(path), path.name).strip()
    reason = text.splitlines()[0] if text else type(error).__name__
    return f"not a readable Inspect log ({reason})"


@dataclass
class LogSample:
    """A sample with the log it came from (for the models, roles and task arguments)."""

    log: EvalLog
    sample: EvalSample
    path: Path


@dataclass
class SampleSet:
    """The samples of some logs, each (task, models, id, epoch) once."""

    samples: list[LogSample] = field(default_factory=list)
    logs: list[EvalLog] = field(default_factory=list)
    paths: list[Path] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    """One note per log that contributed duplicates, e.g. "x.eval: 3 samples superseded"."""


def agent_of(log: EvalLog) -> str:
    """The agent that wrapped the log's subject model (``base`` for logs without one)."""
    return str((log.eval.metadata or {}).get(AGENT_KEY) or BASE_AGENT)


def log_variant(log: EvalLog) -> VariantRecord:
    """The prompt variant the log's task ran, read back from its metadata (``VARIANT_KEY``):
    the one reader every report, reader page and study table names a variant's numbers by,
    never a folder's name. The paper's prompt for a log without one (its logs stay as they
    were); a record normlab did not write is an [`InputError`][normlab.core.InputError]
    naming the log."""
    from pydantic import ValidationError

    from normlab.core.variants import VARIANT_KEY, VariantRecord

    value = (log.eval.metadata or {}).get(VARIANT_KEY)
    if value is None:
        return VariantRecord()
    try:
        return VariantRecord.model_validate(value)
    except ValidationError:
        raise InputError(
            log.location, "its prompt variant record is not one normlab writes", field=VARIANT_KEY
        ) from None


def variants_by_run(samples: SampleSet) -> dict[str, VariantRecord]:
    """Per subject (as ``data_by_run`` keys it), the prompt variant its logs ran
    (``read_samples`` refuses logs of one subject under two)."""
    return {subject_of(log): log_variant(log) for log in samples.logs}


def subject_label(model: str, agent: str = BASE_AGENT) -> str:
    """How analyses and reports name a subject: the model, or ``MODEL + AGENT`` when an agent
    wrapped it, so a base run and an agent run of one model never merge."""
    return model if agent == BASE_AGENT else f"{model} + {agent}"


def subject_of(log: EvalLog) -> str:
    return subject_label(log.eval.model, agent_of(log))


def model_name(config: object) -> str:
    """A role's model as the header names it: a ``ModelConfig``, a list of them (a role
    served by several endpoints, named together), or a plain name."""
    configs = config if isinstance(config, list) else [config]
    return ", ".join(str(getattr(item, "model", item)) for item in configs)


def role_models(log: EvalLog) -> dict[str, str]:
    """Every role the log's header names, with its model (``EvalSpec.model_roles``)."""
    return {role: model_name(config) for role, config in (log.eval.model_roles or {}).items()}


def role_model(log: EvalLog, role: str, stored: object = None) -> str:
    """The model that played ``role`` in a log: the header's, which names every role a task
    declares; else ``stored``, what a scorer of an older release kept in its score metadata
    (those logs' headers named only the roles given on the command line); else ``""``."""
    return role_models(log).get(role) or ("" if stored is None else str(stored))


def run_key(log: EvalLog) -> tuple[str, str, str]:
    """What makes two logs parts of one run: the task, the subject and every role's model."""
    roles = log.eval.model_roles or {}
    role_models = ",".join(
        f"{name}={getattr(cfg, 'model', cfg)}" for name, cfg in sorted(roles.items())
    )
    return (log.eval.task, subject_of(log), role_models)


def _sample_key(log: EvalLog, sample: EvalSample) -> tuple[str, ...]:
    return (*run_key(log), str(sample.id), str(sample.epoch))


def preference(log: EvalLog) -> tuple[int, str]:
    """Finished logs first, then the newest."""
    return (1 if log.status == "success" else 0, log.eval.created)


def _refuse_mixed_variants(loaded: Sequence[tuple[Path, EvalLog]]) -> None:
    """One analysis reads one prompt variant per task and subject: samples of two (the
    paper's and a rename's share their ids, an instruction file edited between two runs
    keeps its name) would be counted as one run's, or one dropped as the other's repeat."""
    first: dict[tuple[str, str], tuple[Path, VariantRecord]] = {}
    for path, log in loaded:
        variant = log_variant(log)
        key = (log.eval.task, subject_of(log))
        if key not in first:
            first[key] = (path, variant)
            continue
        other_path, other = first[key]
        if other.spec == variant.spec and other.sha256 == variant.sha256:
            continue
        what = (
            f"the instruction file {variant.label.split(' (')[0]} changed between them"
            if other.spec == variant.spec
            else f"{other.label} in {other_path}, {variant.label} here"
        )
        raise InputError(
            path,
            f"{key[1]} ran under two prompt variants ({what}): analyse each variant's logs apart",
        )


def read_samples(paths: Iterable[Path]) -> SampleSet:
    """Read every log once and keep one sample per (task, models, sample id, epoch)."""
    loaded = [(path, read_log(path)) for path in paths]
    _refuse_mixed_variants(loaded)
    ranked = sorted(loaded, key=lambda item: preference(item[1]), reverse=True)
    chosen: dict[tuple[str, ...], LogSample] = {}
    result = SampleSet(logs=[log for _, log in loaded], paths=[path for path, _ in loaded])
    for path, log in ranked:
        superseded = 0
        for sample in log.samples or []:
            key = _sample_key(log, sample)
            if key in chosen:
                superseded += 1
            else:
                chosen[key] = LogSample(log, sample, path)
        if superseded:
            result.skipped.append(
                f"{path}: {superseded} sample(s) already read from a finished or newer log"
            )
    order = {id(log): index for index, (_, log) in enumerate(loaded)}
    result.samples = sorted(
        chosen.values(),
        key=lambda item: (order[id(item.log)], str(item.sample.id), item.sample.epoch),
    )
    return result


def event_retries(event: ModelEvent) -> int:
    """Attempts of one model event that were made again.

    Inspect counts its own retries (rate limits, server errors, dropped connections) in
    ``retries``; an attempt it abandoned at its timeout is an event with the error, counted
    again in the next event's ``retries``. normlab's own retries of responses that were no
    reply (``normlab.models.structured``) are new calls: an event that ended in such an
    error, or returned an empty message, was asked again.
    """
    retried = event.retries or 0
    if event.error:
        return retried + (1 if event.error.startswith(UNUSABLE_ERROR_NAMES) else 0)
    output = event.output
    if not output.completion.strip() and output.stop_reason != "max_tokens":
        return retried + 1
    return retried


def sample_retries(sample: EvalSample) -> int:
    """Attempts of the sample's model calls that were made again (``event_retries``)."""
    return sum(event_retries(event) for event in sample.events if event.event == "model")
