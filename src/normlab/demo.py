"""``normlab demo``: the four systems' demos, small and offline, and one index page linking them."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated

import typer

from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import note, reports_errors
from normlab.specs import parts, specs


def write_index(out: Path, done: list[tuple[str, str, Path, float]]) -> Path:
    """One page linking the four reports, with what each took."""
    from normlab.report import HtmlReport, Table, embedded_banner

    page = HtmlReport("normlab demo: the four systems on the embedded model")
    banner = embedded_banner({"every role": [DEFAULT_MODEL]})
    if banner:
        page.banner(banner)
    rows = []
    for name, what, report, seconds in done:
        link = os.path.relpath(report, out)
        rows.append([name, what, link, f"{seconds / 60:.1f} min"])
    page.table(
        Table(
            "Reports (open the file named in each row)", ["system", "what", "report", "time"], rows
        )
    )
    page.links([(name, os.path.relpath(report, out)) for name, _, report, _ in done])
    return page.write(out / "index.html")


@reports_errors
def demo(
    out: Annotated[Path, typer.Option(help="Where the demos' runs and reports go.")] = Path(
        "runs/demo"
    ),
) -> None:
    """All four systems, small, on the embedded model, offline; one index page links the reports."""
    done: list[tuple[str, str, Path, float]] = []
    systems = specs()
    for index, system in enumerate(systems, start=1):
        note(f"[{index}/{len(systems)}] {system.title}: {system.summary}")
        started = time.perf_counter()
        report = parts(system).demo(out)
        done.append((system.title, system.summary, report, time.perf_counter() - started))
        note(f"[{index}/{len(systems)}] {system.title} done in {done[-1][3] / 60:.1f} min")
    note(f"index: {write_index(out, done).resolve()}")
