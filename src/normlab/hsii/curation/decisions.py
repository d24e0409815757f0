"""Curation by people (§4, B.4: human evaluators "curate and amend the data based on predefined
criteria"): curators accept, amend or reject scenarios, dialogues and cases; only what they
kept enters the bank, each item's provenance carrying every curator's decision.

The paper names the criteria (scenarios that "accurately meet predefined criteria and
mirror real-world complexities involving intricate social dynamics and conflicts") but
prints no protocol. Ours:

- **Items.** Per dialogue, a *scenario* (scene and relationships) and the *dialogue* (its
  turns); per case, the *case* (its history and its golden). A bank of cases alone gives
  one scenario per dialogue the cases were cut from, and the cases.
- **Decisions.** ``accept``, ``amend`` (the curator's text replaces the item's: the scenario's
  ``scene:``/``relationships:`` lines, the dialogue's turns as ``FROM -> TO: text`` lines,
  the case's golden as one such line, after the history or alone) or ``reject``; the
  [`CRITERIA`][normlab.hsii.CRITERIA] met are ticked. A turn may span lines: a line that is not
  ``FROM -> TO: text`` continues the turn above it, so a multi-line utterance reads back as it was
  written (a line inside an utterance that itself reads ``A -> B: text`` starts a turn).
- **Applying.** A rejection by any curator removes the item and everything cut from it
  (a scenario or dialogue takes its cases along): a veto, because one curator seeing a flaw
  is reason enough to leave a benchmark item out. A case enters only if some curator
  accepted or amended it, its dialogue or its scenario (``keep_unreviewed`` keeps what no
  one decided). Amendments apply in the order the files are given (the last one given wins
  on the same item); an amended dialogue is cut into cases again. An amendment that the
  linter rejects is an error naming the file, line and field, never a silent drop.
- **Agreement** between curators, pair by pair, over the items both decided: the same
  decision of the three (percentage agreement, Wilson interval) and kept-vs-rejected
  (percentage agreement and Cohen's κ, [`normlab.stats.Agreement`][normlab.stats.Agreement]).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from normlab.core.csvio import TEXT_CELL_LIMIT, KeyRow, csv_rows, write_blind
from normlab.core.errors import InputError, quoted
from normlab.hsii.bank.files import Bank, load_bank
from normlab.hsii.curation.criteria import CRITERIA, CRITERIA_TEXT
from normlab.hsii.schemas import Case, Message
from normlab.stats import Agreement, Rate

Level = Literal["scenario", "dialogue", "case"]
LEVELS: tuple[Level, ...] = ("scenario", "dialogue", "case")
Decision = Literal["accept", "amend", "reject"]
DECISIONS: tuple[Decision, ...] = ("accept", "amend", "reject")

DECISION_COLUMN = "curator_decision"
CRITERIA_COLUMN = "curator_criteria"
AMENDED_COLUMN = "curator_amended"
NOTES_COLUMN = "curator_notes"
CURATOR_COLUMN = "curator"
TEXT_COLUMN = "text"
CURATION_COLUMNS = [
    "item_id",
    "level",
    "item",
    "topic",
    "characters",
    TEXT_COLUMN,
    CURATOR_COLUMN,
    DECISION_COLUMN,
    CRITERIA_COLUMN,
    AMENDED_COLUMN,
    NOTES_COLUMN,
]
QUESTION = "Accept, amend (edit the text below) or reject this item? Tick the criteria it meets."
GOLDEN_MARK = "--- golden (the assistant's next turn):"
"""The line between a case's history and its golden in the text curators see (and amend)."""
LINE = re.compile(r"^\s*(?:\[\d+\]\s*)?(?P<from>[^\n]+?) -> (?P<to>[^\n]+?): (?P<content>.*)$")

__all__ = [
    "CRITERIA",
    "CRITERIA_TEXT",
    "CurationAgreement",
    "CurationResult",
    "CuratorRow",
    "analyze_curation",
    "curation_agreement",
    "curation_columns",
    "curation_criteria",
    "export_curation",
    "is_bank_row",
    "read_curation",
    "read_curations",
]


# --- the items people see ---------------------------------------------------------------


def message_line(message: Message) -> str:
    return f"{message.role_from} -> {message.role_to}: {message.content}"


def dialogue_lines(messages: Sequence[Message]) -> str:
    return "\n".join(message_line(m) for m in messages)


def scenario_text(scene: str, relationships: str) -> str:
    return f"scene: {scene}\nrelationships: {relationships}"


class CurationKeyRow(KeyRow):
    """Which item a row is (the CSV shows it too: curation is not blind)."""

    level: Level
    item: str


