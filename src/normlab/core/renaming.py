"""Renaming participants, consistently and seeded: the ``rename:SEED`` prompt variant.

A rename must change what participants are called and nothing else: not who speaks, not the
norm, not the golden target. So every name of an item (a scenario, a case) is mapped once,
to a name drawn from a bank, and every occurrence of it in the item's text is replaced in one
pass (a name that is a prefix of another, "Mei" and "Mei-Lin", is matched longest first; a
new name is never itself renamed again). A new name is refused where any of its words is a
word of the item anywhere (its norm, its transcript, its other names): "Will" would turn "I
will" into a name, and a name from the norm's text would put the norm in a participant's
mouth. The draw is seeded by the variant's seed and the item's id, so the same seed renames
the same item alike in every run (and resumes).

Matched forms: the name as written and in capitals; in lower case too (chat is often typed
so: "kayode 💀"), except for a name that is also a common word (``COMMON_WORDS``), has
fewer than three letters, or is written in capitals (HSII's "FARMERS": in lower case, the
common noun). Capitals are kept (HSII's cast is in capitals). Names of one letter
("A", HSII's printed tables) are renamed where they stand whole (a speaker, an addressee),
never in prose, where "A" is mostly the article.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from normlab.core.text import words

GIVEN_NAMES = (
    "Adebayo", "Aigerim", "Alejandro", "Anneliese", "Anouk", "Arnav", "Babajide", "Bartosz",
    "Beatrix", "Benedikt", "Bolanle", "Cassius", "Catalina", "Chiara", "Cosmin", "Dagny",
    "Damla", "Dariusz", "Delfina", "Dumisani", "Efua", "Eitan", "Eleonora", "Emilio",
    "Esperanza", "Evander", "Fabienne", "Farrukh", "Folasade", "Gaspard", "Genevieve",
    "Goran", "Gulnara", "Halvard", "Henrike", "Hiroko", "Ignacio", "Ilse", "Iskander",
    "Jarrah", "Jelena", "Joaquin", "Jovana", "Kalani", "Katarzyna", "Kazimir", "Kemal",
    "Kirra", "Klementina", "Laszlo", "Leocadia", "Lorcan", "Luzia", "Makoa", "Malik",
    "Marisela", "Matthias", "Milena", "Mirko", "Nanami", "Natalio", "Nilufar", "Nnamdi",
    "Octavia", "Odalys", "Olamide", "Orsolya", "Pascale", "Petra", "Quentin", "Radomir",
    "Rasmus", "Renata", "Rosalia", "Sabela", "Sakura", "Salvador", "Sanjeev", "Seamus",
    "Serafina", "Siddharth", "Sigrun", "Stanislav", "Suleiman", "Tahmina", "Takumi",
    "Teodor", "Thiago", "Tove", "Ugne", "Valentin", "Vesna", "Wairimu", "Wilhelmina",
    "Xiomara", "Yaroslav", "Yetunde", "Zdenek", "Zeynep", "Zuberi",
)  # fmt: skip
"""Given names of many origins, none an English word (none in ``COMMON_WORDS`` or the
shipped norms' texts: checked by a test)."""
FAMILY_NAMES = (
    "Abernathy", "Achterberg", "Adeyinka", "Albescu", "Almeida", "Andersson", "Arslan",
    "Bakshi", "Balogun", "Barzani", "Bergkvist", "Bianchetti", "Castellanos", "Chaudhury",
    "Cieslak", "Dahlberg", "Delacroix", "Dimitrov", "Domingos", "Ekwueme", "Escobedo",
    "Falkenrath", "Fenwick-Odu", "Gallardo", "Gundersen", "Hakimi", "Halloran", "Haugland",
    "Ibarra", "Ilunga", "Jablonski", "Jansone", "Kaminski", "Karanja", "Kowalewski",
    "Lachance", "Lindqvist", "Lozano", "Mahlangu", "Marchetti", "Mbatha", "Mendoza",
    "Nakashima", "Nwachukwu", "Ogunleye", "Okonkwo", "Oyelaran", "Pacheco", "Petrovic",
    "Quispe", "Rautenbach", "Rinaldi", "Sandoval", "Sarkozi", "Shevchenko", "Sorensen",
    "Takahashi", "Tembo", "Uchenna", "Valdivia", "Vasquez", "Wojcik", "Yamamoto",
    "Yilmaz", "Zavala", "Zielinska",
)  # fmt: skip
"""Family names for names of two words or more (SCENE's personas, HSII's characters)."""
COMMON_WORDS = frozenset(
    ("grace", "joy", "will", "may", "june", "april", "hope", "faith", "patience", "precious",
     "fern", "ruby", "rose", "ivy", "sol", "mo", "dee", "lou", "pat", "mark", "bill", "jack",
     "art", "gus", "sunny", "summer", "autumn", "dawn", "eve", "rob", "sue", "max", "ray",
     "don", "cliff", "wade", "lane", "penny", "holly", "hazel", "victor", "frank", "grant",
     "chase", "hunter", "sky", "rain", "storm", "chance", "chip", "kit", "bob", "drew",
     "ben", "tom", "van", "guy", "dev", "ward", "shepherd", "mason", "carter", "young")
)  # fmt: skip
"""Names that are also English words: matched as written and in capitals, never in lower
case, where they are mostly the word."""
MIN_LOWER_CASE = 3
"""A name shorter than this is matched as written and in capitals only."""


def _name_pattern(forms: Iterable[str], drop_article: bool) -> re.Pattern[str]:
    """One alternation of every form, longest first, whole words only (a hyphen inside a
    name is part of it: "Mei" is not matched in "Mei-Lin")."""
    ordered = sorted(set(forms), key=lambda form: (-len(form), form))
    names = "|".join(re.escape(form) for form in ordered)
    article = r"(?P<the>\b[Tt]he\s+)?" if drop_article else ""
    return re.compile(rf"{article}(?<![\w-])(?P<name>{names})(?![\w]|-\w)")


@dataclass(frozen=True)
class Renaming:
    """Old name → new name for one item; ``text`` renames a string, ``strings`` every string
    of a JSON-like value but those under ``skip``'s keys (the norm, ids)."""

    names: Mapping[str, str]
    """Each whole name (and, for personal names, each of its distinctive words) → its new one."""
    drop_article: bool = False
    """A role's name ("the ORCHARD OWNER") read as a person's once renamed: its "the" goes."""

    @cached_property
    def forms(self) -> dict[str, str]:
        """Each matched form → its replacement, letter case kept."""
        found: dict[str, str] = {}
        for old, new in self.names.items():
            if len(old) < 2:
                continue  # one letter: only where it stands whole (``whole``)
            found[old] = new
            found.setdefault(old.upper(), new.upper())
            lower = old.lower()
            # A name written in capitals (HSII's roles) is referred to in capitals: in lower
            # case it is the common noun ("FARMERS", "the farmers' prices").
            if len(old) >= MIN_LOWER_CASE and lower not in COMMON_WORDS and not old.isupper():
                found.setdefault(lower, new.lower())
        return found

    def text(self, text: str) -> str:
        """``text`` with every name replaced, in one pass."""
        if text in self.names:
            return self.names[text]
        if not self.forms or not text:
            return text
        return self.pattern.sub(lambda match: self.forms[match["name"]], text)

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        return _name_pattern(self.forms, self.drop_article)

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


def fresh_names(
    names: Sequence[str],
    seed: str,
    taken: Iterable[str],
    family: bool = False,
    parts: bool = False,
    drop_article: bool = False,
) -> Renaming:
    """Each of ``names`` mapped to a new name drawn from the bank with ``seed``: a given name,
    and a family name where the old one has two words or more (or always, with ``family``),
    in capitals where the old one is. No word of a new name is a word of ``taken`` (every
    string of the item, the norm included), of another new name, or of an old one. With
    ``parts``, each word of a personal name that no other name holds is mapped too (SCENE's
    outlines call "Aaliyah Brooks" "Aaliyah"). ``drop_article``: ``Renaming.drop_article``."""
    rng = random.Random(seed)
    used = {word for text in taken for word in words(text)}
    used |= {word for name in names for word in words(name)}
    given, surnames = list(GIVEN_NAMES), list(FAMILY_NAMES)
    rng.shuffle(given)
    rng.shuffle(surnames)

    def draw(bank: list[str]) -> str:
        for index, candidate in enumerate(bank):
            if not set(words(candidate)) & used:
                used.update(words(candidate))
                return bank.pop(index)
        raise ValueError("the name bank has no name left that the item does not use")

    mapping: dict[str, str] = {}
    for name in dict.fromkeys(names):
        several = len(name.split()) > 1
        new = draw(given) + (f" {draw(surnames)}" if family or several else "")
        mapping[name] = new.upper() if name.isupper() and len(name) > 1 else new
    if parts:
        mapping = {**_part_names(mapping), **mapping}
    return Renaming(mapping, drop_article)


def _part_names(mapping: Mapping[str, str]) -> dict[str, str]:
    """The first and last words of each old two-word name → the new name's, where no other old
    name has that word ("Dev" for "Dev Malhotra": matched as written and in capitals, as any
    name is, and in lower case only where it is no common word)."""
    count: dict[str, int] = {}
    for old in mapping:
        for word in set(old.split()):
            count[word] = count.get(word, 0) + 1
    found: dict[str, str] = {}
    for old, new in mapping.items():
        old_words, new_words = old.split(), new.split()
        if len(old_words) < 2 or len(new_words) < 2:
            continue
        for old_word, new_word in ((old_words[0], new_words[0]), (old_words[-1], new_words[-1])):
            if count[old_word] == 1 and len(old_word) > 1:
                found[old_word] = new_word
    return found
