"""How ``normlab serve`` was started: the folders, the host and who may see what."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from normlab.web.play import MAX_SEATS, PlayConfig


@dataclass
class ServeSettings:
    """How ``normlab serve`` was started: its options, checked by
    [`create_app`][normlab.web.create_app]."""

    runs: Path
    """The folder whose runs the readers list (``--runs``)."""
    state: Path
    """Where ``normlab.sqlite3``, the secret key and the studies' files live."""
    host: str = "127.0.0.1"
    """The address bound (``--host``): loopback unless a proxy or the network needs another."""
    owner_token: str | None = None
    """The token the owner pages ask for (``--owner-token-file``); required off loopback
    (``normlab serve`` makes one when none is given)."""
    allow_hosts: list[str] = field(default_factory=list)
    """Host names served besides the loopback names or ``host`` (``--allow-host``)."""
    judge: str | None = None
    """The judge of a person's play (``--judge``); the embedded model when unset."""
    roles: list[str] = field(default_factory=list)
    """``ROLE=MODEL`` for play (persona, judge…); unset roles use the embedded model."""
    play: PlayConfig = field(default_factory=PlayConfig)
    max_seats: int = MAX_SEATS
    """Seats playing at once (``--max-seats``); one more player is told to come back later."""
