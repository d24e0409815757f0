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
nor its cases; a case that fails is not written) and says why for the rest.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from normlab.core.csvio import read_csv_rows
from normlab.core.errors import InputError
from normlab.core.findings import Finding
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.hsii.dataset import cuts
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
        yield from read_csv_rows(path, REQUIRED, written_by_normlab=False)
    else:
        yield from read_jsonl_rows(path)


def read_native_rows(path: Path) -> list[tuple[int, NativeRow]]:
    """The file's rows, each validated (an [`InputError`][normlab.core.InputError] names file, line
    and field)."""
    if not path.is_file():
        raise InputError(path, "no such file (a JSONL or CSV of utterances)")
    rows = [(line, validate_row(NativeRow, raw, path, line)) for line, raw in _rows(path)]
    if not rows:
        raise InputError(path, "no utterances found")
    return rows


def _first(values: list[str], default: str) -> str:
    return next((value for value in values if value.strip()), default)


def _no_second_assistant(
    path: Path, rows: list[tuple[int, NativeRow]], assistant: str, reserved: str
) -> None:
    """Refuse a person whose name is the assistant's own (``Intelligent Assistant``) when
    ``--assistant`` names someone else: their turns would merge with the assistant's, two
    people read as one (issue 32)."""
    for line, row in rows:
        for field in ("speaker", "addressee"):
            person = getattr(row, field)
            if person and normalise_name(person) == reserved:
                raise InputError(
                    path,
                    f"{person!r} is the name HSII gives the assistant, and --assistant names "
                    f"{assistant!r}: rename {person!r} in the file, or pass --assistant "
                    f"{person!r} if they are the assistant",
                    line=line,
                    field=field,
                )


def _dialogue(
    path: Path,
    dialogue_id: str,
    rows: list[tuple[int, NativeRow]],
    assistant: str | None,
    domain: str,
    scene: str | None,
    relationships: str | None,
    topic: str | None,
) -> Dialogue:
    first_line = rows[0][0]
    if any(row.turn is not None for _, row in rows):
        missing = next(((line, row) for line, row in rows if row.turn is None), None)
        if missing:
            raise InputError(
                path, "some rows of this dialogue have a turn and this one has none",
                line=missing[0], field="turn",
            )  # fmt: skip
        rows = sorted(rows, key=lambda item: item[1].turn or 0)
        turns = [row.turn for _, row in rows]
        for (line, row), previous in zip(rows[1:], turns, strict=False):
            if row.turn == previous:
                raise InputError(path, f"turn {row.turn} appears twice", line=line, field="turn")
    plays = normalise_name(assistant or ASSISTANT)
    reserved = normalise_name(ASSISTANT)
    if plays != reserved:
        _no_second_assistant(path, rows, assistant or ASSISTANT, reserved)
    if plays not in {normalise_name(row.speaker) for _, row in rows}:
        raise InputError(
            path,
            f"dialogue {dialogue_id!r}: nobody called {assistant or ASSISTANT!r} speaks; name "
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
    for position, (line, row) in enumerate(rows, start=1):
        speaker = name(row.speaker)
        if not row.addressee and speaker == ASSISTANT:
            raise InputError(
                path, "the assistant's turn needs an addressee", line=line, field="addressee"
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
    given = [row for _, row in rows]
    return Dialogue(
        dialogue_id=dialogue_id,
        domain=domain,
        topic=_first([row.topic for row in given], topic or domain or "conversation"),
        background=Background(
            scene=_first([row.scene for row in given], scene or DEFAULT_SCENE),
            characters=characters,
            relationships=_first(
                [row.relationships for row in given], relationships or DEFAULT_RELATIONSHIPS
            ),
        ),
        messages=messages,
        provenance=Provenance(source="native"),
    )


def _imported(
    path: Path,
    assistant: str | None,
    domain: str,
    scene: str | None,
    relationships: str | None,
    topic: str | None,
) -> list[tuple[int, Dialogue]]:
    """(line of the dialogue's first row, dialogue) in order of first appearance."""
    grouped: dict[str, list[tuple[int, NativeRow]]] = {}
    for line, row in read_native_rows(path):
        grouped.setdefault(row.dialogue_id, []).append((line, row))
    return [
        (rows[0][0], _dialogue(path, key, rows, assistant, domain, scene, relationships, topic))
        for key, rows in grouped.items()
    ]


def import_dialogues(
    path: Path,
    assistant: str | None = None,
    domain: str = "",
    scene: str | None = None,
    relationships: str | None = None,
    topic: str | None = None,
) -> list[Dialogue]:
    """The file's dialogues, in order of first appearance (see the module docstring)."""
    found = _imported(path, assistant, domain, scene, relationships, topic)
    return [dialogue for _, dialogue in found]


@dataclass
class NativeImport:
    """What ``import_bank`` read: the dialogues the linter passed (with the line of each
    one's first row), the findings so far, and their cases, cut and linted one at a time as
    ``cases`` is iterated (a finding for each left out, and a count of those kept)."""

    path: Path
    dialogues: list[tuple[int, Dialogue]]
    findings: list[Finding]
    cases_kept: int = 0

    def cases(self) -> Iterator[Case]:
        """Each dialogue's cases that the linter passes, made as they are asked for: a writer
        holds one case at a time (each holds its history; all of one long dialogue's cases at
        once held its history hundreds of times over)."""
        for line, dialogue in self.dialogues:
            for case in cuts(dialogue):
                wrong = [
                    Finding(str(self.path), line, case.case_id, field, f"{message} (not written)")
                    for field, message in check_case(case, None)
                ]
                self.findings += wrong
                if not wrong:
                    self.cases_kept += 1
                    yield case


def import_bank(
    path: Path,
    assistant: str | None = None,
    domain: str = "",
    scene: str | None = None,
    relationships: str | None = None,
    topic: str | None = None,
) -> NativeImport:
    """The file's dialogues that the linter passes, and a finding (at the dialogue's first
    row) for each problem of what was left out: a dialogue that fails is not written, nor its
    cases; a case that fails is not written (issue 31: an import used to write its cases and
    lint them afterwards). The cases come when ``NativeImport.cases`` is iterated."""
    kept: list[tuple[int, Dialogue]] = []
    findings: list[Finding] = []
    for line, dialogue in _imported(path, assistant, domain, scene, relationships, topic):
        problems = [
            Finding(str(path), line, dialogue.dialogue_id, field, f"{message} (not written)")
            for field, message in check_dialogue(dialogue, None)
        ]
        findings += problems
        if not problems:
            kept.append((line, dialogue))
    return NativeImport(path, kept, findings)