def _items(bank: Bank) -> list[tuple[dict[str, str], tuple[Level, str]]]:
    rows: list[tuple[dict[str, str], tuple[Level, str]]] = []
    scenes: set[str] = set()
    cases_of: dict[str, list[Case]] = {}
    for case in bank.cases:
        cases_of.setdefault(case.cluster, []).append(case)

    def scenario(item: str, topic: str, characters: list[str], scene: str, rel: str) -> None:
        scenes.add(item)
        common = {"level": "scenario", "item": item, "topic": topic}
        text = scenario_text(scene, rel)
        rows.append(({**common, "characters": ", ".join(characters), TEXT_COLUMN: text},
                     ("scenario", item)))  # fmt: skip

    for dialogue in bank.dialogues:
        background = dialogue.background
        scenario(
            dialogue.dialogue_id, dialogue.topic, background.characters, background.scene,
            background.relationships,
        )  # fmt: skip
        rows.append(
            (
                {
                    "level": "dialogue",
                    "item": dialogue.dialogue_id,
                    "topic": dialogue.topic,
                    "characters": ", ".join(background.characters),
                    TEXT_COLUMN: dialogue_lines(dialogue.messages),
                },
                ("dialogue", dialogue.dialogue_id),
            )
        )
    for cluster, cases in cases_of.items():
        if cluster not in scenes:
            first = cases[0].background
            scenario(cluster, cases[0].topic, first.characters, first.scene, first.relationships)
        for case in cases:
            history = dialogue_lines(case.messages)
            rows.append(
                (
                    {
                        "level": "case",
                        "item": case.case_id,
                        "topic": case.topic,
                        "characters": ", ".join(case.characters),
                        TEXT_COLUMN: f"{history}\n{GOLDEN_MARK}\n{message_line(case.golden)}",
                    },
                    ("case", case.case_id),
                )
            )
    return rows


def export_curation(bank: Path, out: Path, n: int | None = None, seed: int = 0) -> int:
    """Write the bank's items (``n`` of them drawn with ``seed``, in the bank's order; all when
    None or more) as a CSV for curators, and its key beside it; the rows written."""
    if n is not None and n < 1:
        raise InputError("--n", "must be at least 1", field="n")
    items = _items(load_bank(bank))
    chosen = list(range(len(items)))
    if n is not None and n < len(items):
        chosen = sorted(random.Random(seed).sample(range(len(items)), n))
    rows = [
        (items[index][0], CurationKeyRow(item_id=f"K{number:04d}", level=level, item=item))
        for number, index in enumerate(chosen, start=1)
        for level, item in [items[index][1]]
    ]
    return write_blind(out, CURATION_COLUMNS, rows)


# --- reading what curators decided ----------------------------------------------------


class CuratorRow(BaseModel):
    """One curator's decision on one item, and where it was read."""

    file: str
    line: int
    level: Level
    item: str
    curator: str
    decision: Decision
    criteria: dict[str, bool]
    amended: str
    notes: str


def _criteria(text: str, path: Path, line: int) -> dict[str, bool]:
    names = [name.strip() for name in re.split(r"[;,\n]", text) if name.strip()]
    if not names:
        return {}
    unknown = [name for name in names if name not in CRITERIA]
    if unknown:
        raise InputError(
            path,
            f"{quoted(unknown[0])} is not a criterion; use {', '.join(CRITERIA)}",
            line=line,
            field=CRITERIA_COLUMN,
        )
    return {name: name in names for name in CRITERIA}


def read_curation(path: Path, curator: str | None = None) -> list[CuratorRow]:
    """The decided rows of one curator's CSV (blank decisions are skipped); the curator is the
    ``curator`` column, else ``curator``, else the file's name."""
    rows = []
    seen: dict[tuple[str, str], int] = {}
    # A cell holds a whole dialogue, as shown or amended: it may be long.
    columns = ("level", "item", DECISION_COLUMN)
    for line, row in csv_rows(path, columns, cell_limit=TEXT_CELL_LIMIT):
        decision = row[DECISION_COLUMN].strip().lower()
        if not decision:
            continue
        if decision not in DECISIONS:
            raise InputError(
                path,
                f"expected accept, amend or reject, got {quoted(row[DECISION_COLUMN])}",
                line=line,
                field=DECISION_COLUMN,
            )
        level = row["level"].strip()
        if level not in LEVELS:
            raise InputError(
                path, f"expected {', '.join(LEVELS)}, got {quoted(level)}", line=line, field="level"
            )
        amended = row.get(AMENDED_COLUMN, "").strip()
        if decision == "amend" and not amended:
            raise InputError(
                path, "an amendment needs the amended text", line=line, field=AMENDED_COLUMN
            )
        item = row["item"].strip()
        if (level, item) in seen:
            raise InputError(
                path,
                f"{level} {quoted(item)} is decided twice (first on line {seen[level, item]})",
                line=line,
                field="item",
            )
        seen[level, item] = line
        rows.append(
            CuratorRow(
                file=str(path),
                line=line,
                level=level,
                item=item,
                curator=(row.get(CURATOR_COLUMN, "").strip() or curator or path.stem),
                decision=decision,
                criteria=_criteria(row.get(CRITERIA_COLUMN, ""), path, line),
                amended=amended if decision == "amend" else "",
                notes=row.get(NOTES_COLUMN, "").strip(),
            )
        )
    return rows


