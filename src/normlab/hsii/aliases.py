"""Aliases: the other ways a character is addressed that its name itself does not give.

The paper's r2 compares the chosen name "with golden standard, which covers all possible
duplicated names", but prints no alias list. A cast written in Prompt-1's style
("HEALTH AND SAFETY INSPECTOR", "DR. MARA QUINN (WARD SISTER)") is addressed by a model as
"the safety inspector", "Health & Safety Inspector", "Dr Quinn" or "ward sister". Most of these
the name gives by itself, read through ``normlab.hsii.names`` (the one normaliser building,
linting and scoring share): "&" is "and", and a word run that only one character's name holds
("safety inspector", "ward sister", "Quinn") names that character. An alias is kept only where
it adds something to that rule:

- derived from the cast: for a person's name after a title (Dr, Mr, Prof, Captain …), title +
  surname ("Dr Quinn" is no run of "Dr Mara Quinn");
- given: by the generator's reply (a speaker or addressee it spelt otherwise that still
  resolves to one character), by its ``aliases``, or by an earlier alias list.

An alias is dropped when the names alone already read it as that character (its own name, or
a word run no other character's name holds: it adds nothing), when it is another character's
name, an alias two characters would share, or the assistant: so an alias never makes a target
ambiguous (the linter's rule). A derived alias is dropped too when it is a word run of another
character's name; a given one is not ("the head" for the HEADTEACHER beside a HEAD OF
SCIENCE), and neither is a given run the character's name shares with another's ("Carlos" for
Carlos Moya beside Carlos Gomez): someone chose it, and it tells the two apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from normlab.hsii.names import Cast, normalise_name, word_runs
from normlab.hsii.schemas import ASSISTANT

TITLES = frozenset(
    ("dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame",
     "captain", "capt", "chief", "judge", "rev", "reverend", "father", "sister", "nurse",
     "officer", "sergeant", "sgt", "inspector", "councillor", "minister")
)  # fmt: skip


def _derived(name: str) -> list[str]:
    """Title + surname of each part of ``name`` (``X (Y)`` has two) that starts with a title."""
    candidates: list[str] = []
    for part in (name, *re.split(r"[()]", name)):
        words = part.replace(".", " ").split()
        # "CHIEF FINANCE OFFICER" is a post, not a titled person: its last word is no surname.
        if len(words) >= 3 and words[0].lower() in TITLES and words[-1].lower() not in TITLES:
            candidates.append(f"{words[0]} {words[-1]}")
    return list(dict.fromkeys(candidates))


def reply_spellings(
    spoken: Iterable[tuple[str, str]], characters: Sequence[str]
) -> dict[str, list[str]]:
    """From the generator's reply: ``(as written, resolved character)`` pairs where the reply
    spelt a character otherwise than the cast does."""
    found: dict[str, list[str]] = {}
    for written, character in spoken:
        if character in characters and normalise_name(written) != normalise_name(character):
            found.setdefault(character, [])
            if written not in found[character]:
                found[character].append(written)
    return found


def fill_aliases(
    characters: Sequence[str],
    given: Mapping[str, Sequence[str]] | None = None,
) -> dict[str, list[str]]:
    """The cast's aliases: ``given`` (the generator's reply, earlier aliases) first, then the
    derived ones (see the module docstring for what is dropped). A given alias may be a word
    run of another character's name ("the head" for the HEADTEACHER beside a HEAD OF SCIENCE)
    or one the character's name shares with another's ("Carlos" for Carlos Moya beside Carlos
    Gomez): someone chose it, and a listed alias is matched before any run. A derived one may
    not be another's run."""
    supplied = {c: [a.strip() for a in (given or {}).get(c, []) if a.strip()] for c in characters}
    proposed = {c: list(dict.fromkeys([*supplied[c], *_derived(c)])) for c in characters}
    owners: dict[str, set[str]] = {}
    for character, listed in proposed.items():
        for alias in listed:
            owners.setdefault(normalise_name(alias), set()).add(character)
    runs = {character: word_runs(character) for character in characters}
    names = {normalise_name(character) for character in characters}
    bare = Cast.of(characters)
    assistant = normalise_name(ASSISTANT)
    aliases: dict[str, list[str]] = {}
    for character, listed in proposed.items():
        others = set().union(*(r for c, r in runs.items() if c != character))
        kept = [
            alias
            for alias in listed
            if (folded := normalise_name(alias))
            and len(owners[folded]) == 1
            and folded not in names
            and bare.resolve(alias) != character
            and (alias in supplied[character] or folded not in others)
            and "assistant" not in folded
            and folded != assistant
        ]
        if kept:
            aliases[character] = kept
    return aliases
