"""A person in the subject's seat, in the browser: LoSoNA, SCENE (live) and HSII.

A seat runs the system's own task, exactly as ``normlab SYSTEM run`` does, with the
subject played by ``human/<name>`` (``normlab.models.human``) in a process of its own
(``normlab.web.seat_process``), so many people play at once, up to ``MAX_SEATS``.
Whenever the task asks the subject for a reply, the seat shows the person what the model
would see and waits for the form; SCENE's scripted personas then answer in real time
through the same runtime. The run's log lands under ``RUNS/play/SYSTEM/NAME/…``, so the
answers are judged, analyzed and reported like any model's and show up as ``human/NAME``
in ``normlab SYSTEM analyze``.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from pathlib import Path

from inspect_ai.model import ChatMessage

from normlab.core.errors import InputError, NormlabError
from normlab.core.outputs import slug
from normlab.models import answering, bind_roles
from normlab.runs import Play, RunOptions, System
from normlab.specs import parts, specs
from normlab.web.guard import MAX_NAME
from normlab.web.seat_process import Asked, Ended, Gone, SeatProcess, asking
from normlab.web.store import new_token

log = logging.getLogger(__name__)

FOLLOW_SECONDS = 1.0
"""How often a seat with no news checks whether its person has left (an event is read as
soon as it comes)."""


@dataclass(frozen=True)
class PlayOption:
    id: str
    label: str


BANK_OPTION = "--play-bank"
LENGTH_OPTION = "--play-length"


@dataclass(frozen=True)
class PlayConfig:
    """What a seat runs beyond the sample: banks to draw from, episode lengths."""

    banks: dict[str, Path] = field(default_factory=dict)
    """System → the bank of samples a person picks from (its own when none)."""
    lengths: dict[str, int] = field(default_factory=dict)
    """System → an episode's length when played (SCENE's rounds, HSII's long-run turns); the
    system's own default (its ``Play.length``) when not given."""

    @classmethod
    def from_options(cls, banks: Sequence[str], lengths: Sequence[str]) -> PlayConfig:
        """``--play-bank SYSTEM=PATH`` and ``--play-length SYSTEM=N`` (each repeatable),
        checked against the systems a person can play: a system that cannot be played (or
        has no length), a missing ``=``, a bank that is not there, an N that is no positive
        whole number, or a system given twice is a one-line
        [`InputError`][normlab.core.InputError] naming the option."""
        kinds = play_kinds()
        lengthed = {name for name, kind in kinds.items() if kind.play.length is not None}
        chosen = {
            system: Path(value)
            for system, value in _assigned(banks, BANK_OPTION, "PATH", set(kinds)).items()
        }
        for system, bank in chosen.items():
            if not bank.exists():
                raise InputError(BANK_OPTION, f"{system}={bank}: no such file or folder")
        return cls(
            banks=chosen,
            lengths={
                system: _positive(system, value)
                for system, value in _assigned(lengths, LENGTH_OPTION, "N", lengthed).items()
            },
        )


def _assigned(items: Sequence[str], option: str, value: str, systems: set[str]) -> dict[str, str]:
    """``SYSTEM=VALUE`` items by system, each system one of ``systems`` and given once.

    Not ``models.roles.parse_assignments``: its error asks for ROLE=VALUE, and a repeated
    name there silently keeps the last value, where a repeated system here is a mistake."""
    found: dict[str, str] = {}
    for item in items:
        system, separator, given = (part.strip() for part in item.partition("="))
        if not separator or not system or not given:
            raise InputError(option, f"expected SYSTEM={value}, got {item!r}")
        if system not in systems:
            known = ", ".join(name for name in play_kinds() if name in systems)
            raise InputError(option, f"no system {system!r} here (one of: {known})")
        if system in found:
            raise InputError(option, f"{system} given twice ({found[system]}, {given}): keep one")
        found[system] = given
    return found


def _positive(system: str, value: str) -> int:
    try:
        length = int(value)
    except ValueError:
        length = 0
    if length < 1:
        raise InputError(LENGTH_OPTION, f"{system}={value}: N is a whole number of 1 or more")
    return length


def bank_help() -> str:
    """What ``--play-bank`` takes, from the playable systems (``normlab serve --help``)."""
    kinds = ", ".join(f"{name} ({kind.play.bank})" for name, kind in play_kinds().items())
    return f"Systems that can be played, with what their bank holds: {kinds}."


def length_help() -> str:
    """What ``--play-length`` sets, per system, and the system's default."""
    means = "; ".join(
        f"{name}, {length.means} (default {length.default})"
        for name, kind in play_kinds().items()
        if (length := kind.play.length) is not None
    )
    return f"Systems with a length, and what N counts: {means}."


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
        default = self.play.length.default if self.play.length is not None else None
        length = config.lengths.get(self.system, default)
        picked = self.play.sample(option, length)
        arguments = {self.play.bank: str(bank) if bank else None, **picked}
        self.parts.run(model, roles, RunOptions(log_dir=folder, report_dir=folder), arguments)


@dataclass
class Seat:
    """One person playing one sample; lives while the server does, its log for good. Its
    task runs in a process of its own (``normlab.web.seat_process``); ``Seats`` follows it."""

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
    asked_at: float = 0.0
    """When the person was last asked (``time.monotonic``): an unanswered seat is closed."""
    _process: SeatProcess | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def give(self, answer: str) -> None:
        """The person's reply to the question now shown (ignored unless it is their turn)."""
        with self._lock:
            if self.status != "your_turn" or self._process is None:
                return
            self.status = "waiting"
            self.turns += 1
            self._process.answer(answer)

    def asked(self, messages: list[ChatMessage]) -> None:
        with self._lock:
            self.messages = messages
            self.asked_at = time.monotonic()
            self.status = "your_turn"

    def end(self, error: str = "") -> None:
        """The seat's end: done, or failed with ``error``; the first word on it stands (a
        seat closed by the server is not then said to have died)."""
        with self._lock:
            if not self.finished:
                self.error, self.status = error, "failed" if error else "done"

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


