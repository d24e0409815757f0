"""The ``normlab`` command: mounts each system's commands, ``models`` and ``demo``.

Every command reports bad input on one line naming file, line and field and
exits 2; an incomplete run exits 1 and resumes when run again.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Annotated

import typer

from normlab.commands import models_app, reports_errors
from normlab.crsec import crsec_app
from normlab.hsii import hsii_app
from normlab.losona import losona_app, run_losona
from normlab.models import DEFAULT_MODEL
from normlab.scene import scene_app

HELP = """normlab: measure and simulate how LLM agents read, follow, enforce and create group norms.

Every command reports bad input on one line naming file, line and field and exits 2;
an incomplete run exits 1 and resumes when run again."""

app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=False)
app.add_typer(models_app, name="models")
app.add_typer(losona_app, name="losona")
app.add_typer(scene_app, name="scene")
app.add_typer(hsii_app, name="hsii")
app.add_typer(crsec_app, name="crsec")

DEMO_SCENARIO_IDS = [
    "gift_pool_or_bill_split__no_apology_culture_norm__demos__leaving_present",
    "activity_log__deadpan_literalism_norm__demos__hill_repeats",
    "advice_request__banned_epistemic_hedging_norm__demos__orders_db_migration",
]
DEMO_CONDITIONS = ["naive", "norm_informed"]


@app.command("demo")
@reports_errors
def demo(
    log_dir: Annotated[Path, typer.Option(help="Where the demo's logs go.")] = Path("runs/demo"),
) -> None:
    """LoSoNA on the embedded default model: a small subset that runs offline in minutes."""
    run_losona(
        DEFAULT_MODEL,
        {"judge": DEFAULT_MODEL},
        conditions=DEMO_CONDITIONS,
        scenario_ids=DEMO_SCENARIO_IDS,
        log_dir=log_dir / "losona",
        report_dir=log_dir,
    )


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    app()


if __name__ == "__main__":
    main()
