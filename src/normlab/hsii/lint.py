"""The HSII linter: dialogues and cases that the benchmark can score.

One line per finding, ``FILE:LINE: ID: FIELD: message``; ``normlab hsii validate``
exits 0 when clean, 1 with findings, 2 when a file cannot be read. A row with
``golden`` is a case, any other row a dialogue. Checked:

- at most five characters (Prompt-1, requirement 3) and at least two, none of them
  the assistant; exactly one Intelligent Assistant, who speaks;
- every speaker and addressee is a character or the assistant, one addressee per
  message, nobody talking to themself;
- the assistant addresses at least two characters over the dialogue, or target
  selection is trivial (a dialogue property: a case cut early may show only one);
- the golden is the assistant's, to exactly one character;
- a dialogue has at most ``MAX_TURNS`` turns (its cases repeat its
  history, so their size grows with the square of its length);
- aliases name characters and never another character's name;
- no eight-word run copied from the seed news paragraph (when the news is known).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from normlab.core.errors import InputError
from normlab.core.fields import MetadataTally, validate_known
from normlab.core.findings import Finding
from normlab.core.jsonio import jsonl_files, read_jsonl_rows
from normlab.core.leaks import copied_runs
from normlab.hsii.dataset import NEWS_PATH, load_news, parse_case_row, too_long
from normlab.hsii.parse import normalise_name
from normlab.hsii.schemas import ASSISTANT, Background, Case, Dialogue, Message

MAX_CHARACTERS = 5
MIN_CHARACTERS = 2
MIN_ASSISTANT_TARGETS = 2
COPIED_RUN_WORDS = 8


def _people(background: Background, aliases: Mapping[str, list[str]]) -> Iterator[tuple[str, str]]:
    characters = background.characters
    if not MIN_CHARACTERS <= len(characters) <= MAX_CHARACTERS:
        yield (
            "background.characters",
            f"{len(characters)} characters, expected {MIN_CHARACTERS}–{MAX_CHARACTERS} "
            "(the assistant is not listed)",
        )
    names = [normalise_name(c) for c in characters]
    if len(set(names)) != len(names):
        yield "background.characters", "two characters have the same name"
    for character in characters:
        if "assistant" in normalise_name(character):
            yield (
                "background.characters",
                f"{character!r}: only one assistant, and it is not listed",
            )
    for name, listed in aliases.items():
        if name not in characters:
            yield "aliases", f"{name!r} is not a character"
        for alias in listed:
            for other in characters:
                if other != name and normalise_name(alias) == normalise_name(other):
                    yield "aliases", f"alias {alias!r} of {name!r} is {other!r}'s name"


def _turns(messages: list[Message], characters: list[str], where: str) -> Iterator[tuple[str, str]]:
    known = {*characters, ASSISTANT}
    for position, message in enumerate(messages, start=1):
        field = f"{where}.{position}"
        if message.role_from not in known:
            yield field, f"speaker {message.role_from!r} is not a character or the assistant"
        if message.role_to not in known:
            yield field, f"addressee {message.role_to!r} is not one character or the assistant"
        if message.role_from == message.role_to:
            yield field, f"{message.role_from!r} talks to themself"
        if not message.content.strip():
            yield field, "empty message"


def check_dialogue(dialogue: Dialogue, news_text: str | None) -> Iterator[tuple[str, str]]:
    characters = dialogue.background.characters
    long = too_long(dialogue)
    if long is not None:
        yield "messages", long
        return  # its turns one by one would be a finding per turn of a file cut short
    yield from _people(dialogue.background, dialogue.aliases)
    yield from _turns(dialogue.messages, characters, "messages")
    if not any(m.role_from == ASSISTANT for m in dialogue.messages):
        yield "messages", "the Intelligent Assistant never speaks"
    targets = {m.role_to for m in dialogue.messages if m.role_from == ASSISTANT} - {ASSISTANT}
    if len(targets) < MIN_ASSISTANT_TARGETS:
        yield "messages", f"the assistant addresses {len(targets)} character(s), expected ≥ 2"
    if news_text is not None:
        yield from copied_runs(
            ((f"messages.{i}", m.content) for i, m in enumerate(dialogue.messages, start=1)),
            [news_text],
            COPIED_RUN_WORDS,
        )


def check_case(case: Case, news_text: str | None) -> Iterator[tuple[str, str]]:
    characters = case.characters
    yield from _people(case.background, case.aliases)
    yield from _turns(case.messages, characters, "messages")
    if case.golden.role_from != ASSISTANT:
        yield "golden", f"the golden is by {case.golden.role_from!r}, not the {ASSISTANT}"
    if case.golden.role_to not in characters:
        yield "golden", f"the golden's addressee {case.golden.role_to!r} is not one character"
    if news_text is not None:
        yield from copied_runs([("golden", case.golden.content)], [news_text], COPIED_RUN_WORDS)


def _lint_row(
    row: dict[str, Any],
    path: Path,
    line: int,
    news: Mapping[str, str],
    metadata: MetadataTally | None = None,
) -> tuple[str, list[tuple[str, str]]]:
    if "golden" in row:
        case = parse_case_row(row, path, line)
        if metadata is not None:
            metadata.add(path, case)
        return case.case_id, list(check_case(case, news.get(case.source_id)))
    dialogue = validate_known(Dialogue, row, path, line)
    if metadata is not None:
        metadata.add(path, dialogue)
    return dialogue.dialogue_id, list(check_dialogue(dialogue, news.get(dialogue.source_id)))


def lint_paths(
    paths: Iterable[Path],
    news_path: Path | None = NEWS_PATH,
    metadata: MetadataTally | None = None,
) -> tuple[int, list[Finding]]:
    """(rows read, findings) over dialogue or case files; ids must be unique across files.
    ``metadata``, if given, counts the fields the rows carry as metadata."""
    news = {n.id: n.text for n in load_news(news_path)} if news_path is not None else {}
    findings: list[Finding] = []
    seen: dict[str, str] = {}
    rows = 0
    for path in paths:
        for file in jsonl_files(path):
            for line, row in read_jsonl_rows(file):
                rows += 1
                row_id = str(row.get("case_id") or row.get("dialogue_id") or "?")
                try:
                    row_id, problems = _lint_row(row, file, line, news, metadata)
                except InputError as error:
                    findings.append(
                        Finding(str(file), line, row_id, error.field or "(row)", error.problem)
                    )
                    continue
                if row_id in seen:
                    problems.append(("id", f"duplicate id (first at {seen[row_id]})"))
                seen.setdefault(row_id, f"{file}:{line}")
                findings += [Finding(str(file), line, row_id, f, m) for f, m in problems]
    if rows == 0:
        raise InputError(", ".join(map(str, paths)), "no dialogues or cases found")
    return rows, findings
