"""Renaming participants, consistently and seeded: the ``rename:SEED`` prompt variant.

A rename must change what participants are called and nothing else: not who speaks, not who
is who, not the norm, not the golden target. So each name of an item (a scenario, a case) is
read into its parts (``NameParts``): titles, a given name, a family name (of one word or
several: "Ní Bhriain", "van der Berg"), a role in brackets. Each distinct given name is
mapped once to a new one and each distinct family name once to a new one, so two people who
share a family name still do, and every way the text writes a person is renamed alike: the
whole name, the given name alone, the family name alone, with its title ("Dr. Sharma"). A
title is kept as it is ("Dr. Lee" → "Dr. Gallardo"): a title says what someone is, not who.
A role's name (HSII's "SAFETY OFFICER") has no parts; it is mapped whole, to a person's name.

Every occurrence is found in one pass (longest first; a new name is never renamed again), on
the text with its accents folded and its letter case ignored ("José", "Jose", "JOSÉ" and the
NFD spelling are one name), and replaced in the letter case it is written in. An occurrence of
a name that is also an English word ("Will", "May", "Grace") is renamed only where it is the
name (``normlab.core.namewords``): "Will this be sorted by the end of May?" keeps both words;
where the text does not say which it is, the rename refuses the item (``NameOrWord``) rather
than guess. A name of one letter (HSII's "A") is renamed only where it stands whole (a
speaker, an addressee), never in prose; a role's name in capitals as written, or where it is
the name in title case ("Will, …", "the Orchard Owner"), never in lower case ("the farmers"
is the common noun).

A new name is drawn from ``normlab.core.namebank``: no word of it may be a word of the item
(its norm, its transcript, its other names), and its given name fits the pronouns the item's
text uses of that participant ("she" in a sentence that names only her) and its title's
("Mrs"). The draw is seeded by the variant's seed and the item's id, so the same seed renames
the same item alike in every run (and resumes).
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from normlab.core.namebank import FAMILY_NAMES, GIVEN_NAMES, fitting
from normlab.core.namewords import (
    HONORIFICS,
    RANKS,
    NameOrWord,
    Reading,
    compound_noun,
    is_given_name,
    is_role_word,
    is_word,
    read,
)
from normlab.core.text import APOSTROPHES, words

__all__ = ["FAMILY_NAMES", "GIVEN_NAMES", "NameOrWord", "NameParts", "Renaming", "fresh_names"]

TITLE_PRONOUNS = {
    "mr": "m", "sir": "m", "lord": "m", "father": "m", "fr": "m",
    "mrs": "f", "ms": "f", "miss": "f", "dame": "f", "lady": "f", "sister": "f",
}  # fmt: skip
"""The pronouns a title fits: a drawn given name must fit them too."""
PRONOUNS = {
    **dict.fromkeys(("she", "her", "hers", "herself"), "f"),
    **dict.fromkeys(("he", "him", "his", "himself"), "m"),
}
MIN_LOWER_CASE = 3
"""A name shorter than this is not matched in lower case ("mo", "jo")."""
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")


def fold_offsets(text: str) -> tuple[str, list[int], list[int]]:
    """``text`` with its accents dropped and every apostrophe one ("O’Neill" is "O'Neill"), and
    where each folded character starts and ends in ``text`` (a combining mark belongs to the
    letter before it)."""
    folded: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    for index, char in enumerate(text):
        bare = (
            "'"
            if char in APOSTROPHES
            else "".join(
                c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c)
            )
        )
        if not bare:
            if ends:
                ends[-1] = index + 1
            continue
        for c in bare:
            folded.append(c)
            starts.append(index)
            ends.append(index + 1)
    return "".join(folded), starts, ends


def folded_key(name: str) -> str:
    """How a name is compared: accents dropped, case folded."""
    return fold_offsets(name)[0].casefold()


@dataclass(frozen=True)
class NameParts:
    """A name read into what a rename keeps (titles, a role in brackets) and what it maps."""

    titles: tuple[str, ...]
    given: str | None
    family: str | None
    suffix: str
    role: bool
    """A role's or a group's name, or a letter: mapped whole, to a person's name."""

    @property
    def pronouns(self) -> frozenset[str]:
        bare = (title.rstrip(".").lower() for title in self.titles)
        return frozenset(TITLE_PRONOUNS[title] for title in bare if title in TITLE_PRONOUNS)


