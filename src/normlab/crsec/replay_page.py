"""CRSEC's replay page in the web app (its ``folder_runs``' page: ``/run?path=RUN&tick=N``): the
run folder at a tick of its clock (``analysis.replay.moment``), with Figure 2's curves as inline
SVG and the moment marked on them.

The report draws Figure 2 with matplotlib as a picture; the replay needs the same curves
with a marker that moves with the clock slider, so here they are drawn as SVG from the
run's ``metrics.json`` (written by ``normlab crsec analyze``/``report``). The page's template
is ``templates/replay.html`` beside this module, which extends the web app's ``base.html``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normlab.core.errors import InputError
from normlab.core.jsonio import read_json
from normlab.crsec.analysis.replay import moment
from normlab.crsec.sim.rundir import SUMMARY, RunDir
from normlab.runs.people import FolderPage

TEMPLATES = Path(__file__).parent / "templates"
"""The replay page's template (``replay.html``)."""
MAX_TICK_DIGITS = 9
"""A tick given in more digits is refused before it is read as a number (a run has far fewer)."""

WIDTH, HEIGHT, PAD = 640, 240, 36
COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]


@dataclass
class Series:
    name: str
    points: str
    colour: str


@dataclass
class Figure:
    series: list[Series]
    marker_x: float
    hours: int
    width: int = WIDTH
    height: int = HEIGHT
    pad: int = PAD


def figure_2(metrics_path: Path, hour_index: int) -> Figure | None:
    """Figure 2b's share of agents holding each target norm, hour by hour (first run); none
    when ``crsec analyze`` has not written the metrics or they cannot be read (the run's line
    on the home page says why)."""
    if not metrics_path.exists():
        return None
    try:
        return _figure_2(read_json(metrics_path), hour_index)
    except (InputError, AttributeError, TypeError, ValueError, IndexError, KeyError):
        return None  # unreadable, or not the shape crsec analyze writes


def _figure_2(summary: Any, hour_index: int) -> Figure | None:
    runs = summary.get("runs") or []
    if not runs or not runs[0].get("hours"):
        return None
    hours = runs[0]["hours"]
    targets = list(hours[0].get("holding", {}))
    span = max(len(hours) - 1, 1)

    def x(index: float) -> float:
        return PAD + (WIDTH - 2 * PAD) * index / span

    def y(share: float) -> float:
        return HEIGHT - PAD - (HEIGHT - 2 * PAD) * float(share)

    series = [
        Series(
            target,
            " ".join(
                f"{x(i):.1f},{y(hour['holding'].get(target, 0.0)):.1f}"
                for i, hour in enumerate(hours)
            ),
            COLOURS[n % len(COLOURS)],
        )
        for n, target in enumerate(targets)
    ]
    return Figure(series, x(min(hour_index, len(hours) - 1)), len(hours))


def replay_page(folder: Path, query: Mapping[str, str]) -> FolderPage:
    """The run in ``folder`` at the query's ``tick`` (0 when none is given; clamped to the
    run); a tick that is not a whole number is a one-line error naming it."""
    given = query.get("tick") or "0"
    if not (given.isascii() and given.isdigit() and len(given) <= MAX_TICK_DIGITS):
        raise InputError("tick", f"not a whole number of ticks: {given[:20]!r}")
    run = RunDir(folder)
    config = run.config()
    now = moment(run.events(), config, int(given))
    figure = figure_2(run.file(SUMMARY), now.hour_index)
    return FolderPage("replay.html", {"config": config, "now": now, "figure": figure})
