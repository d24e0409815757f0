"""The runs under a folder, each with its headline numbers, models, n, cost and report.

A run is an Inspect log (LoSoNA, SCENE, HSII; read header only, so the home page stays
fast on big sweeps) or a run folder of a system whose runs are folders (CRSEC's
``config.json`` and ``events.jsonl``), which that system lists itself (its parts'
``folder_runs``). Every path the pages take is relative to the runs folder and checked to
stay inside it.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.core.errors import InputError
from normlab.core.logs import local_path, log_variant, preference, run_key, subject_of
from normlab.runs.people import FolderRuns, RunSummary, report_in
from normlab.specs import parts, specs

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

REPORT_FILES = {".html", ".png", ".svg", ".json", ".csv"}
MAX_HEADLINE = 12
"""Metrics shown per run on the home page (the reader shows them all)."""


def inside(root: Path, relative: str) -> Path:
    """``root / relative`` if it stays inside ``root`` (no ``..`` or absolute escapes).

    A path the system cannot even look up (a NUL byte, a name too long) is the same one-line
    refusal, not a server error."""
    try:
        path = (root / relative).resolve()
        found = path.is_relative_to(root.resolve()) and path.exists()
    except (ValueError, OSError):
        found = False
    if not found:
        raise InputError(relative, "not a run under the runs folder")
    return path


def _number(value: float) -> str:
    if math.isnan(value):
        return "–"
    return f"{value:.3g}"


def _headers(root: Path) -> tuple[list[tuple[Path, EvalLog]], list[RunSummary]]:
    """The log headers under ``root``, one per run (a killed run's partial logs beside the one
    that resumed it are one run: its finished or newest log), and the unreadable logs."""
    from inspect_ai.log import list_eval_logs, read_eval_log

    chosen: dict[tuple[str, ...], tuple[Path, EvalLog]] = {}
    unreadable = []
    for info in list_eval_logs(str(root)):
        path = local_path(info.name)
        try:
            log = read_eval_log(str(path), header_only=True)
        except Exception as error:  # an unreadable log is listed, not fatal to the page
            unreadable.append(
                RunSummary("?", str(path.relative_to(root)), [], "", [], "", f"unreadable: {error}")
            )
            continue
        key = (str(path.parent), *run_key(log), json.dumps(log.eval.task_args, sort_keys=True))
        if key not in chosen or preference(log) > preference(chosen[key][1]):
            chosen[key] = (path, log)
    return list(chosen.values()), unreadable


def _headline(log: EvalLog) -> list[tuple[str, str]]:
    """The log's metrics, each named by its score when the log has several."""
    headline: list[tuple[str, str]] = []
    if log.results is None:
        return headline
    several = len(log.results.scores) > 1
    for score in log.results.scores:
        for name, metric in score.metrics.items():
            label = f"{score.name}: {name}" if several else name
            if len(headline) < MAX_HEADLINE:
                headline.append((label, _number(float(metric.value))))
    return headline


def variant_label(log: EvalLog) -> str:
    """The prompt variant a log ran, as the run pages name it (``log_variant``); a record
    normlab did not write is said so on the run's line, not a failed page."""
    try:
        return log_variant(log).label
    except InputError as error:
        return error.problem


def _inspect_runs(root: Path) -> list[RunSummary]:
    headers, runs = _headers(root)
    for path, log in headers:
        roles = [("subject", subject_of(log)), ("prompt variant", variant_label(log))]
        for role, config in (log.eval.model_roles or {}).items():
            configs = config if isinstance(config, list) else [config]
            roles.append((role, ", ".join(str(c.model) for c in configs)))
        n = ""
        if log.results is not None:
            n = f"{log.results.completed_samples} of {log.results.total_samples} samples"
        units = log.results.completed_samples if log.results is not None else 0
        costs = [u.total_cost for u in (log.stats.model_usage or {}).values()]
        known = [c for c in costs if c is not None]
        cost = f"${sum(known):.4f}" if known else "unknown"
        runs.append(
            RunSummary(
                system=log.eval.task.split("/")[-1],
                path=str(path.relative_to(root)),
                models=roles,
                n=n,
                headline=_headline(log),
                cost=cost,
                status=log.status,
                report=report_in(root, path.parent),
                created=log.eval.created,
                units=units,
            )
        )
    return runs


def _folder_systems() -> list[tuple[str, FolderRuns]]:
    """Each system whose runs are folders, with its parts' ``folder_runs``, in the specs'
    order."""
    return [
        (spec.name, found) for spec in specs() if (found := parts(spec).folder_runs) is not None
    ]


def _folder_runs(root: Path) -> list[RunSummary]:
    """The run folders under ``root`` of every system whose runs are folders, system by
    system in the specs' order, each as the system lists them."""
    return [run for _, found in _folder_systems() for run in found.summaries(root)]


def folder_runs_of(folder: Path) -> tuple[str, FolderRuns] | None:
    """The system whose run ``folder`` is, with its ``folder_runs``, or None where it is no
    system's run folder."""
    return next(((name, found) for name, found in _folder_systems() if found.holds(folder)), None)


def folder_system(folder: Path) -> str | None:
    """The name of the system whose run ``folder`` is (``folder_runs_of``)."""
    found = folder_runs_of(folder)
    return None if found is None else found[0]


def folder_templates() -> dict[str, Path]:
    """Each system's folder of run-page templates by its name, which prefixes its templates'
    names in the app (``crsec/replay.html``), so no system's template hides another's."""
    return {name: found.templates for name, found in _folder_systems()}


def discover(root: Path) -> list[RunSummary]:
    """Every run under ``root``, Inspect logs first (newest first), then run folders."""
    if not root.exists():
        return []
    inspect_runs = sorted(_inspect_runs(root), key=lambda run: run.created, reverse=True)
    return inspect_runs + _folder_runs(root)
