"""A small self-contained HTML report: headings, banners, tables and inline PNG figures.

One file with images inlined as base64, so a report can be mailed or attached
and still open in any browser; so it is written with every credential a URL in it carried
redacted ([`normlab.core.secrets.redact_text`][normlab.core.redact_text]), and in one rename, so a
full disk leaves the previous report whole (``normlab.core.outputs.replace_file``).

The markup lives in Jinja2 templates beside this module (``templates/page.html`` and the
block macros in ``templates/blocks.html``), as the web app's does: the per-system reports
call [`HtmlReport`][normlab.report.HtmlReport]'s methods and hold no HTML of their own.
"""

from __future__ import annotations

import base64
import functools
import html
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from normlab.core.outputs import replace_file
from normlab.core.secrets import redact_text
from normlab.stats import Agreement, Estimate, Interval, Rate


def _escaped(value: Any) -> Markup:
    """Every value a template prints, escaped as ``html.escape`` escapes it
    (``&quot;``, ``&#x27;``): reports read as they always have, whatever the text holds.
    Blocks already rendered (``Markup``) pass as they are."""
    return value if isinstance(value, Markup) else Markup(html.escape(str(value), quote=True))


@functools.cache
def _templates() -> jinja2.Environment:
    """The report templates, shipped in the package (found in a wheel as in a checkout);
    built on first use, once per process."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader("normlab.report", "templates"),
        autoescape=True,
        finalize=_escaped,
        undefined=jinja2.StrictUndefined,
    )


def _block(name: str, *args: Any) -> str:
    """One block of the page: the macro ``name`` of ``templates/blocks.html``."""
    macro = getattr(_templates().get_template("blocks.html").module, name)
    return str(macro(*args))


def format_percent(value: float | None, digits: int = 1) -> str:
    """A proportion as a percentage (``66.7%``), or – when undefined (no trials)."""
    return "–" if value is None else f"{100 * value:.{digits}f}%"


def format_number(value: float | None, digits: int = 3) -> str:
    """A statistic that is not a proportion (kappa, rho), or – when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"


def format_interval(
    interval: Interval, digits: int = 1, percent: bool = True, signed: bool = True
) -> str:
    """``[33.3, 100.0]`` (percentage points of a proportion), or ``[+0.10, +0.70]`` with
    ``percent=False``; ``[–]`` when either end is undefined."""
    lo, hi = interval
    if lo is None or hi is None:
        return "[–]"
    if percent:
        return f"[{100 * lo:.{digits}f}, {100 * hi:.{digits}f}]"
    sign = "+" if signed else ""
    return f"[{lo:{sign}.{digits}f}, {hi:{sign}.{digits}f}]"


def format_estimate(
    estimate: Estimate, digits: int = 1, percent: bool = True, signed: bool = True
) -> str:
    """``66.7% [33.3, 100.0]`` for a proportion, ``+0.42 [+0.10, +0.70]`` for ρ, ``5.63 [5.60,
    5.66]`` for a mean (``signed=False``); – if undefined."""
    if estimate.value is None:
        return "–"
    if percent:
        value = format_percent(estimate.value, digits)
    else:
        value = f"{estimate.value:{'+' if signed else ''}.{digits}f}"
    return f"{value} {format_interval(estimate.ci, digits, percent, signed)}"


def format_rate(rate: Rate, digits: int = 1) -> str:
    """``66.7% [33.3, 100.0] (2/3)``: a Wilson-interval rate with its count."""
    return f"{format_estimate(rate, digits)} ({rate.k}/{rate.n})"


def format_agreement(agreement: Agreement) -> str:
    """``80.0% [49.0, 94.3] (8/10) (Wilson 95% CI), kappa 0.600``: two raters' agreement."""
    return (
        f"{format_rate(agreement.rate)} (Wilson 95% CI), "
        f"kappa {format_number(agreement.cohen_kappa)}"
    )


def format_delta(estimate: Estimate, digits: int = 1) -> str:
    """A paired difference of proportions in percentage points: ``+47.4 pp [31.6, 63.2]``."""
    if estimate.value is None:
        return "–"
    return f"{100 * estimate.value:+.{digits}f} pp {format_interval(estimate.ci, digits)}"


def format_count(count: tuple[int, int] | list[int]) -> str:
    """``k/n``: how many of how many, beside a rate."""
    k, n = count
    return f"{k}/{n}"


@dataclass
class Table:
    """A captioned table of text cells: one shape for the HTML report and the terminal, so both
    show the same numbers."""

    caption: str
    """What the table shows, written above it."""
    header: list[str]
    """The column names."""
    rows: list[list[str]]
    """The cells, row by row, already formatted (``format_rate`` and its kin)."""


@dataclass
class HtmlReport:
    """One self-contained HTML page built block by block (headings, paragraphs, tables,
    figures as embedded PNG), every text escaped; every system's report is one."""

    title: str
    """The page's title and first heading."""
    parts: list[str] = field(default_factory=list)
    """The blocks rendered so far, in order."""

    def heading(self, text: str, level: int = 2) -> None:
        """A section heading."""
        self.parts.append(_block("heading", text, level))

    def paragraph(self, text: str, css_class: str = "") -> None:
        """A paragraph of text (``css_class="note"`` for a note)."""
        self.parts.append(_block("paragraph", text, css_class))

    def banner(self, text: str) -> None:
        """A warning at the top (the embedded model as a judge: a plumbing check, not a
        judge)."""
        self.parts.append(_block("banner", text))

    def table(self, table: Table) -> None:
        """A [`Table`][normlab.report.Table]."""
        self.parts.append(_block("table", table))

    def links(self, targets: list[tuple[str, str]]) -> None:
        """A list of links (text, relative href), both escaped."""
        self.parts.append(_block("links", targets))

    def preformatted(self, text: str) -> None:
        """Text shown as written (a transcript)."""
        self.parts.append(_block("preformatted", text))

    def figure(self, png: bytes, caption: str) -> None:
        """A PNG figure, embedded in the page, with its caption."""
        self.parts.append(_block("figure", base64.b64encode(png).decode("ascii"), caption))

    def render(self) -> str:
        """The whole page as HTML."""
        # The parts are rendered blocks: marked safe so the page does not escape them again.
        page = _templates().get_template("page.html")
        return page.render(title=self.title, parts=[Markup(part) for part in self.parts])

    def write(self, path: Path) -> Path:
        """Write the report to ``path``, whole or not at all (an ``OutputError`` naming
        ``path`` when the disk is full or the folder cannot be written)."""
        return replace_file(path, redact_text(self.render()))
