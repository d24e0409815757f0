"""How ``normlab serve`` was started: the folders, the host and who may see what."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from normlab.web.play import PlayConfig


@dataclass
class ServeSettings:
    runs: Path
    state: Path
    """Where ``normlab.sqlite3``, the secret key and the studies' files live."""
    host: str = "127.0.0.1"
    owner_token: str | None = None
    allow_hosts: list[str] = field(default_factory=list)
    """Host names served besides the loopback names or ``host`` (``--allow-host``)."""
    judge: str | None = None
    roles: list[str] = field(default_factory=list)
    """``ROLE=MODEL`` for play (persona, judge…); unset roles use the embedded model."""
    play: PlayConfig = field(default_factory=PlayConfig)