def name_parts(name: str, roles: bool = False) -> NameParts:
    """``name`` read into its parts: leading titles (honorifics always, ranks before a name),
    a given name, a family name of the words after it, a role in brackets; with ``roles``
    (HSII's cast), a name in capitals that ends in a word of what someone is ("SAFETY
    OFFICER", "FARMERS", "KILNFORD HEADTEACHER") is a role's (``_reads_as_role``)."""
    core, bracket, rest = name.partition(" (")
    suffix = f"{bracket}{rest}" if bracket else ""
    spelled = core.split()
    titles: list[str] = []
    while len(spelled) > 1:
        head = spelled[0].rstrip(".").lower()
        later = spelled[1:]
        # A rank is a title before a name ("Captain Hook"), but in HSII's cast of roles only
        # where a word that is no English word follows ("CHIEF FINANCE OFFICER" is a post).
        rank = head in RANKS and (not roles or not all(is_word(w) for w in later))
        if head in HONORIFICS or rank:
            titles.append(spelled.pop(0))
        else:
            break
    if len(name) == 1 or (roles and not titles and core.isupper() and _reads_as_role(spelled)):
        return NameParts((), None, None, "", True)
    if len(spelled) == 1:
        given, family = (None, spelled[0]) if titles else (spelled[0], None)
    else:
        given, family = spelled[0], " ".join(spelled[1:])
    return NameParts(tuple(titles), given, family, suffix, False)


def _reads_as_role(spelled: Sequence[str]) -> bool:
    """Whether a name in HSII's capitals is a role's: one that ends in a word of what someone
    is ("KILNFORD HEADTEACHER", "UPPER BRAE PARENTS' CHAIR": a place's name before it is no
    given name), unless a known given name that is no English word stands first or last
    ("PRIYA LEE", "WILL HARPER": a person)."""
    bare = [word.strip(".'’,") for word in spelled]
    person = len(bare) > 1 and any(
        not is_word(word) and is_given_name(word) for word in (bare[0], bare[-1])
    )
    return is_role_word(bare[-1]) and not person


