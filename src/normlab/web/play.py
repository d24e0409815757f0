"""A person in the subject's seat, in the browser: LoSoNA, SCENE (live) and HSII.

A seat runs the system's own task, exactly as ``normlab SYSTEM run`` does, with the
subject played by ``human/<name>`` (``normlab.models.human``) in a background thread.
Whenever the task asks the subject for a reply, the seat shows the person what the model
would see and waits for the form; SCENE's scripted personas then answer in real time
through the same runtime. The run's log lands under ``RUNS/play/SYSTEM/NAME/…``, so the
answers are judged, analyzed and reported like any model's and show up as ``human/NAME``
in ``normlab SYSTEM analyze``.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from inspect_ai.model import ChatMessage

from normlab.core.errors import NormlabError
from normlab.core.outputs import slug
from normlab.models import answering, bind_roles
from normlab.runs import Play, RunOptions, System
from normlab.specs import parts, specs
from normlab.web.store import new_token

log = logging.getLogger(__name__)

POLL_SECONDS = 0.05


@dataclass(frozen=True)
class PlayOption:
    id: str
    label: str


@dataclass(frozen=True)
class PlayConfig:
    """What a seat runs beyond the sample: banks to draw from, episode lengths."""

    banks: dict[str, Path | None] = field(default_factory=dict)
    """System → the bank of samples a person picks from (its own when none)."""
    lengths: dict[str, int] = field(default_factory=dict)
    """System → an episode's length when played (SCENE's rounds, HSII's long-run turns); the
    system's own default (its spec's) when not given."""


@dataclass(frozen=True)
class PlayKind:
    """A system a person can play: its name and roles (its spec's), its parts, and what they
    say of playing it."""

    system: str
    roles: tuple[str, ...]
    """The roles a seat binds besides the person's: the system's own."""
    parts: System
    play: Play

    @property
    def title(self) -> str:
        return self.play.title

    def options(self, bank: Path | None) -> list[PlayOption]:
        return [PlayOption(id, label) for id, label in self.play.options(bank)]

    def run(
        self, model: str, option: str, roles: dict[str, str], folder: Path, config: PlayConfig
    ) -> None:
        """Run the task with ``model`` as subject to its report, as ``normlab SYSTEM run``
        does; the log and the report land in ``folder``."""
        bank = config.banks.get(self.system)  # as text, as ``inspect eval -T`` gives it
        length = config.lengths.get(self.system, self.play.length)
        picked = self.play.sample(option, length)
        arguments = {self.play.bank: str(bank) if bank else None, **picked}
        self.parts.run(model, roles, RunOptions(log_dir=folder, report_dir=folder), arguments)


@dataclass
class Seat:
    """One person playing one sample; lives while the server does, its log for good."""

    id: str
    system: str
    player: str
    option: str
    log_dir: Path
    status: str = "starting"
    """starting → your_turn ⇄ waiting → done | failed."""
    messages: list[ChatMessage] = field(default_factory=list)
    """What the subject model would see now."""
    turns: int = 0
    error: str = ""
    _answer: str | None = None
    _ready: threading.Event = field(default_factory=threading.Event)

    async def answerer(self, messages: list[ChatMessage]) -> str:
        self.messages = list(messages)
        self._answer = None
        self._ready.clear()
        self.status = "your_turn"
        while not self._ready.is_set():
            await asyncio.sleep(POLL_SECONDS)
        self.status = "waiting"
        self.turns += 1
        return self._answer or ""

    def give(self, answer: str) -> None:
        """The person's reply to the question now shown (ignored unless it is their turn)."""
        if self.status != "your_turn" or self._ready.is_set():
            return
        self._answer = answer
        self.status = "waiting"
        self._ready.set()

    @property
    def finished(self) -> bool:
        return self.status in ("done", "failed")


@functools.cache
def play_kinds() -> dict[str, PlayKind]:
    """The systems a person can play (LoSoNA, SCENE live, HSII), from their specs; read when
    the play page is first asked for (a system's parts import its task)."""
    found = {}
    for spec in specs():
        found_parts = parts(spec)
        if found_parts.play is not None:
            found[spec.name] = PlayKind(spec.name, tuple(spec.roles), found_parts, found_parts.play)
    return found


class Seats:
    """The open seats; one live seat per player, as ``human/<name>`` routes by name."""

    def __init__(
        self,
        runs: Path,
        judge: str | None,
        role_assignments: list[str],
        config: PlayConfig,
    ) -> None:
        self.runs = runs
        self.judge = judge
        self.role_assignments = role_assignments
        self.config = config
        self._seats: dict[str, Seat] = {}
        self._lock = threading.Lock()

    def options(self, system: str) -> list[PlayOption]:
        return play_kinds()[system].options(self.config.banks.get(system))

    def get(self, seat_id: str) -> Seat | None:
        return self._seats.get(seat_id)

    def open(self, system: str, player: str, option: str) -> Seat:
        kind = play_kinds()[system]
        # Only what the play page offers: anything else reached the task and failed in the
        # seat's thread with a traceback (``nonsense`` has no ``::`` to split at).
        if option not in {choice.id for choice in self.options(system)}:
            raise NormlabError(f"option: no {kind.title.split(':')[0]} item {option[:80]!r}")
        with self._lock:
            busy = [s for s in self._seats.values() if s.player == player and not s.finished]
            if busy:
                raise NormlabError(
                    f"human/{player} is already playing ({busy[0].system}: {busy[0].option}); "
                    "finish that first"
                )
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            folder = self.runs / "play" / system / slug(player) / f"{slug(option)}-{stamp}"
            seat = Seat(new_token()[:12], system, player, option, folder)
            self._seats[seat.id] = seat
        roles = bind_roles(kind.roles, self.judge, self.role_assignments)
        thread = threading.Thread(
            target=self._play, args=(kind, seat, roles), name=f"seat-{seat.id}", daemon=True
        )
        thread.start()
        return seat

    def _play(self, kind: PlayKind, seat: Seat, roles: dict[str, str]) -> None:
        try:
            with answering(seat.player, seat.answerer):
                kind.run(f"human/{seat.player}", seat.option, roles, seat.log_dir, self.config)
            seat.status = "done"
        except NormlabError as error:
            seat.error, seat.status = str(error), "failed"
        except Exception as error:  # the page shows one line; the server log has the rest
            log.exception("seat %s failed", seat.id)
            seat.error, seat.status = f"{type(error).__name__}: {error}", "failed"
