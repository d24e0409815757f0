"""Native dialogues (B.4's second source): multi-party dialogue files imported as HSII dialogues.

The paper lists "Native Dialogues" (Doc2Dial, multi-person forums) beside the news-derived
ones and says nothing of how they were mapped. Ours: a file with one row per utterance,
JSONL or CSV, columns

- ``dialogue_id``, ``speaker``, ``text`` (required), ``addressee`` (the user spoken to; in a
  forum, the author of the post replied to), ``turn`` (optional whole number: the order,
  and the case id's turn; without it, the file's order);
- optionally ``scene``, ``relationships``, ``topic`` (the first non-blank value in a
  dialogue's rows is its background; the command's options fill what the file leaves blank).

One speaker plays HSII's assistant, whose next target the cases ask for: the one named by
``assistant`` (``--assistant NAME``), else a speaker already called "Intelligent Assistant".
Their name becomes ``ASSISTANT`` wherever it is speaker or addressee; when ``--assistant``
names someone else, a person whose name *is* "Intelligent Assistant" is refused (their turns
would have merged with the assistant's). Every other speaker or addressee is a character, in
order of first appearance. Names are matched as r2 matches them (``normalise_name``: letter
case, Unicode form, punctuation): "Priya" who speaks and "priya" who is addressed are one
character, spelt as first written (in NFC).
A blank addressee (a forum thread's opening post, a remark to the room) is addressed to the
assistant, the one participant every user shares; the assistant's own turns need one.
Each dialogue's provenance says ``source = "native"``; its cases are cut as generated
dialogues are (``normlab.hsii.dataset.cut_dialogues``) and linted the same way;
``import_bank`` keeps only what the linter passes (a dialogue that fails is not written,
nor its cases; a case that fails is not written) and says why for the rest. A dialogue of
more than ``MAX_TURNS`` turns refuses the file (one line, exit 2, nothing written): each case
holds its whole history, so its cases would hold its turns hundreds of times over. Until issue
41 it was left out as a lint finding, whose exit 1 is the code of a run to resume; the file
is bad input, as a malformed row is.

Memory grows with the file, not with its cases: rows are read one at a time and kept column
by column, and each dialogue is built, linted, written and cut into cases (each written
before the next is made) one after another. A 9 MB thread of 200,000 turns reached 21 GB.
"""

from __future__ import annotations

import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from normlab.core.csvio import TEXT_CELL_LIMIT, csv_rows
from normlab.core.errors import InputError
from normlab.core.findings import Finding
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.hsii.dataset import MAX_TURNS, cuts, too_many_turns
from normlab.hsii.lint import check_case, check_dialogue
from normlab.hsii.names import normalise_name
from normlab.hsii.schemas import ASSISTANT, Background, Case, Dialogue, Message, Provenance

DEFAULT_SCENE = "A conversation among several people and an Intelligent Assistant."
DEFAULT_RELATIONSHIPS = "Participants of the same conversation."
REQUIRED = ("dialogue_id", "speaker", "text")


