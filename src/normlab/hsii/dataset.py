"""HSII data files: news seeds, dialogues, cases; cutting dialogues into cases; Inspect samples.

Cases come from dialogues as the paper describes (§6.1): "extract the preceding
dialogue as contextual background, the assistant's response as golden
responses". We cut at every assistant turn that has at least two messages before
it and exactly one character as addressee (cases whose golden is addressed to
the assistant itself or to no one cannot be scored).

The case loader reads our rows and the paper's printed shape (Tables 3–5:
``role-from`` spellings, no ids); a row without ``case_id`` gets one derived from
its content, so reruns resume. In news, dialogue and case rows a top-level field the
row's shape does not have (a release's ``license`` or ``source``) is kept as its
metadata (a dialogue's passes to the cases cut from it, a case's rides in its sample's
metadata and the log); one that is a near miss of a known field (``topics``,
``aliasses``) is an error naming file, line and field (``normlab.core.fields``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.jsonio import read_collection
from normlab.core.selection import check_limit, pick_by_id
from normlab.core.sources import Sourced, read_sourced
from normlab.core.variants import VariantRecord
from normlab.hsii.meta import SampleMeta
from normlab.hsii.prompts import testing_prompt
from normlab.hsii.schemas import ASSISTANT, Case, Dialogue, NewsParagraph

DATA = Path(str(files("normlab.hsii") / "data"))
NEWS_PATH = DATA / "news_seed.jsonl"
DIALOGUES_PATH = DATA / "dialogues.jsonl"
CASES_PATH = DATA / "cases.jsonl"
"""The shipped bank's cases: what a run reads when it is given none."""
MIN_HISTORY = 2
MAX_TURNS = 500
"""The most turns a dialogue may have. Each case holds every turn before its golden, so a
dialogue of n turns gives cases holding about n²/4 turns in all: one imported thread of
200,000 turns (a 9 MB file) would have written hundreds of gigabytes. The paper's dialogues
have a dozen or two; a forum thread of 500 posts already gives cases of a few megabytes."""


def load_news(path: Path = NEWS_PATH) -> list[NewsParagraph]:
    """The news paragraphs dialogues are generated from (the shipped seed unless ``path``)."""
    return read_collection(path, partial(validate_known, NewsParagraph), lambda news: news.id, "id")


def load_dialogues(path: Path = DIALOGUES_PATH) -> list[Dialogue]:
    """The dialogues cases are cut from (the shipped bank's unless ``path``)."""
    return read_collection(
        path,
        partial(validate_known, Dialogue),
        lambda dialogue: dialogue.dialogue_id,
        "dialogue_id",
    )


def parse_case_row(row: dict[str, Any], file: str | Path, line: int) -> Case:
    """One case row; a row without ``case_id`` (the paper's printed shape) gets one from its
    content, the same on every read."""
    if "case_id" not in row:
        digest = hashlib.sha256(json.dumps(row, sort_keys=True).encode()).hexdigest()[:12]
        row = {**row, "case_id": f"case-{digest}"}
    return validate_known(Case, row, file, line)


def load_cases(path: str | Path = CASES_PATH) -> list[Case]:
    """Cases from a JSONL file or folder (our rows or the paper's Tables 3–5 shape)."""
    return read_cases(path).items


def read_cases(location: str | Path = CASES_PATH) -> Sourced[Case]:
    """[`load_cases`][normlab.hsii.load_cases] of a path or any fsspec URL, with the hash of the
    bytes read."""
    return read_sourced(location, parse_case_row, lambda case: case.case_id, "case_id")


def too_many_turns(turns: int) -> str | None:
    """Why a dialogue of ``turns`` turns is too long to cut into cases (``MAX_TURNS``), or
    None."""
    if turns <= MAX_TURNS:
        return None
    return (
        f"{turns:,} turns, more than the {MAX_TURNS:,} a dialogue may have: each case holds "
        "every turn before it, so its cases would repeat its history thousands of times"
    )


