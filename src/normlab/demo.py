"""``normlab demo``: the four systems' demos, small and offline, and one index page linking them."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from normlab import crsec, hsii, losona, scene
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import note, reports_errors

# Each demo is looked up on its system's face when it runs (the faces load on first use).
DEMOS: list[tuple[str, str, Callable[[Path], Path]]] = [
    ("LoSoNA", "static benchmark: write the next message of a group chat",
     lambda out: losona.run_demo(out)),
    ("SCENE", "interactive benchmark: personas enforce a hidden norm",
     lambda out: scene.run_demo(out)),
    ("HSII", "multi-user benchmark: whom to address and what to say",
     lambda out: hsii.run_demo(out)),
    ("CRSEC", "simulation: norms emerge in a society of agents",
     lambda out: crsec.run_demo(out)),
]  # fmt: skip


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
    for index, (name, what, run) in enumerate(DEMOS, start=1):
        note(f"[{index}/{len(DEMOS)}] {name}: {what}")
        started = time.perf_counter()
        report = run(out)
        done.append((name, what, report, time.perf_counter() - started))
        note(f"[{index}/{len(DEMOS)}] {name} done in {done[-1][3] / 60:.1f} min")
    note(f"index: {write_index(out, done).resolve()}")
