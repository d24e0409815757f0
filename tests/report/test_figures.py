"""A report's figures: drawn once, laid out as ``tight_layout`` lays them out."""

from __future__ import annotations

import io

import pytest
from matplotlib.figure import Figure

from normlab.report.figures import png_of, pyplot


def _chart() -> Figure:
    figure, axes = pyplot().subplots(figsize=(6.8, 4.2))
    axes.bar([0, 1, 2], [0.2, 0.5, 0.9], 0.4, yerr=[[0.1] * 3, [0.05] * 3], label="a model")
    axes.set_xticks([0, 1, 2], ["one long group name", "two", "three"], rotation=15, ha="right")
    axes.set_title("a title", pad=10)
    axes.legend(fontsize="small")
    result: Figure = figure
    return result


def test_a_figure_is_drawn_once_with_tight_layouts_pixels(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``figure.tight_layout()`` left a placeholder layout engine, for which ``savefig``
    drew the whole figure once more before the draw it saves: two draws per figure."""
    expected = _chart()
    expected.tight_layout()
    buffer = io.BytesIO()
    expected.savefig(buffer, format="png", dpi=110)
    pyplot().close(expected)

    draws: list[Figure] = []
    draw = Figure.draw

    def counted(self: Figure, renderer: object) -> None:
        draws.append(self)
        draw(self, renderer)  # type: ignore[arg-type]

    monkeypatch.setattr(Figure, "draw", counted)
    assert png_of(_chart()) == buffer.getvalue()
    assert len(draws) == 1
