"""Shared report building: figures (matplotlib, Agg), a self-contained HTML page, sections."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.report.figures import (
        BarSeries,
        LineSeries,
        grouped_bar_chart,
        line_panels,
        png_of,
        pyplot,
    )
    from normlab.report.html import (
        HtmlReport,
        Table,
        format_agreement,
        format_count,
        format_delta,
        format_estimate,
        format_interval,
        format_number,
        format_percent,
        format_rate,
    )
    from normlab.report.sections import (
        add_common_sections,
        add_usage_section,
        embedded_banner,
        sources_note,
        usage_table,
    )
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BarSeries",
    "HtmlReport",
    "LineSeries",
    "Table",
    "add_common_sections",
    "add_usage_section",
    "embedded_banner",
    "format_agreement",
    "format_count",
    "format_delta",
    "format_estimate",
    "format_interval",
    "format_number",
    "format_percent",
    "format_rate",
    "grouped_bar_chart",
    "line_panels",
    "png_of",
    "pyplot",
    "sources_note",
    "usage_table",
]
