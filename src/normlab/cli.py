"""The ``normlab`` command: mounts each system's commands, ``models``, ``demo`` and ``serve``.

Every command reports bad input on one line naming file, line and field and
exits 2; an incomplete run exits 1 and resumes when run again.
"""

from __future__ import annotations

import logging

import typer

from normlab import crsec, demo, hsii, losona, scene, web
from normlab.commands import models_app

HELP = """normlab: measure and simulate how LLM agents read, follow, enforce and create group norms.

Every command reports bad input on one line naming file, line and field and exits 2;
an incomplete run exits 1 and resumes when run again."""

app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=False)
app.add_typer(models_app, name="models")
app.add_typer(losona.losona_app, name="losona")
app.add_typer(scene.scene_app, name="scene")
app.add_typer(hsii.hsii_app, name="hsii")
app.add_typer(crsec.crsec_app, name="crsec")

app.command("demo")(demo.demo)
app.command("serve")(web.serve)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    app()


if __name__ == "__main__":
    main()