MAX_SEATS = 20
"""Seats playing at once (``normlab serve --max-seats``). Each is a process with its own
Inspect, about 110 MB while it waits for its person (a LoSoNA seat on the scripted model,
``ps`` RSS), so twenty fit a small machine; past them a player is asked to come back later
(503)."""
IDLE_SECONDS = 30 * 60
"""A seat whose person has not answered for this long is closed, so an abandoned tab does
not hold one of the ``MAX_SEATS`` places until the server stops."""
RETRY_SECONDS = 60
"""What a player turned away is told to wait (``Retry-After``)."""


class SeatsFull(NormlabError):
    """Every seat is taken: the page says to try again later (503)."""


def player_name(text: str) -> str:
    """A player's name as ``human/NAME`` and the seat's folder use it: letters, digits, ``-``
    and ``_``, at most ``MAX_NAME`` characters as a rater's (a 5,000-character name reached
    the folder's name, "File name too long"); else a one-line
    [`InputError`][normlab.core.InputError]."""
    name = text.strip()
    if not name or not name.replace("-", "").replace("_", "").isalnum() or not name.isascii():
        raise InputError("name", "letters, digits, - and _ only (it becomes human/NAME)")
    if len(name) > MAX_NAME:
        raise InputError("name", f"at most {MAX_NAME} characters, got {len(name)}")
    return name


def _play_in_process(
    system: str,
    player: str,
    option: str,
    roles: dict[str, str],
    folder: Path,
    config: PlayConfig,
    events: Connection,
    answers: Connection,
) -> None:
    """A seat's process (``seat_process``): run the task with the person as subject, then
    say how it ended. A traceback goes to the server's log (this process's stderr is the
    server's); the page shows one line."""
    try:
        with answering(player, asking(events, answers)):
            play_kinds()[system].run(f"human/{player}", option, roles, folder, config)
        ended = Ended()
    except NormlabError as error:
        ended = Ended(str(error))
    except Exception as error:
        log.exception("seat of human/%s failed", player)
        ended = Ended(f"{type(error).__name__}: {error}")
    events.send(ended)


class Seats:
    """The open seats; one live seat per player, as ``human/<name>`` routes by name, and at
    most ``max_seats`` playing at once."""

    def __init__(
        self,
        runs: Path,
        judge: str | None,
        role_assignments: list[str],
        config: PlayConfig,
        max_seats: int = MAX_SEATS,
    ) -> None:
        self.runs = runs
        self.judge = judge
        self.role_assignments = role_assignments
        self.config = config
        self.max_seats = max_seats
        self._seats: dict[str, Seat] = {}
        self._lock = threading.Lock()

    def options(self, system: str) -> list[PlayOption]:
        return play_kinds()[system].options(self.config.banks.get(system))

    def get(self, seat_id: str) -> Seat | None:
        return self._seats.get(seat_id)

    def open(self, system: str, player: str, option: str) -> Seat:
        kind = play_kinds()[system]
        player = player_name(player)
        # Only what the play page offers: anything else reached the task and failed in the
        # seat's process with a traceback (``nonsense`` has no ``::`` to split at).
        if option not in {choice.id for choice in self.options(system)}:
            raise NormlabError(f"option: no {kind.title.split(':')[0]} item {option[:80]!r}")
        roles = bind_roles(kind.roles, self.judge, self.role_assignments)
        with self._lock:
            playing = [s for s in self._seats.values() if not s.finished]
            busy = [s for s in playing if s.player == player]
            if busy:
                raise NormlabError(
                    f"human/{player} is already playing ({busy[0].system}: {busy[0].option}); "
                    "finish that first"
                )
            if len(playing) >= self.max_seats:
                raise SeatsFull(f"all {self.max_seats} seats are taken: try again in a few minutes")
            stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
            folder = self.runs / "play" / system / slug(player) / f"{slug(option)}-{stamp}"
            seat = Seat(new_token()[:12], system, player, option, folder)
            seat._process = SeatProcess(
                _play_in_process, system, player, option, roles, folder, self.config
            )
            self._seats[seat.id] = seat
        thread = threading.Thread(
            target=self._follow, args=(seat, seat._process), name=f"seat-{seat.id}", daemon=True
        )
        thread.start()
        return seat

    def close(self) -> None:
        """End every seat still playing (the server stops): its process is stopped, and the
        seat says so."""
        with self._lock:
            playing = [seat for seat in self._seats.values() if not seat.finished]
        for seat in playing:
            seat.end("the server stopped")
            if seat._process is not None:
                seat._process.stop()

    def _follow(self, seat: Seat, process: SeatProcess) -> None:
        """Carry the seat's process's events to the seat until it ends (or is closed)."""
        try:
            while not seat.finished:
                event = process.next_event(FOLLOW_SECONDS)
                if isinstance(event, Asked):
                    seat.asked(event.messages)
                elif isinstance(event, Ended):
                    seat.end(event.error)
                elif seat.status == "your_turn" and time.monotonic() - seat.asked_at > IDLE_SECONDS:
                    process.stop()
                    minutes = IDLE_SECONDS // 60
                    seat.end(f"nobody answered for {minutes} minutes: the seat was closed")
        except Gone as gone:
            log.error("seat %s: its process ended without a word (%s)", seat.id, gone)
            seat.end(
                f"the seat's process ended unexpectedly ({gone}); the server's log may say why"
            )
        finally:
            process.close()
