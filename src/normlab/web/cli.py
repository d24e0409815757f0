"""``normlab serve``: the web app on this machine (or, with an owner token, on a network)."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape
from typer.core import TyperCommand, TyperOption

from normlab.commands.options import JudgeOption, RoleOption
from normlab.core.errors import InputError
from normlab.runs.console import note, reports_errors

TOKEN_ENV = "NORMLAB_OWNER_TOKEN"
BANK_HELP = (
    "The bank of samples a person picks from when playing SYSTEM, instead of the system's own "
    "(repeatable)."
)
LENGTH_HELP = "An episode's length when playing SYSTEM, instead of the paper's (repeatable)."
SEATS_HELP = (
    "People playing at once, each seat's eval a process of its own; one more is asked to "
    "come back later"
)


class ServeCommand(TyperCommand):
    """``normlab serve``: the play options' help ends with the systems that can be played and
    what each one's length counts, read from their parts as the help is shown. Not at import:
    a system's parts import the system, and the command line builds every command's options
    on every ``normlab`` command."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from normlab.web.play import MAX_SEATS, bank_help, length_help

        for param in self.params:
            if isinstance(param, TyperOption) and param.name == "play_bank":
                param.help = escape(f"{BANK_HELP} {bank_help()}")
            elif isinstance(param, TyperOption) and param.name == "play_length":
                param.help = escape(f"{LENGTH_HELP} {length_help()}")
            elif isinstance(param, TyperOption) and param.name == "max_seats":
                param.help = escape(f"{SEATS_HELP} (default {MAX_SEATS}).")
        super().format_help(ctx, formatter)


def owner_token(host: str, argv: str | None, file: Path | None) -> str | None:
    """The owner token from ``--owner-token-file``, ``NORMLAB_OWNER_TOKEN`` or (visible to
    every user in ``ps``, so with a warning) ``--owner-token``; off loopback with none given,
    a new one, printed once and kept nowhere but in this process."""
    from normlab.web.guard import check_owner_token, is_loopback

    if argv is not None and file is not None:
        raise InputError("--owner-token", "give --owner-token or --owner-token-file, not both")
    token, option = None, "--owner-token"
    if file is not None:
        try:
            token, option = file.read_text(encoding="utf-8").strip(), "--owner-token-file"
        except (OSError, UnicodeDecodeError) as error:
            raise InputError(file, f"cannot read the owner token: {error}") from error
    elif argv is not None:
        note(
            "normlab serve: warning: --owner-token is visible to every user of this machine "
            f"(ps); prefer --owner-token-file PATH or {TOKEN_ENV}"
        )
        token = argv
    elif os.environ.get(TOKEN_ENV):
        token, option = os.environ[TOKEN_ENV], TOKEN_ENV
    if token is not None:
        check_owner_token(token, option)
        return token
    if is_loopback(host):
        return None
    token = secrets.token_urlsafe(32)
    note(f"normlab serve: owner token (shown once, stored nowhere): {token}")
    return token


@reports_errors
def serve(
    runs: Annotated[
        Path, typer.Option(help="The runs folder to read and to write plays into.")
    ] = Path("runs"),
    state: Annotated[
        Path | None,
        typer.Option(
            help="Where the SQLite file, the secret key and studies live, the owner's alone "
            "(default: RUNS/.normlab)."
        ),
    ] = None,
    host: Annotated[
        str,
        typer.Option(
            help="Address to bind; off loopback the owner pages need a token (one is made "
            "and printed if none is given)."
        ),
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port.")] = 8765,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(
            help="A host name the server answers to besides the loopback names or --host "
            "(the name in the browser's address bar, e.g. behind a TLS proxy); repeatable."
        ),
    ] = None,
    owner_token_file: Annotated[
        Path | None,
        typer.Option(help=f"File holding the owner token (or set {TOKEN_ENV})."),
    ] = None,
    owner_token_argument: Annotated[
        str | None,
        typer.Option(
            "--owner-token",
            help="The owner token itself (visible in ps: prefer --owner-token-file).",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            help="Proxies trusted for X-Forwarded-Proto/-For (comma-separated; uvicorn's "
            "default: 127.0.0.1,::1)."
        ),
    ] = None,
    judge: JudgeOption = None,
    role: RoleOption = None,
    play_bank: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SYSTEM=PATH",
            help=BANK_HELP,
        ),
    ] = None,
    play_length: Annotated[
        list[str] | None,
        typer.Option(
            metavar="SYSTEM=N",
            help=LENGTH_HELP,
        ),
    ] = None,
    max_seats: Annotated[int | None, typer.Option(min=1, help=SEATS_HELP)] = None,
) -> None:
    """Read runs, play the subject, and run human rating studies in the browser."""
    import uvicorn

    from normlab.web.app import create_app
    from normlab.web.guard import WILDCARDS
    from normlab.web.play import MAX_SEATS, PlayConfig
    from normlab.web.settings import ServeSettings

    os.environ.setdefault("INSPECT_DISPLAY", "none")
    play = PlayConfig.from_options(play_bank or [], play_length or [])
    settings = ServeSettings(
        runs=runs,
        state=state or runs / ".normlab",
        host=host,
        owner_token=owner_token(host, owner_token_argument, owner_token_file),
        allow_hosts=allow_host or [],
        judge=judge,
        roles=role or [],
        play=play,
        max_seats=max_seats or MAX_SEATS,
    )
    app = create_app(settings)
    shown = f"[{host}]" if ":" in host else host
    note(f"normlab serve: http://{shown}:{port}/ (runs: {runs.resolve()}; Ctrl-C stops)")
    if host in WILDCARDS and not allow_host:
        note(
            "normlab serve: answers to IP addresses and loopback names; open it by a DNS name "
            "only after --allow-host NAME"
        )
    uvicorn.run(
        app, host=host, port=port, log_level="warning", forwarded_allow_ips=forwarded_allow_ips
    )
