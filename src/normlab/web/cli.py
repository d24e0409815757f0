"""``normlab serve``: the web app on this machine (or, with an owner token, on a network)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from normlab.commands.console import note, reports_errors
from normlab.commands.options import JudgeOption, RoleOption


@reports_errors
def serve(
    runs: Annotated[
        Path, typer.Option(help="The runs folder to read and to write plays into.")
    ] = Path("runs"),
    state: Annotated[
        Path | None,
        typer.Option(help="Where the SQLite file and studies live (default: RUNS/.normlab)."),
    ] = None,
    host: Annotated[
        str, typer.Option(help="Address to bind; off loopback needs --owner-token.")
    ] = ("127.0.0.1"),
    port: Annotated[int, typer.Option(help="Port.")] = 8765,
    owner_token: Annotated[
        str | None,
        typer.Option(envvar="NORMLAB_OWNER_TOKEN", help="Token that opens the owner pages."),
    ] = None,
    judge: JudgeOption = None,
    role: RoleOption = None,
    losona_data: Annotated[Path | None, typer.Option(help="LoSoNA scenarios to play.")] = None,
    scene_data: Annotated[Path | None, typer.Option(help="SCENE scenarios to play.")] = None,
    hsii_cases: Annotated[Path | None, typer.Option(help="HSII cases to play.")] = None,
    scene_rounds: Annotated[int, typer.Option(help="SCENE rounds per played episode.")] = 8,
    hsii_epsilon: Annotated[int, typer.Option(help="HSII long-run turns when played.")] = 7,
) -> None:
    """Read runs, play the subject, and run human rating studies in the browser."""
    import uvicorn

    from normlab.web.app import ServeSettings, create_app
    from normlab.web.play import PlayConfig

    os.environ.setdefault("INSPECT_DISPLAY", "none")
    settings = ServeSettings(
        runs=runs,
        state=state or runs / ".normlab",
        host=host,
        owner_token=owner_token,
        judge=judge,
        roles=role or [],
        play=PlayConfig(
            banks={"losona": losona_data, "scene": scene_data, "hsii": hsii_cases},
            scene_rounds=scene_rounds,
            hsii_epsilon=hsii_epsilon,
        ),
    )
    app = create_app(settings)
    note(f"normlab serve: http://{host}:{port}/ (runs: {runs.resolve()}; Ctrl-C stops)")
    uvicorn.run(app, host=host, port=port, log_level="warning")