@dataclass(frozen=True)
class Renaming:
    """Old name → new name for one item; ``text`` renames a string, ``strings`` every string
    of a JSON-like value but those under ``skip``'s keys (ids, the turns' fixed words)."""

    names: Mapping[str, str]
    """Each whole name, and each of its parts (given name, family name), → its new one."""
    drop_article: bool = False
    """A role's name ("the ORCHARD OWNER") read as a person's once renamed: its "the" goes."""
    item: str = ""
    """The item's id, for a refusal."""
    lenient: bool = False
    """An occurrence not told is read as the name, not refused (for finding who a text
    mentions, where a mention lost is worse than one too many)."""
    roles: frozenset[str] | None = None
    """Names matched only as written: a role's name in capitals (by default, with
    ``drop_article``, every name in capitals of English words only, "ORCHARD OWNER")."""

    @cached_property
    def strict(self) -> frozenset[str]:
        if self.roles is not None:
            return self.roles
        if not self.drop_article:
            return frozenset()
        return frozenset(
            old for old in self.names if len(old) > 1 and old.isupper() and _all_words(old)
        )

    @cached_property
    def _by_key(self) -> dict[str, str]:
        found: dict[str, str] = {}
        for old in sorted(self.names, key=len, reverse=True):
            if len(old) > 1 and old not in self.strict:
                found.setdefault(folded_key(old), old)
        return found

    @cached_property
    def pattern(self) -> re.Pattern[str] | None:
        """One alternation of every name, longest first, whole words only, on the folded text
        (a hyphen inside a name is part of it, "Mei" is not matched in "Mei-Lin": see
        ``occurrences``)."""
        keys = [*self._by_key, *(fold_offsets(old)[0] for old in self.strict)]
        if not keys:
            return None
        ordered = sorted(set(keys), key=lambda key: (-len(key), key))
        names = "|".join(re.escape(key) for key in ordered)
        article = r"(?P<the>\b[Tt]he\s+)?" if self.drop_article else ""
        return re.compile(rf"{article}(?<![\w-])(?P<name>{names})(?!\w)", re.IGNORECASE)

    def occurrences(self, text: str) -> Iterator[tuple[int, int, int, str]]:
        """Each place ``text`` writes one of the names as the name: (start with any "the",
        start, end, old name). A place where the text does not say whether a name that is a
        word is the name is refused (``NameOrWord``)."""
        if self.pattern is None or not text:
            return
        folded, starts, ends = fold_offsets(text)
        strict = {folded_key(old): old for old in self.strict}
        for match in self.pattern.finditer(folded):
            joined = re.match(r"-(\w+)", folded[match.end() :])
            if joined and not (joined[1].islower() and is_word(joined[1])):
                continue  # "Mei" in "Mei-Lin"; but "Priya-approved" is Priya
            begin, stop = starts[match.start("name")], ends[match.end("name") - 1]
            written = text[begin:stop]
            start = starts[match.start()] if match.groupdict().get("the") else begin
            role = strict.get(match["name"].casefold())
            if role is not None and written.isupper() and " " in role:
                yield start, begin, stop, role  # a role of several words as the cast writes it
                continue
            old = role or self._by_key[match["name"].casefold()]
            if written.islower() and (role is not None or len(written) < MIN_LOWER_CASE):
                continue  # "the farmers": the common noun
            reading = read(text, begin, stop)
            the = match.groupdict().get("the")
            if reading is Reading.UNTOLD and role is not None and the:
                following = re.findall(r"[\w']+|\S", text[stop:])[:1]
                if not compound_noun(role, following[0] if following else ""):
                    reading = Reading.NAME  # "the Orchard Owner": a role is called so
            if reading is Reading.UNTOLD and self.lenient:
                reading = Reading.NAME
            if reading is Reading.UNTOLD:
                around = _around(text, begin, stop)
                raise NameOrWord(
                    f"{self.item}: cannot tell whether {written!r} in {around!r} is the name "
                    f"{old!r} or the word"
                )
            if reading is Reading.NAME:
                yield start, begin, stop, old

    def text(self, text: str) -> str:
        """``text`` with every name replaced, in one pass, in the letter case it is written."""
        if text in self.names:
            return self.names[text]
        pieces: list[str] = []
        last = 0
        for whole, begin, stop, old in self.occurrences(text):
            pieces += [text[last:whole], _cased(self.names[old], text[begin:stop])]
            last = stop
        return "".join(pieces) + text[last:] if pieces else text

    def strings(
        self,
        value: Any,
        skip: frozenset[str] = frozenset(),
        keyed: frozenset[str] = frozenset(),
    ) -> Any:
        """Every string in ``value`` (dicts, lists, strings) renamed, but under ``skip``'s keys;
        under ``keyed``'s keys a mapping's own keys too (HSII's aliases, keyed by character)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.strings(item, skip, keyed) for item in value]
        if isinstance(value, dict):
            return {
                key: item
                if key in skip
                else self._keys(item)
                if key in keyed
                else self.strings(item, skip, keyed)
                for key, item in value.items()
            }
        return value

    def _keys(self, value: Any) -> Any:
        """A mapping with its keys and every string in it renamed."""
        if not isinstance(value, dict):
            return self.strings(value)
        return {self.text(str(key)): self.strings(item) for key, item in value.items()}


def _all_words(name: str) -> bool:
    return all(is_word(word.strip(".'’,")) for word in name.split())


def _around(text: str, begin: int, stop: int) -> str:
    """The occurrence with a few words either side, for a refusal."""
    left = text[:begin].split()[-4:]
    right = text[stop:].split()[:4]
    return " ".join([*left, text[begin:stop], *right])


def _cased(new: str, written: str) -> str:
    """``new`` in the letter case ``written`` is in."""
    if written.isupper() and len(written) > 1:
        return new.upper()
    if written.islower():
        return new.lower()
    return new.title() if new.isupper() and len(new) > 1 else new


def all_strings(value: Any) -> Iterable[str]:
    """Every string in a JSON-like value, keys included."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from all_strings(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from all_strings(item)


def part_keys(parts: Mapping[str, NameParts]) -> dict[str, str]:
    """Each way a person is written → the name it is part of: given names and family names
    (and a family name's last word, "Bhriain" of "Ní Bhriain"); a part two names share is
    kept by the first (a pronoun near it tells nobody apart, and both map alike)."""
    found: dict[str, str] = {}
    for name, part in parts.items():
        if part.role:
            continue
        for key in (part.given, part.family, (part.family or "").split()[-1:] or None):
            text = key if isinstance(key, str) or key is None else key[0]
            if text and len(text) > 1:
                found.setdefault(text, name)
    return found


