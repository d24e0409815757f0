"""Aliases: the other ways a character is addressed that its name itself does not give.

The paper's r2 compares the chosen name "with golden standard, which covers all possible
duplicated names", but prints no alias list. A cast written in Prompt-1's style
("HEALTH AND SAFETY INSPECTOR", "DR. MARA QUINN (WARD SISTER)") is addressed by a model as
"the safety inspector", "Health & Safety Inspector", "Dr Quinn" or "ward sister". Most of these
the name gives by itself, read through ``normlab.hsii.names`` (the one normaliser building,
linting and scoring share): "&" is "and", and a word run that only one character's name holds
("safety inspector", "ward sister", "Quinn") names that character, and so does a title +
surname that only one character's name gives ("Dr Quinn", "Dr Ní Bhriain" of "Dr. Siobhán Ní
Bhriain": ``normlab.hsii.names.titled_surnames``). Until issue 41 this module derived title +
surname as an alias of its own, from the last word only, so "Dr Ní Bhriain" was a miss; the
rule now lives with the other readings of a name, and an alias is kept only where it adds
something to them: one given by the generator's reply (a speaker or addressee it spelt
otherwise that still resolves to one character), by its ``aliases``, or by an earlier list.

An alias is dropped when the names alone already read it as that character (its own name, or
a word run no other character's name holds: it adds nothing), when it is another character's
name, an alias two characters would share, or the assistant: so an alias never makes a target
ambiguous (the linter's rule). One that is a word run of another character's name is kept
("the head" for the HEADTEACHER beside a HEAD OF SCIENCE), and so is a run the character's
name shares with another's ("Carlos" for Carlos Moya beside Carlos Gomez): someone chose it,
and it tells the two apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from normlab.hsii.names import Cast, normalise_name
from normlab.hsii.schemas import ASSISTANT


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
    """The cast's aliases: those ``given`` (the generator's reply, earlier aliases) that add
    to what the names say (see the module docstring for what is dropped). One may be a word
    run of another character's name ("the head" for the HEADTEACHER beside a HEAD OF SCIENCE)
    or one the character's name shares with another's ("Carlos" for Carlos Moya beside Carlos
    Gomez): someone chose it, and a listed alias is matched before any run."""
    proposed = {
        c: list(dict.fromkeys(a.strip() for a in (given or {}).get(c, []) if a.strip()))
        for c in characters
    }
    owners: dict[str, set[str]] = {}
    for character, listed in proposed.items():
        for alias in listed:
            owners.setdefault(normalise_name(alias), set()).add(character)
    names = {normalise_name(character) for character in characters}
    bare = Cast.of(characters)
    assistant = normalise_name(ASSISTANT)
    aliases: dict[str, list[str]] = {}
    for character, listed in proposed.items():
        kept = [
            alias
            for alias in listed
            if (folded := normalise_name(alias))
            and len(owners[folded]) == 1
            and folded not in names
            and bare.resolve(alias) != character
            and "assistant" not in folded
            and folded != assistant
        ]
        if kept:
            aliases[character] = kept
    return aliases
