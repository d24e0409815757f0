"""A small self-contained HTML report: headings, banners, tables and inline PNG figures.

One file with images inlined as base64, so a report can be mailed or attached
and still open in any browser; so it is written with every credential a URL in it carried
redacted (:func:`normlab.core.secrets.redact_text`), and in one rename, so a full disk leaves
the previous report whole (:func:`normlab.core.outputs.replace_file`).
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass, field
from pathlib import Path

from normlab.core.outputs import replace_file
from normlab.core.secrets import redact_text
from normlab.stats import Agreement, Estimate, Interval, Rate

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }
table { border-collapse: collapse; margin: 0.5rem 0 1.5rem; font-size: 0.9rem; }
th, td { border: 1px solid #ccc; padding: 0.25rem 0.6rem; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f3f3f3; }
.banner { background: #fff3cd; border: 1px solid #e0c36c; padding: 0.75rem 1rem; margin: 1rem 0; }
.note { color: #555; font-size: 0.9rem; }
pre { background: #f7f7f7; padding: 0.75rem; white-space: pre-wrap; font-size: 0.85rem; }
figure { margin: 1rem 0; } figcaption { color: #555; font-size: 0.9rem; }
img { max-width: 100%; height: auto; }
"""


def format_percent(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{100 * value:.{digits}f}%"


def format_number(value: float | None, digits: int = 3) -> str:
    """A statistic that is not a proportion (kappa, rho), or – when undefined."""
    return "–" if value is None else f"{value:.{digits}f}"


def format_interval(
    interval: Interval, digits: int = 1, percent: bool = True, signed: bool = True
) -> str:
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
    k, n = count
    return f"{k}/{n}"


@dataclass
class Table:
    caption: str
    header: list[str]
    rows: list[list[str]]


@dataclass
class HtmlReport:
    title: str
    parts: list[str] = field(default_factory=list)

    def heading(self, text: str, level: int = 2) -> None:
        self.parts.append(f"<h{level}>{html.escape(text)}</h{level}>")

    def paragraph(self, text: str, css_class: str = "") -> None:
        attribute = f' class="{css_class}"' if css_class else ""
        self.parts.append(f"<p{attribute}>{html.escape(text)}</p>")

    def banner(self, text: str) -> None:
        self.parts.append(f'<div class="banner">{html.escape(text)}</div>')

    def table(self, table: Table) -> None:
        head = "".join(f"<th>{html.escape(cell)}</th>" for cell in table.header)
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in table.rows
        )
        self.parts.append(
            f"<table><caption>{html.escape(table.caption)}</caption>"
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        )

    def links(self, targets: list[tuple[str, str]]) -> None:
        """A list of links (text, relative href), both escaped."""
        items = "".join(
            f'<li><a href="{html.escape(href, quote=True)}">{html.escape(text)}</a></li>'
            for text, href in targets
        )
        self.parts.append(f"<ul>{items}</ul>")

    def preformatted(self, text: str) -> None:
        self.parts.append(f"<pre>{html.escape(text)}</pre>")

    def figure(self, png: bytes, caption: str) -> None:
        encoded = base64.b64encode(png).decode("ascii")
        self.parts.append(
            f'<figure><img alt="{html.escape(caption)}" src="data:image/png;base64,{encoded}">'
            f"<figcaption>{html.escape(caption)}</figcaption></figure>"
        )

    def render(self) -> str:
        return (
            "<!doctype html><html><head><meta charset='utf-8'>"
            f"<title>{html.escape(self.title)}</title><style>{STYLE}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>" + "\n".join(self.parts) + "</body></html>"
        )

    def write(self, path: Path) -> Path:
        """Write the report to ``path``, whole or not at all (an :class:`OutputError` naming
        ``path`` when the disk is full or the folder cannot be written)."""
        return replace_file(path, redact_text(self.render()))