def read_curations(paths: Sequence[Path]) -> list[CuratorRow]:
    """The decided rows of several curators' CSVs. A curator named in two files is an error:
    their rows would merge into one curator's, and the agreement between the two files would
    vanish without a word (issue 31)."""
    rows: list[CuratorRow] = []
    first_file: dict[str, str] = {}
    for path in paths:
        found = read_curation(path)
        for row in found:
            earlier = first_file.get(row.curator)
            if earlier is not None and earlier != row.file:
                raise InputError(
                    path,
                    f"curator {quoted(row.curator)} also decided in {earlier}: each curator's "
                    f"decisions belong in one file, under a name of their own",
                    line=row.line,
                    field=CURATOR_COLUMN,
                )
        for row in found:
            first_file.setdefault(row.curator, row.file)
        rows += found
    return rows


class CurationResult(BaseModel):
    """One curator's decisions: how many of each, and how often each criterion was met."""

    decided: int
    undecided: int
    accepted: int
    amended: int
    rejected: int
    kept: Rate
    """Items accepted or amended, of those decided."""
    criteria_met: dict[str, Rate]
    """Per criterion, of the decided items whose criteria were ticked."""


def _result(rows: Sequence[CuratorRow], total: int) -> CurationResult:
    ticked = [row for row in rows if row.criteria]
    return CurationResult(
        decided=len(rows),
        undecided=max(total - len(rows), 0),
        accepted=sum(row.decision == "accept" for row in rows),
        amended=sum(row.decision == "amend" for row in rows),
        rejected=sum(row.decision == "reject" for row in rows),
        kept=Rate.where([row.decision != "reject" for row in rows]),
        criteria_met={
            name: Rate.where([row.criteria.get(name, False) for row in ticked]) for name in CRITERIA
        },
    )


def analyze_curation(filled: Path, key: Path | None = None) -> CurationResult:
    """One curator's filled CSV (a web study's, or one filled by hand)."""
    total = sum(1 for _ in csv_rows(filled, ("item_id",), cell_limit=TEXT_CELL_LIMIT))
    return _result(read_curation(filled), total)


class CurationAgreement(BaseModel):
    """Curators pair by pair, over the items both decided."""

    curators: list[str]
    same_decision: dict[str, Rate]
    """Accept, amend or reject alike (percentage agreement)."""
    kept: dict[str, Agreement]
    """Kept (accepted or amended) or rejected alike: agreement and Cohen's κ."""


def agreement_of(rows: Iterable[CuratorRow]) -> CurationAgreement:
    by_curator: dict[str, dict[tuple[str, str], Decision]] = {}
    for row in rows:
        by_curator.setdefault(row.curator, {})[row.level, row.item] = row.decision
    same: dict[str, Rate] = {}
    kept: dict[str, Agreement] = {}
    for first, second in combinations(by_curator, 2):
        shared = [k for k in by_curator[first] if k in by_curator[second]]
        a = [by_curator[first][k] for k in shared]
        b = [by_curator[second][k] for k in shared]
        pair = f"{first} / {second}"
        same[pair] = Rate.where([x == y for x, y in zip(a, b, strict=True)])
        kept[pair] = Agreement.of([x != "reject" for x in a], [y != "reject" for y in b])
    return CurationAgreement(curators=list(by_curator), same_decision=same, kept=kept)


def curation_agreement(filled: Sequence[Path]) -> CurationAgreement:
    """Agreement between the curators of several filled CSVs (one curator each, or several)."""
    return agreement_of(read_curations(filled))


def curation_columns() -> list[str]:
    """The columns of a curation export, in order: what a curator sees and fills (the web
    app's curation studies ask the face for them)."""
    return CURATION_COLUMNS


def is_bank_row(row: dict[str, object]) -> bool:
    """Whether a JSONL row is a dialogue's or a case's (each carries its ``messages``): a file
    that starts with one is a bank to curate (the web app's new-study form offers it)."""
    return "messages" in row


def curation_criteria() -> list[tuple[str, str]]:
    """(name, what a curator reads) per criterion, for the web form's boxes."""
    return [(name, CRITERIA_TEXT[name]) for name in CRITERIA]
