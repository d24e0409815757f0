"""Names: the one reading of a character's name that building, linting and scoring share.

The paper compares "the chosen target name with golden standard, which covers all possible
duplicated names" (§6.3) and prints no rule. Before issue 31 the scorer, the alias builder and
the importer each folded names their own way: "&" and "and" were one name when aliases were
built and two when a reply was scored; "O'Brien" split into "o brien"; an NFD reply missed its
NFC golden. Now every place compares ``normalise_name``'s output, and a ``Cast``
(the characters and their aliases) answers which character a name is:

1. the same name or a listed alias, once normalised;
2. else a *word run* of one character's name (a title, a surname, "the safety inspector" of
   "HEALTH AND SAFETY INSPECTOR") or its *title + surname* ("Dr Ní Bhriain" of "Dr. Siobhán
   Ní Bhriain": the given name skipped, the surname any run of the words after it), when
   exactly one character's name holds it; one two names hold ("Carlos" of Carlos Moya and
   Carlos Gomez, "Dr Quinn" of Dr. Mara Quinn and Dr. John Quinn) names no one: a miss.

A name that is none of these may still be *meant* for a character: ``Cast.addresses``
says whether a ``To NAME:`` prefix names a participant at all (then it is an address, scored
right or wrong) or is prose ("To be clear: …", never an address).
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from normlab.core.namewords import TITLES
from normlab.core.text import words
from normlab.hsii.schemas import ASSISTANT

CONNECTIVES = frozenset(("and", "of", "the", "for", "to", "a", "an", "in", "on", "at", "with"))
"""Words a word run may hold inside but never start or end with ("AND SAFETY" is no name)."""
SAME_TITLE = {
    "doctor": "dr", "professor": "prof", "captain": "capt", "sergeant": "sgt", "reverend": "rev"
}  # fmt: skip
"""A title's long form read as its short one ("Doctor Quinn" is "Dr Quinn")."""
NEAR_MISS = 0.8
"""Similarity (difflib's ratio) at or above which a name is a misspelling of a character's
name, alias or run of two or more words of a name: an address to someone, scored wrong,
rather than prose."""


@functools.lru_cache(maxsize=1 << 16)
def normalise_name(name: str) -> str:
    """The spelling every comparison of names uses: ``normlab.core.text.words`` (Unicode
    NFC and casefolded, so an NFD reply equals its NFC golden and letter case never matters;
    apostrophes dropped, so "O'Brien" stays one word; "&" read as "and"; other punctuation,
    a title's full stop included, underscores and spacing folded to single spaces; accents
    dropped, so "Siobhan" is "Siobhán": a reply typed without them names the same person),
    and a leading "the" dropped."""
    folded = words(name, strip_accents=True)
    if folded and folded[0] == "the":
        folded = folded[1:]
    return " ".join(folded)


@functools.lru_cache(maxsize=1 << 14)
def word_runs(name: str) -> frozenset[str]:
    """Every run of consecutive words of ``name`` (normalised), within the name or within its
    parenthesised part, that neither starts nor ends with a connective: "HEALTH AND SAFETY
    INSPECTOR" gives "health", "health and safety", "safety inspector", "inspector" …

    Both functions remember what they gave for each name: a cast's few names are read again
    for every reply, alias and lint check that names someone, and reading them was the
    largest cost of scoring HSII."""
    runs: set[str] = set()
    for part in (name, *re.split(r"[()]", name)):
        said = normalise_name(part).split()
        for start in range(len(said)):
            for end in range(start + 1, len(said) + 1):
                if said[start] not in CONNECTIVES and said[end - 1] not in CONNECTIVES:
                    runs.add(" ".join(said[start:end]))
    return frozenset(runs)


def _titled(said: list[str]) -> str:
    """Normalised words with a leading title in its short form."""
    if said and said[0] in SAME_TITLE:
        return " ".join([SAME_TITLE[said[0]], *said[1:]])
    return " ".join(said)


@functools.lru_cache(maxsize=1 << 14)
def titled_surnames(name: str) -> frozenset[str]:
    """Title + surname of each part of ``name`` (``X (Y)`` has two) that is a title, a given
    name and a surname (normalised, the title in its short form): the title, then each run
    of the words after the given name that starts with no connective, so a surname of
    several words is whole ("dr ní bhriain", "dr van der berg", "dr de la cruz") and its
    last words still name the person ("dr cruz"). A part whose last word is a title too
    ("CHIEF FINANCE OFFICER") is a post, not a titled person, and gives none."""
    found: set[str] = set()
    for part in re.split(r"[()]", name):
        said = normalise_name(part).split()
        if len(said) < 3 or said[0] not in TITLES or said[-1] in TITLES:
            continue
        for start in range(2, len(said)):
            if said[start] not in CONNECTIVES:
                found.add(_titled([said[0], *said[start:]]))
    return frozenset(found)


@dataclass(frozen=True)
class Cast:
    """A case's characters and their aliases, and the rule that reads a name as one of them."""

    characters: tuple[str, ...]
    aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @classmethod
    def of(
        cls, characters: Iterable[str], aliases: Mapping[str, Sequence[str]] | None = None
    ) -> Cast:
        return cls(tuple(characters), dict(aliases or {}))

    def spellings(self, character: str) -> list[str]:
        """The character's name and its listed aliases."""
        return [character, *self.aliases.get(character, [])]

    def names(self) -> list[str]:
        """Every name and alias of the cast (what an ``@NAME`` mention may start with)."""
        return [name for character in self.characters for name in self.spellings(character)]

    def owners(self, name: str) -> set[str]:
        """The characters ``name`` could mean: those it names exactly (name or alias), else
        those whose name holds it as a word run or as its title + surname; the assistant and
        the empty name mean none."""
        wanted = normalise_name(name)
        if not wanted or wanted == normalise_name(ASSISTANT):
            return set()
        exact = {
            character
            for character in self.characters
            if any(normalise_name(spelling) == wanted for spelling in self.spellings(character))
        }
        if exact:
            return exact
        titled = _titled(wanted.split())
        return {
            character
            for character in self.characters
            if wanted in word_runs(character) or titled in titled_surnames(character)
        }

    def resolve(self, name: str) -> str | None:
        """The one character ``name`` means, or None (unknown, ambiguous, the assistant)."""
        owners = self.owners(name)
        return next(iter(owners)) if len(owners) == 1 else None

    def addresses(self, name: str) -> bool:
        """Does ``name`` name a participant at all: a character (even ambiguously, a single
        word of a name included), the assistant, or a near-miss of a character's name, an
        alias, a run of two or more words of a name or a title + surname. A ``To NAME:``
        prefix is an address only then (issue 31: "To be clear: …" is prose).

        A near-miss of a single word of a name is not: against every one-word run, the
        common words that start prose came too close to some word of a cast ("To start:" to
        STARTUP OPERATIONS LEAD, "To manage:" to a MANAGER in 201 of the 477 shipped casts);
        a misspelt first name alone ("To Prya:") is read as prose with them."""
        wanted = normalise_name(name)
        if not wanted:
            return False
        if wanted == normalise_name(ASSISTANT) or self.owners(name):
            return True
        known = {normalise_name(spelling) for spelling in self.names()}
        known |= {
            run
            for character in self.characters
            for run in word_runs(character)
            if " " in run  # two or more words
        }
        known |= {titled for c in self.characters for titled in titled_surnames(c)}
        return bool(difflib.get_close_matches(wanted, sorted(known), n=1, cutoff=NEAR_MISS))
