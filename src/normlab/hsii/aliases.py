"""Aliases: the other ways a character is addressed, filled so every golden target is scorable.

The paper's r2 compares the chosen name "with golden standard, which covers all possible
duplicated names", but prints no alias list. A cast written in Prompt-1's style
("HEALTH AND SAFETY INSPECTOR", "DR. MARA QUINN (WARD SISTER)") is addressed by a model as
"the safety inspector", "Health & Safety Inspector", "Dr Quinn" or "ward sister"; r2's
first-or-last-word rule (:func:`normlab.hsii.parse.resolve_target`) catches only some.

Derived deterministically from the cast, each name giving:

- a parenthesised part and the part outside it (``X (Y)`` → ``X``, ``Y``);
- its ``and`` / ``&`` spelt the other way;
- its trailing word runs (``SAFETY INSPECTOR``, ``INSPECTOR``);
- for a person's name after a title (Dr, Mr, Prof, Captain …): title + surname, surname.

And from the generator's reply: a speaker or addressee it spelt otherwise that still resolves
to one character. An alias that two characters would share, that is another character's
name, or that names the assistant is dropped, so an alias never makes a target ambiguous
(the linter's rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from normlab.hsii.parse import normalise_name
from normlab.hsii.schemas import ASSISTANT

TITLES = frozenset(
    ("dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame",
     "captain", "capt", "chief", "judge", "rev", "reverend", "father", "sister", "nurse",
     "officer", "sergeant", "sgt", "inspector", "councillor", "minister")
)  # fmt: skip
_PARENTHESIS = re.compile(r"^(?P<outer>[^()]*)\((?P<inner>[^()]+)\)(?P<rest>[^()]*)$")


def _spellings(name: str) -> list[str]:
    forms = [name]
    found = _PARENTHESIS.match(name)
    if found:
        outer = f"{found['outer']} {found['rest']}".strip()
        forms += [part for part in (outer, found["inner"].strip()) if part]
    for form in list(forms):
        if re.search(r"\band\b", form, re.I):
            forms.append(re.sub(r"\s+and\s+", " & ", form, flags=re.I))
        if "&" in form:
            forms.append(re.sub(r"\s*&\s*", " and ", form))
    return forms


def _derived(name: str) -> list[str]:
    """Every alias candidate of one name, in a fixed order (the name itself excluded)."""
    candidates: list[str] = []
    for form in _spellings(name):
        candidates.append(form)
        if "(" in form:
            continue
        words = form.replace(".", " ").split()
        lowered = [word.lower() for word in words]
        if len(words) >= 2:
            # Trailing runs: "SAFETY INSPECTOR", "INSPECTOR" of "HEALTH AND SAFETY INSPECTOR";
            # never a run that starts at a connective ("AND SAFETY INSPECTOR").
            for start in range(1, len(words)):
                if lowered[start] not in ("and", "&", "of", "the"):
                    candidates.append(" ".join(words[start:]))
        if len(words) >= 2 and lowered[0] in TITLES:
            surname = words[-1]
            candidates += [f"{words[0]} {surname}", surname]
    own = normalise_name(name)
    return [c for c in dict.fromkeys(candidates) if normalise_name(c) not in ("", own)]


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
    derived ones; anything ambiguous, another character's name or the assistant is dropped."""
    proposed: dict[str, list[str]] = {}
    for character in characters:
        listed = [*(given or {}).get(character, []), *_derived(character)]
        proposed[character] = list(dict.fromkeys(a.strip() for a in listed if a.strip()))
    owners: dict[str, set[str]] = {}
    for character, listed in proposed.items():
        for alias in listed:
            owners.setdefault(normalise_name(alias), set()).add(character)
    names = {normalise_name(character) for character in characters}
    assistant = normalise_name(ASSISTANT)
    aliases: dict[str, list[str]] = {}
    for character, listed in proposed.items():
        kept = [
            alias
            for alias in listed
            if len(owners[normalise_name(alias)]) == 1
            and normalise_name(alias) not in names
            and "assistant" not in normalise_name(alias)
            and normalise_name(alias) != assistant
        ]
        if kept:
            aliases[character] = kept
    return aliases
