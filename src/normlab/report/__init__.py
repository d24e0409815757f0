"""Shared report building: figures (matplotlib, Agg) and a self-contained HTML page."""

from normlab.report.figures import BarSeries, grouped_bar_chart
from normlab.report.html import (
    HtmlReport,
    Table,
    format_count,
    format_estimate,
    format_interval,
    format_number,
    format_percent,
)

__all__ = [
    "BarSeries",
    "HtmlReport",
    "Table",
    "format_count",
    "format_estimate",
    "format_interval",
    "format_number",
    "format_percent",
    "grouped_bar_chart",
]