class NativeRow(BaseModel):
    """One utterance of a native dialogue file."""

    model_config = ConfigDict(extra="ignore")

    dialogue_id: str = Field(min_length=1)
    speaker: str = Field(min_length=1)
    addressee: str = ""
    text: str = Field(min_length=1)
    turn: int | None = Field(default=None, ge=0)
    scene: str = ""
    relationships: str = ""
    topic: str = ""

    @field_validator("dialogue_id", "speaker", "addressee", "text", mode="before")
    @classmethod
    def _stripped(cls, value: Any) -> Any:
        if isinstance(value, int | float) and not isinstance(value, bool):
            value = str(value)
        return value.strip() if isinstance(value, str) else value

    @field_validator("turn", mode="before")
    @classmethod
    def _blank_turn(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.strip():
            return None
        return value


def _rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() == ".csv":
        # Someone else's corpus: a leading ' is its own text, not normlab's spreadsheet mark.
        yield from csv_rows(path, REQUIRED, written_by_normlab=False, cell_limit=TEXT_CELL_LIMIT)
    else:
        yield from read_jsonl_rows(path)


class Utterance(NamedTuple):
    """One validated row, as a dialogue is built from it."""

    line: int
    speaker: str
    addressee: str
    text: str
    turn: int | None


NO_TURN = -1
"""A row without a turn, in ``Gathered.turns`` (a turn is a whole number ≥ 0)."""


@dataclass(slots=True)
class Gathered:
    """One dialogue's rows as read: the line of its first row, how many there are, each one's
    line, turn, speaker, addressee and text (none kept past ``MAX_TURNS``, only counted: such
    a dialogue is not imported), and the first non-blank scene, relationships and topic its
    rows give. Column by column, numbers in arrays: a file holds hundreds of thousands of
    rows, and an object per row took several times the file's size."""

    first_line: int
    count: int = 0
    lines: array[int] = field(default_factory=lambda: array("q"))
    turns: array[int] = field(default_factory=lambda: array("q"))
    speakers: list[str] = field(default_factory=list)
    addressees: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    scene: str = ""
    relationships: str = ""
    topic: str = ""

    @property
    def too_long(self) -> str | None:
        return too_many_turns(self.count)

    def add(self, line: int, row: NativeRow, name: Callable[[str], str]) -> None:
        """Keep ``row`` (its names through ``name``, one string per name), or only count it
        once the dialogue is over ``MAX_TURNS``."""
        self.count += 1
        for background in ("scene", "relationships", "topic"):  # the first non-blank
            value = getattr(row, background)
            if value.strip() and not getattr(self, background):
                setattr(self, background, value)
        if self.count > MAX_TURNS:
            for column in (self.lines, self.turns, self.speakers, self.addressees, self.texts):
                del column[:]
            return
        self.lines.append(line)
        self.turns.append(NO_TURN if row.turn is None else row.turn)
        self.speakers.append(name(row.speaker))
        self.addressees.append(name(row.addressee))
        self.texts.append(row.text)

    @property
    def utterances(self) -> list[Utterance]:
        """The rows kept, one tuple each (made for one dialogue at a time)."""
        columns = zip(
            self.lines, self.speakers, self.addressees, self.texts, self.turns, strict=True
        )
        return [
            Utterance(line, speaker, addressee, text, None if turn == NO_TURN else turn)
            for line, speaker, addressee, text, turn in columns
        ]


def gather(path: Path) -> dict[str, Gathered]:
    """The file's rows, each validated (an [`InputError`][normlab.core.InputError] names file,
    line and field) and kept by dialogue in order of first appearance, read a row at a time:
    memory grows with the utterances kept, never with a whole file's rows at once, and not
    at all past a dialogue's ``MAX_TURNS`` (one thread of 200,000 turns reached 21 GB)."""
    if not path.is_file():
        raise InputError(path, "no such file (a JSONL or CSV of utterances)")
    dialogues: dict[str, Gathered] = {}
    names: dict[str, str] = {}  # one string per name, not one per row

    def one(text: str) -> str:
        return names.setdefault(text, text)

    for line, raw in _rows(path):
        row = validate_row(NativeRow, raw, path, line)
        found = dialogues.get(row.dialogue_id)
        if found is None:
            found = dialogues[row.dialogue_id] = Gathered(first_line=line)
        found.add(line, row, one)
    if not dialogues:
        raise InputError(path, "no utterances found")
    return dialogues


def _no_second_assistant(path: Path, rows: list[Utterance], assistant: str, reserved: str) -> None:
    """Refuse a person whose name is the assistant's own (``Intelligent Assistant``) when
    ``--assistant`` names someone else: their turns would merge with the assistant's, two
    people read as one (issue 32)."""
    for row in rows:
        for field_name in ("speaker", "addressee"):
            person = getattr(row, field_name)
            if person and normalise_name(person) == reserved:
                raise InputError(
                    path,
                    f"{person!r} is the name HSII gives the assistant, and --assistant names "
                    f"{assistant!r}: rename {person!r} in the file, or pass --assistant "
                    f"{person!r} if they are the assistant",
                    line=row.line,
                    field=field_name,
                )


@dataclass(frozen=True)
class Fill:
    """What an import fills in where a file's rows leave it out: who plays the assistant, and
    the dialogue's domain, scene, relationships and topic (the command's ``--assistant``,
    ``--domain``, ``--scene``, ``--relationships``, ``--topic``)."""

    assistant: str | None = None
    domain: str = ""
    scene: str | None = None
    relationships: str | None = None
    topic: str | None = None


def _dialogue(path: Path, dialogue_id: str, gathered: Gathered, fill: Fill) -> Dialogue:
    assistant = fill.assistant or ASSISTANT
    first_line = gathered.first_line
    rows = gathered.utterances
    if any(row.turn is not None for row in rows):
        missing = next((row for row in rows if row.turn is None), None)
        if missing:
            raise InputError(
                path, "some rows of this dialogue have a turn and this one has none",
                line=missing.line, field="turn",
            )  # fmt: skip
        rows = sorted(rows, key=lambda row: row.turn or 0)
        for row, previous in zip(rows[1:], rows, strict=False):
            if row.turn == previous.turn:
                raise InputError(
                    path, f"turn {row.turn} appears twice", line=row.line, field="turn"
                )
    plays = normalise_name(assistant)
    reserved = normalise_name(ASSISTANT)
    if plays != reserved:
        _no_second_assistant(path, rows, assistant, reserved)
    if plays not in {normalise_name(row.speaker) for row in rows}:
        raise InputError(
            path,
            f"dialogue {dialogue_id!r}: nobody called {assistant!r} speaks; name "
            "the speaker who plays the assistant with --assistant",
            line=first_line,
            field="speaker",
        )

    spelt: dict[str, str] = {}

    def name(person: str) -> str:
        """One spelling per person: the first written, whatever the case or Unicode form."""
        key = normalise_name(person) or person
        if key == plays:
            return ASSISTANT
        return spelt.setdefault(key, unicodedata.normalize("NFC", person))

    characters: list[str] = []
    messages: list[Message] = []
    for position, row in enumerate(rows, start=1):
        speaker = name(row.speaker)
        if not row.addressee and speaker == ASSISTANT:
            raise InputError(
                path, "the assistant's turn needs an addressee", line=row.line, field="addressee"
            )
        addressee = name(row.addressee) if row.addressee else ASSISTANT
        for person in (speaker, addressee):
            if person != ASSISTANT and person not in characters:
                characters.append(person)
        index = str(row.turn if row.turn is not None else position)
        messages.append(
            Message(role_from=speaker, role_to=addressee, content=row.text, index=index)
        )
    if not characters:
        raise InputError(
            path, f"dialogue {dialogue_id!r} has no one but the assistant", line=first_line
        )
    return Dialogue(
        dialogue_id=dialogue_id,
        domain=fill.domain,
        topic=gathered.topic or fill.topic or fill.domain or "conversation",
        background=Background(
            scene=gathered.scene or fill.scene or DEFAULT_SCENE,
            characters=characters,
            relationships=gathered.relationships or fill.relationships or DEFAULT_RELATIONSHIPS,
        ),
        messages=messages,
        provenance=Provenance(source="native"),
    )


def _gathered(path: Path) -> dict[str, Gathered]:
    """``gather(path)``, or an [`InputError`][normlab.core.InputError] naming the first dialogue
    over ``MAX_TURNS`` (its turns were only counted)."""
    found = gather(path)
    for key, gathered in found.items():
        if gathered.too_long is not None:
            raise InputError(
                path, f"dialogue {key!r}: {gathered.too_long}", line=gathered.first_line
            )
    return found


def import_dialogues(path: Path, fill: Fill | None = None) -> list[Dialogue]:
    """The file's dialogues, in order of first appearance (see the module docstring); one
    over ``MAX_TURNS`` is an [`InputError`][normlab.core.InputError]."""
    return [_dialogue(path, key, found, fill or Fill()) for key, found in _gathered(path).items()]


@dataclass
class NativeImport:
    """A file's dialogues and cases as ``import_bank`` makes them (``items``): its rows are read
    and checked at once, each dialogue is built, linted and cut into cases one at a time as
    ``items`` is iterated, so a writer of each item holds one dialogue and one case. What
    the linter rejects is not given, and is said in ``findings``."""

    path: Path
    gathered: dict[str, Gathered]
    fill: Fill
    findings: list[Finding] = field(default_factory=list)
    dialogues_kept: int = 0
    cases_kept: int = 0

    def _found(self, line: int, item: str, problems: Iterable[tuple[str, str]]) -> bool:
        """Note each problem as a finding (at the dialogue's first row); whether there was one."""
        before = len(self.findings)
        self.findings += [
            Finding(str(self.path), line, item, where, f"{problem} (not written)")
            for where, problem in problems
        ]
        return len(self.findings) > before

    def items(self) -> Iterator[Dialogue | Case]:
        """Each dialogue the linter passes, then its cases that it passes (a dialogue that
        fails is not given, nor its cases; a case that fails is not given). A dialogue's rows
        are let go once it is built."""
        while self.gathered:
            key = next(iter(self.gathered))
            gathered = self.gathered.pop(key)
            line = gathered.first_line
            dialogue = _dialogue(self.path, key, gathered, self.fill)
            if self._found(line, key, check_dialogue(dialogue, None)):
                continue
            self.dialogues_kept += 1
            yield dialogue
            for case in cuts(dialogue):
                if not self._found(line, case.case_id, check_case(case, None)):
                    self.cases_kept += 1
                    yield case


def import_bank(path: Path, fill: Fill | None = None) -> NativeImport:
    """The file's rows, read and checked now (a malformed row is an
    [`InputError`][normlab.core.InputError] before anything is written); its dialogues and
    cases that the linter passes come from ``NativeImport.items``, with a finding for each
    problem of what was left out (issue 31: an import used to write its cases and lint them
    afterwards); so is a dialogue over ``MAX_TURNS``."""
    return NativeImport(path, _gathered(path), fill or Fill())
