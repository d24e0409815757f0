"""Figure 2's curves as inline SVG with the replay's moment marked.

The report draws Figure 2 with matplotlib as a picture; the replay needs the same curves
with a marker that moves with the clock slider, so here they are drawn as SVG from the
run's ``metrics.json`` (written by ``normlab crsec analyze``/``report``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from normlab.core.errors import InputError
from normlab.core.jsonio import read_json

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
