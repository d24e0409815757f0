"""Grouped bar charts with interval error bars, rendered to PNG bytes.

Every normlab figure is some form of "a number per group per series, with its
interval", so one function draws them all. Uses the non-interactive Agg backend:
reports are built on machines with no screen.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from normlab.stats import Rate


def pyplot() -> Any:
    """matplotlib's pyplot on the file-only Agg backend, imported when a figure is first drawn:
    a report module (and every runner that names one) loads without it, and so does a face."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


@dataclass(frozen=True)
class BarSeries:
    """One coloured series: a value (and optional interval) per group, in group order."""

    label: str
    values: list[float | None]
    intervals: list[tuple[float | None, float | None]] | None = None
    annotations: list[str] | None = None
    """Text written at each bar (e.g. "0/24"), so a zero-height bar still reads as a value."""

    @classmethod
    def of_rates(cls, label: str, rates: Sequence[Rate | None]) -> BarSeries:
        """Bars of rates with their Wilson CIs, each labelled k/n (so 0/n and n/a read apart)."""
        return cls(
            label,
            [r.value if r else None for r in rates],
            [r.ci if r else (None, None) for r in rates],
            annotations=[f"{r.k}/{r.n}" if r else "" for r in rates],
        )


def grouped_bar_chart(
    groups: list[str],
    series: list[BarSeries],
    title: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    baseline: float | None = None,
) -> bytes:
    """Draw groups on the x axis, one bar per series each; missing values are left blank."""
    width = 0.8 / max(1, len(series))
    figure, axes = pyplot().subplots(figsize=(max(6.0, 1.6 * len(groups) + 2), 4.2))
    for index, item in enumerate(series):
        positions = [g + (index - (len(series) - 1) / 2) * width for g in range(len(groups))]
        heights = [math.nan if v is None else v for v in item.values]
        errors = None
        if item.intervals is not None:
            lower, upper = [], []
            for value, (lo, hi) in zip(heights, item.intervals, strict=True):
                if math.isnan(value) or lo is None or hi is None:
                    lower.append(0.0)
                    upper.append(0.0)
                else:
                    lower.append(value - lo)
                    upper.append(hi - value)
            errors = [lower, upper]
        axes.bar(positions, heights, width, label=item.label, yerr=errors, capsize=3)
        if item.annotations is not None:
            # Written by hand: matplotlib's bar_label skips NaN (undefined) bars, whose "n/a"
            # is exactly what a reader needs to see.
            for x, height, text in zip(positions, heights, item.annotations, strict=True):
                y = 0.0 if math.isnan(height) else max(height, 0.0)
                axes.annotate(
                    text, (x, y), xytext=(0, 3), textcoords="offset points",
                    ha="center", va="bottom", fontsize="x-small",
                )  # fmt: skip
    axes.set_xticks(range(len(groups)), groups, rotation=15, ha="right")
    axes.set_title(title, pad=10)
    axes.set_ylabel(ylabel)
    if ylim is not None:
        low, high = ylim
        if any(item.annotations for item in series):
            # Room above the axis's top value for the labels of the tallest bars, so they
            # never sit on the title.
            high += 0.12 * (high - low)
        axes.set_ylim(low, high)
    if baseline is not None:
        axes.axhline(baseline, color="black", linewidth=0.8)
    if series:
        axes.legend(fontsize="small")
    return png_of(figure)


@dataclass(frozen=True)
class LineSeries:
    """One line over x with an optional shaded band (e.g. the min–max over runs)."""

    label: str
    values: list[float | None]
    low: list[float | None] | None = None
    high: list[float | None] | None = None
    dashed: bool = False
    color: str | None = None


def line_panels(
    x: list[float],
    panels: list[tuple[str, list[LineSeries]]],
    xlabel: str,
    ylabel: str,
    ylim: tuple[float, float] | None = None,
    xticks: list[tuple[float, str]] | None = None,
    threshold: float | None = None,
) -> bytes:
    """Side-by-side panels of lines with bands; missing values break the line."""
    figure, axes_list = pyplot().subplots(
        1, len(panels), figsize=(4.6 * len(panels), 3.8), sharey=ylim is not None, squeeze=False
    )
    for axes, (title, series) in zip(axes_list[0], panels, strict=True):
        for item in series:
            values = [math.nan if v is None else v for v in item.values]
            (line,) = axes.plot(
                x, values, label=item.label, linestyle="--" if item.dashed else "-",
                color=item.color, linewidth=1.6,
            )  # fmt: skip
            if item.low is not None and item.high is not None:
                low = [math.nan if v is None else v for v in item.low]
                high = [math.nan if v is None else v for v in item.high]
                axes.fill_between(x, low, high, color=line.get_color(), alpha=0.18, linewidth=0)
        if threshold is not None:
            axes.axhline(threshold, color="grey", linewidth=0.8, linestyle=":")
        axes.set_title(title, fontsize="medium")
        axes.set_xlabel(xlabel)
        if xticks:
            axes.set_xticks([t for t, _ in xticks], [label for _, label in xticks])
        if ylim is not None:
            axes.set_ylim(*ylim)
        if series:
            axes.legend(fontsize="x-small")
    axes_list[0][0].set_ylabel(ylabel)
    return png_of(figure)


def png_of(figure: Any) -> bytes:
    """A finished matplotlib figure as PNG bytes (the figure is closed).

    Laid out tight by the layout engine run once, not by ``figure.tight_layout()``: that
    leaves a placeholder engine on the figure, for which ``savefig`` draws the whole figure
    once more before drawing it for the file. The same pixels, one draw instead of two (a
    third of a report's time went to its figures)."""
    from matplotlib.layout_engine import TightLayoutEngine

    TightLayoutEngine().execute(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110)
    pyplot().close(figure)
    return buffer.getvalue()
