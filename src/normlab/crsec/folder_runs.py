"""CRSEC's runs as the web app lists them ([`FolderRuns`][normlab.runs.people.FolderRuns], its
parts' ``folder_runs``): a run is a folder (``config.json`` and ``events.jsonl``), not an Inspect
log, so CRSEC itself says which folders are its runs and what their line on the runs page shows:
every agent's model, the society's size, the hours simulated and, once ``crsec analyze`` wrote
``metrics.json``, the last hour's share of agents holding each target norm; a run's own page is
its replay (``replay_page``).

A folder that cannot be read is one line saying why, never a failed page: the runs page lists
every run under the folder, and one broken run must not hide the others.
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.files import open_regular
from normlab.core.jsonio import read_json
from normlab.crsec.replay_page import TEMPLATES, replay_page
from normlab.crsec.sim.rundir import CONFIG, EVENTS, METRICS, SUMMARY, RunDir
from normlab.crsec.spec import SPEC
from normlab.runs.people import FolderRuns, RunSummary, report_in


def is_run(folder: Path) -> bool:
    """A CRSEC run folder: its config and its event log (a config alone is no run yet)."""
    return (folder / CONFIG).exists() and (folder / EVENTS).exists()


def run_summaries(root: Path) -> list[RunSummary]:
    """Every CRSEC run folder under ``root``, in path order, as a line of the runs page."""
    runs = []
    for config_path in sorted(root.rglob(CONFIG)):
        folder = config_path.parent
        if not is_run(folder):
            continue
        relative = str(folder.relative_to(root))
        try:
            config = RunDir(folder).config()
            hours = _lines(folder / METRICS)
        except InputError as error:
            runs.append(RunSummary(SPEC.name, relative, [], "", [], "", str(error)))
            continue
        headline = [("hours simulated", str(hours))]
        metrics = folder / SUMMARY
        if metrics.exists():
            headline.extend(_holding(metrics))
        runs.append(
            RunSummary(
                system=SPEC.name,
                path=relative,
                models=list(config.models.items()),
                n=f"{len(config.society.agents)} agents",
                headline=headline,
                cost="",
                status="analyzed" if metrics.exists() else "not analyzed",
                report=report_in(root, folder),
                units=hours,
            )
        )
    return runs


def _lines(path: Path) -> int:
    """The non-blank lines of ``path`` (0 when it is missing), counted as they stream by; a
    FIFO or a device in its place is an [`InputError`][normlab.core.InputError] (it hung the runs
    page, or grew it without end: ``/dev/zero`` is one endless line)."""
    if not path.exists():
        return 0
    with open_regular(path) as handle:
        return sum(1 for line in handle if line.strip())


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


FOLDER_RUNS = FolderRuns(run_summaries, is_run, replay_page, TEMPLATES)
"""CRSEC's ``folder_runs`` part."""