def pronouns_used(
    texts: Iterable[str],
    parts: Mapping[str, NameParts],
    item: str = "",
    about: Mapping[str, Sequence[str]] | None = None,
    drop_article: bool = False,
) -> dict[str, set[str]]:
    """The pronouns ("f", "m") the texts use of each name: those of a sentence that names only
    that participant, or of one that names nobody after one that named only them; in the
    texts ``about`` a participant (a bio: "She is the SRE on call"), those of a sentence that
    names nobody else."""
    keys = {**part_keys(parts), **{name: name for name in parts}}
    probe = Renaming(dict.fromkeys(keys, ""), drop_article, item, roles=_strict(parts))
    found: dict[str, set[str]] = {name: set() for name in parts}
    sources = [(text, set[str]()) for text in texts]
    sources += [(text, {name}) for name, told in (about or {}).items() for text in told]
    for text, subject in sources:
        previous = subject
        for sentence in _SENTENCE.split(text):
            named = {keys[old] for _, _, _, old in probe.occurrences(sentence)}
            said = {PRONOUNS[w] for w in re.findall(r"[a-z]+", sentence.lower()) if w in PRONOUNS}
            owners = named or previous
            if said and len(owners) == 1:
                found[next(iter(owners))].update(said)
            previous = named or previous
    return found


def _strict(parts: Mapping[str, NameParts]) -> frozenset[str]:
    return frozenset(
        name for name, part in parts.items() if part.role and name.isupper() and len(name) > 1
    )


def fresh_names(
    names: Sequence[str],
    seed: str,
    taken: Iterable[str],
    family: bool = False,
    drop_article: bool = False,
    item: str = "",
    about: Mapping[str, Sequence[str]] | None = None,
) -> Renaming:
    """Each of ``names`` mapped to a new name drawn from the bank with ``seed`` (see the module
    docstring): a role's name to a given name and, where it has two words or more (or always,
    with ``family``), a family name; a person's given and family names each to a new one, its
    titles kept. In capitals where the old name is. No word of a new name is a word of
    ``taken`` (every string of the item, the norm included), of another new name, or of an old
    one. ``drop_article``: ``Renaming.drop_article`` (HSII's roles). ``about``: the texts about
    each participant (bios), whose pronouns are theirs."""
    texts = list(taken)
    rng = random.Random(seed)
    cast = list(dict.fromkeys(names))
    parts = {name: name_parts(name, roles=drop_article) for name in cast}
    said = pronouns_used(texts, parts, item, about, drop_article)
    used = {word for text in texts for word in words(text)}
    used |= {word for name in cast for word in words(name)}
    given_bank, family_bank = list(GIVEN_NAMES), list(FAMILY_NAMES)
    rng.shuffle(given_bank)
    rng.shuffle(family_bank)

    def draw(bank: list[str], fits: Sequence[str] | None = None) -> str:
        for index, candidate in enumerate(bank):
            if (fits is None or candidate in fits) and not set(words(candidate)) & used:
                used.update(words(candidate))
                return bank.pop(index)
        raise ValueError("the name bank has no name left that the item does not use")

    given_of: dict[str, str] = {}
    family_of: dict[str, str] = {}
    mapping: dict[str, str] = {}
    for name in cast:
        part = parts[name]
        fits = fitting(frozenset(said[name]) | part.pronouns)
        if part.role:
            several = len(name.split()) > 1
            new = draw(given_bank, fits) + (f" {draw(family_bank)}" if family or several else "")
        else:
            words_of = list(part.titles)
            if part.given:
                key = folded_key(part.given)
                given_of.setdefault(key, draw(given_bank, fits))
                words_of.append(given_of[key])
            if part.family:
                key = folded_key(part.family)
                family_of.setdefault(key, draw(family_bank))
                words_of.append(family_of[key])
            elif family:
                words_of.append(draw(family_bank))
            new = " ".join(words_of) + part.suffix
        mapping[name] = new.upper() if name.isupper() and len(name) > 1 else new
    for key, name in part_keys(parts).items():
        if key in mapping:
            continue
        part = parts[name]
        bank = given_of if key == part.given else family_of
        new_part = bank[folded_key(key if key == part.given else part.family or key)]
        mapping[key] = new_part.upper() if key.isupper() and len(key) > 1 else new_part
    return Renaming(mapping, drop_article, item, roles=_strict(parts))
