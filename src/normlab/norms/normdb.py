"""The personal norm database: adding, qualifying, deduplicating, and when synthesis is due.

Each agent holds one [`NormDatabase`][normlab.norms.NormDatabase]. Normative information
enters it once, with its provenance, whatever the immediate evaluation says: a rejected
item stays, neither activated nor valid, with the reason (the paper's ⟨…, F, F⟩), so the
trace can show what an agent heard and refused. An exact duplicate (same words once case,
punctuation and spacing are set aside) of a *qualified* norm is not evaluated again: it costs
no call and adds no item (in the authors' snapshot 56% of identified items were duplicates).
The paper checks duplication against the qualified set P only (§2.3.1), so words that were
refused, or folded into an abstract norm, are evaluated afresh when heard again: a second
conversation can persuade an agent that a first one did not (Figure 3's path).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Literal

from normlab.core.text import words
from normlab.norms.schemas import NormDatabase, NormType, Origin, PersonalNorm

SynthesisTrigger = Literal["paper", "counter"]


def normalized(content: str) -> str:
    """Words only, the key of the exact-duplicate pre-check and of export's one norm per
    wording: ``normlab.core.text.words`` with accents stripped, so Unicode form, letter case,
    accents, "&" for "and", apostrophes, quotes, punctuation and spacing are set aside ("Café
    tables stay clear." and "“CAFE TABLES STAY CLEAR”" have the same words). The pre-check
    skips without a call only what CheckDuplication(n̄, P) would surely call a duplicate, and
    neither an accent nor an apostrophe makes another word of a norm ("cafe", "dont")."""
    return " ".join(words(content, strip_accents=True))


def exact_duplicate(
    database: NormDatabase, content: str, leave_out: Collection[int] = ()
) -> PersonalNorm | None:
    """The qualified norm of ``database`` with the same words as ``content``, if any: the
    pre-check of CheckDuplication(n̄, P), whose P holds only qualified norms (a rejected or
    deactivated item with these words does not make new information a duplicate).
    ``leave_out``: ids not to compare with (an abstract norm's own members)."""
    key = normalized(content)
    return next(
        (
            norm
            for norm in database.qualified()
            if norm.id not in leave_out and normalized(norm.content) == key
        ),
        None,
    )


def add_norm(
    database: NormDatabase,
    *,
    content: str,
    type: NormType,
    utility: int,
    origin: Origin,
    source_text: str,
    time: str,
    qualified: bool,
    rejection: str | None = None,
    members: list[int] | None = None,
) -> PersonalNorm:
    """Append an item (qualified or rejected) and return it."""
    norm = PersonalNorm(
        id=database.next_id(),
        content=content,
        utility=utility,
        type=type,
        activated=qualified,
        valid=qualified,
        origin=origin,
        source_text=source_text,
        time=time,
        rejection=rejection,
        members=members or [],
    )
    database.norms.append(norm)
    if qualified and origin != "created":
        database.synthesis_counter += utility
    return norm


def qualified_key(database: NormDatabase) -> str:
    """The qualified set as a string, to tell whether it changed since a synthesis attempt."""
    return ",".join(str(norm.id) for norm in database.qualified())


def synthesis_due(database: NormDatabase, trigger: SynthesisTrigger, threshold: int) -> bool:
    """Whether long-term synthesis starts now.

    ``paper``: the qualified norms' utilities sum past ``threshold`` (§2.3). ``counter``
    (the authors' code): the utility of norms accepted since the last synthesis, initial
    norms excluded, reaches ``threshold``. Either way, not again for the same qualified set:
    a synthesis that changed nothing would otherwise repeat every hour.
    """
    if len(database.qualified()) < 2 or database.last_synthesis_of == qualified_key(database):
        return False
    if trigger == "paper":
        return database.qualified_utility() > threshold
    return database.synthesis_counter >= threshold


def mark_synthesis_attempt(database: NormDatabase) -> None:
    """Remember the qualified set synthesis last saw, and restart the counter."""
    database.last_synthesis_of = qualified_key(database)
    database.synthesis_counter = 0


def apply_abstract(
    database: NormDatabase,
    *,
    content: str,
    type: NormType,
    utility: int,
    members: list[int],
    theme: str,
    time: str,
) -> PersonalNorm:
    """A qualified abstract norm; its members stay valid but are no longer activated."""
    for norm in database.norms:
        if norm.id in members:
            norm.activated = False
    return add_norm(
        database,
        content=content,
        type=type,
        utility=utility,
        origin="synthesis",
        source_text=theme,
        time=time,
        qualified=True,
        members=members,
    )


def weighted_utility(utilities: list[int], weights: list[float]) -> tuple[int, bool]:
    """The abstract norm's utility: the weighted mean of its members' (§2.3).

    Returns the utility and whether the model's weights were used: weights that are
    missing, negative, of the wrong length or all zero fall back to equal weights.
    """
    usable = (
        len(weights) == len(utilities)
        and all(weight >= 0 for weight in weights)
        and sum(weights) > 0
    )
    if not usable:
        weights = [1.0] * len(utilities)
    total = sum(weights)
    value = sum(u * w for u, w in zip(utilities, weights, strict=True)) / total
    return max(1, min(100, round(value))), usable
