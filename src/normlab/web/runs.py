"""The runs under a folder, each with its headline numbers, models, n, cost and report.

A run is an Inspect log (LoSoNA, SCENE, HSII; read header only, so the home page stays
fast on big sweeps) or a CRSEC run folder (``config.json`` and ``events.jsonl``). Every
path the pages take is relative to the runs folder and checked to stay inside it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.core.errors import InputError
from normlab.core.files import open_regular
from normlab.core.jsonio import read_json
from normlab.core.logs import local_path, preference, run_key, subject_of

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog

REPORT_FILES = {".html", ".png", ".svg", ".json", ".csv"}
MAX_HEADLINE = 12
"""Metrics shown per run on the home page (the reader shows them all)."""


@dataclass
class RunSummary:
    system: str
    path: str
    """Relative to the runs folder: the log file, or the CRSEC run folder."""
    models: list[tuple[str, str]]
    n: str
    headline: list[tuple[str, str]]
    cost: str
    status: str
    report: str | None = None
    created: str = ""
    notes: list[str] = field(default_factory=list)
    units: int = 0
    """Finished samples (CRSEC: simulated hours): a run with none has nothing to study."""


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


def _lines(path: Path) -> int:
    """The non-blank lines of ``path`` (0 when it is missing), counted as they stream by; a
    FIFO or a device in its place is an [`InputError`][normlab.core.InputError] (it hung the runs
    page, or grew it without end: ``/dev/zero`` is one endless line)."""
    if not path.exists():
        return 0
    with open_regular(path) as handle:
        return sum(1 for line in handle if line.strip())


def _number(value: float) -> str:
    if math.isnan(value):
        return "–"
    return f"{value:.3g}"


def _report(root: Path, folder: Path) -> str | None:
    report = folder / "report.html"
    return str(report.relative_to(root)) if report.exists() else None


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


def _inspect_runs(root: Path) -> list[RunSummary]:
    headers, runs = _headers(root)
    for path, log in headers:
        roles = [("subject", subject_of(log))]
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
                report=_report(root, path.parent),
                created=log.eval.created,
                units=units,
            )
        )
    return runs


def _crsec_runs(root: Path) -> list[RunSummary]:
    from normlab.crsec import RunDir

    runs = []
    for config_path in sorted(root.rglob("config.json")):
        folder = config_path.parent
        if not (folder / "events.jsonl").exists():
            continue
        try:
            config = RunDir(folder).config()
            hours = _lines(folder / "metrics.jsonl")
        except InputError as error:
            runs.append(
                RunSummary("crsec", str(folder.relative_to(root)), [], "", [], "", str(error))
            )
            continue
        headline = [("hours simulated", str(hours))]
        metrics = folder / "metrics.json"
        if metrics.exists():
            headline.extend(_holding(metrics))
        runs.append(
            RunSummary(
                system="crsec",
                path=str(folder.relative_to(root)),
                models=list(config.models.items()),
                n=f"{len(config.society.agents)} agents",
                headline=headline,
                cost="",
                status="analyzed" if metrics.exists() else "not analyzed",
                report=_report(root, folder),
                units=hours,
            )
        )
    return runs


def discover(root: Path) -> list[RunSummary]:
    """Every run under ``root``, Inspect logs first (newest first), then CRSEC runs."""
    if not root.exists():
        return []
    inspect_runs = sorted(_inspect_runs(root), key=lambda run: run.created, reverse=True)
    return inspect_runs + _crsec_runs(root)


def _holding(metrics: Path) -> list[tuple[str, str]]:
    """The last hour's share holding each target norm, from ``crsec analyze``'s metrics.json;
    a file that cannot be read is one line on the page, never a server error."""
    try:
        summary = read_json(metrics)
        rows: list[tuple[str, str]] = []
        for run in summary.get("runs", []):
            final = (run.get("hours") or [{}])[-1].get("holding", {})
            rows.extend((f"holding {k}", f"{float(v):.0%}") for k, v in final.items())
        return rows
    except InputError as error:
        return [("metrics", str(error))]
    except (AttributeError, TypeError, ValueError, IndexError):
        return [("metrics", f"{metrics.name}: not the shape crsec analyze writes")]