def too_long(dialogue: Dialogue) -> str | None:
    """Why ``dialogue`` is too long to cut into cases (``too_many_turns``), or None."""
    return too_many_turns(len(dialogue.messages))


def cuts(dialogue: Dialogue) -> Iterator[Case]:
    """One case per assistant turn with ≥ 2 prior messages and one character addressed, each
    made when asked for: a writer that writes each before asking for the next holds one
    case's history at a time. A dialogue over ``MAX_TURNS`` is an
    [`InputError`][normlab.core.InputError]."""
    problem = too_long(dialogue)
    if problem is not None:
        raise InputError(f"dialogue {dialogue.dialogue_id!r}", problem, field="messages")
    characters = set(dialogue.background.characters)
    for position, message in enumerate(dialogue.messages):
        if message.role_from != ASSISTANT or position < MIN_HISTORY:
            continue
        if message.role_to not in characters:
            continue
        # One dict, so a dialogue's metadata named like a case's field yields to the field.
        fields = {
            **dialogue.model_dump(exclude={"messages"}),
            "case_id": f"{dialogue.dialogue_id}#{message.index or position + 1}",
            "messages": dialogue.messages[:position],
            "golden": message,
        }
        yield Case(**fields)


def cut_dialogue(dialogue: Dialogue) -> list[Case]:
    """Every case of ``dialogue`` (``cuts``)."""
    return list(cuts(dialogue))


def cut_dialogues(dialogues: Iterable[Dialogue]) -> list[Case]:
    return [case for dialogue in dialogues for case in cut_dialogue(dialogue)]


def select_cases(
    cases: Sequence[Case],
    case_ids: Iterable[str] | None = None,
    limit: int | None = None,
    seed: int = 0,
) -> list[Case]:
    """Filter by id (in the order given) and/or draw ``limit`` cases (``draw_cases``)."""
    selected = list(cases)
    if case_ids is not None:
        selected = pick_by_id(cases, case_ids, lambda case: case.case_id, "--case", "case_id")
    if limit is not None:
        check_limit(limit)
        selected = selected[:limit] if case_ids is not None else draw_cases(selected, limit, seed)
    return selected


def draw_cases(cases: Sequence[Case], limit: int, seed: int = 0) -> list[Case]:
    """``limit`` cases spread over as many dialogues as they can be: the dialogues in a seeded
    random order, one case of each in turn (each dialogue's cases in a seeded order too).

    The bank's first cases all come from one dialogue (about 7.5 cases each), and cases of
    one dialogue share its history and its cast, so the first N would measure one scene.
    The same seed draws the same cases, so a run resumes; the draw keeps the bank's order.
    """
    import random

    rng = random.Random(seed)
    groups: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        groups.setdefault(case.cluster, []).append(index)
    order = list(groups.values())
    rng.shuffle(order)
    for members in order:
        rng.shuffle(members)
    chosen: list[int] = []
    for turn in range(max((len(members) for members in order), default=0)):
        chosen += [members[turn] for members in order if turn < len(members)]
    return [cases[index] for index in sorted(chosen[:limit])]


def build_dataset(
    cases: Sequence[Case],
    name: str = "hsii",
    instruction: str | None = None,
    variant: dict[str, str] | None = None,
) -> MemoryDataset:
    """One sample per case: Testing Prompt-1 (or a prompt variant's ``instruction``) and the
    case; the target is the golden addressee; a variant's record in the metadata."""
    return MemoryDataset(
        samples=[
            Sample(
                id=case.case_id,
                input=testing_prompt(case, instruction=instruction),
                target=case.golden.role_to,
                metadata=SampleMeta(
                    case_id=case.case_id,
                    domain=case.domain,
                    characters=len(case.characters),
                    case=case,
                    variant=None if variant is None else VariantRecord.model_validate(variant),
                ).dump(),
            )
            for case in cases
        ],
        name=name,
    )
