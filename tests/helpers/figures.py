"""Each distinct chart drawn once per test process.

The suite writes a report after nearly every scripted run, and the scripted runs of many tests
are the same: of 212 charts the LoSoNA, SCENE and study tests drew, 34 were distinct. Drawing
one takes a tenth of a second, so a report's figures were a fifth of the suite's time. A chart
is a pure function of its arguments (``normlab.report.figures``), so the bytes drawn for the
same arguments are reused; ``tests/report/test_figures.py`` draws through ``png_of`` itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from normlab.report import figures

Chart = Callable[..., bytes]


def _drawn_once(draw: Chart) -> Chart:
    drawn: dict[str, bytes] = {}

    @functools.wraps(draw)
    def remembered(*args: object, **kwargs: object) -> bytes:
        # The arguments are lists of numbers, strings and frozen dataclasses of them: their
        # repr names them exactly (floats round-trip), so equal reprs are equal charts.
        key = repr((args, sorted(kwargs.items())))
        if key not in drawn:
            drawn[key] = draw(*args, **kwargs)
        return drawn[key]

    return remembered


def draw_each_chart_once() -> None:
    """Replace the chart functions before any report module imports them."""
    figures.grouped_bar_chart = _drawn_once(figures.grouped_bar_chart)
    figures.line_panels = _drawn_once(figures.line_panels)
