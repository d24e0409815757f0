"""Reading the subject's reply (r1) and matching its target (r2), as leniently as B.5 asks.

B.5: "our evaluation process accounts for a wide range of potential formatting
errors … our evaluation criteria assess whether the output contains the essential
elements required". A reply passes r1 when a target and a statement can be
recovered from it; every reply records the rule that recovered it, so a run can
be audited for how much leniency it needed:

1. ``json``: the reply (or its one ``{…}``) is a JSON object;
2. ``python-dict``: a Python literal dict (the prompt's own example uses single quotes);
3. ``fenced``: either of the above inside a code fence;
4. ``repaired``: the ``{…}`` span after curly quotes and trailing commas are fixed;
5. ``loose-dict``: the prompt's own single-quoted style that is no valid literal because a
   value holds an apostrophe (``'content': 'I'll send it.'``): each quoted key's value runs
   to the next quoted key (``normlab.models.structured.loose_object``);
6. ``cut-off``: an object that never closes (a reply cut by its output cap) whose addressee
   is complete and whose statement has begun: the essential elements are there;
7. ``key-lines``: ``role_to: X`` / ``content: …`` lines without braces, keys in any letter
   case, quoted or in markdown (``Target: X``, ``**role_to**: X``);
8. ``to-prefix``: ``To X: …``, only where X names a participant of the case (or is a
   near-miss of one's name, alias or a run of two or more words of it): "To be clear: …" and
   "To start: …" are prose, not an address;
9. ``at-mention``: ``@X …``, X the longest run of leading words that names a character (or
   several) as r2 reads names ("@Health & Safety Inspector, …"), else the first word.

Keys may be spelt ``role_to``, ``role-to``, ``Role To``, ``to``, ``target``, ``addressee`` or
``recipient`` and ``content``, ``message``, ``statement``, ``text`` or ``utterance``, in any
letter case; ``role_from`` is ignored.

r2 reads names through ``normlab.hsii.names`` (the normaliser that building and linting use
too): case, Unicode form, spacing, punctuation, apostrophes, "&" for "and" and a leading "the"
do not matter; any listed alias counts, and so does a word run of one character's name (a
title, a surname, "the safety inspector") that no other character's name holds. Several
addressees, an ambiguous name, or the assistant itself, is a miss.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from normlab.hsii.names import Cast, normalise_name
from normlab.hsii.schemas import Case, Statement
from normlab.models.structured import loose_object, strict_object

__all__ = [
    "Cast",
    "cast_of",
    "normalise_name",
    "parse_statement",
    "resolve_target",
    "target_correct",
]


def _key(name: str) -> str:
    """A key as compared: casefolded, spaces and hyphens as underscores."""
    return re.sub(r"[\s-]+", "_", str(name).strip().casefold())


TARGET_KEYS = ("role_to", "to", "target", "addressee", "recipient")
CONTENT_KEYS = ("content", "message", "statement", "text", "utterance")
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_MARKUP = "*_`'\""
_KEY_LINE = re.compile(
    r"""^[ \t]*(?:[-*][ \t]+)?[*_`'"]*(?P<key>[A-Za-z][A-Za-z _-]*?)[*_`'"]*[ \t]*[:=]"""
    r"""[*_`]*[ \t]*(?P<value>.+?)[ \t]*,?[ \t]*$""",
    re.MULTILINE,
)
_TO_PREFIX = re.compile(
    r"^\s*(?:\*\*)?to\s+(?P<target>[^:\n*]{1,80}?)\s*:\s*(?:\*\*)?\s*(?P<content>.+)",
    re.I | re.S,
)
_AT_MENTION = re.compile(r"^\s*@(?P<target>\[[^\]]+\]|\S+)[,:]?\s+(?P<content>.+)", re.S)
CURLY_QUOTES = str.maketrans("“”‘’", "\"\"''")
_SEVERAL_KEPT = re.compile(r"(\s*(?:,|;|&|/|\band\b)\s*)", re.I)
NamesLike = Cast | Iterable[str]


def cast_of(case: Case) -> Cast:
    """The case's characters and aliases, as r1 and r2 read names."""
    return Cast.of(case.characters, case.aliases)


def _as_cast(names: NamesLike) -> Cast:
    """A cast, or a bare list of names (each read as a character of its own)."""
    return names if isinstance(names, Cast) else Cast.of(names)


def _brace_span(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _repair(span: str) -> str:
    """Curly quotes to straight, trailing commas dropped."""
    fixed = span.translate(CURLY_QUOTES)
    return re.sub(r",\s*([}\]])", r"\1", fixed)


def _field(data: Mapping[str, Any], keys: Iterable[str]) -> Any:
    keyed = {_key(key): value for key, value in data.items()}
    for key in keys:
        if key in keyed and keyed[key] not in (None, ""):
            return keyed[key]
    return None


def _targets(value: Any, cast: Cast) -> list[str]:
    """The addressees a reply names. A list is several; text is split at "and", "&", "/",
    "," or ";" only when every part names a character and the whole does not, so a name such
    as "HEALTH AND SAFETY INSPECTOR" stays one addressee."""
    if isinstance(value, list | tuple):
        return [str(item).strip() for item in value if str(item).strip()]
    text = str(value).strip().strip("'\"[]").strip()
    if not text:
        return []
    if cast.resolve(text) is not None:
        return [text]
    parts = _cast_split(text, cast)
    return parts if len(parts) > 1 else [text]


def _cast_split(text: str, cast: Cast) -> list[str]:
    """``text`` cut at separators into the fewest pieces that each name a character (a piece
    may keep separators inside, as "HEALTH AND SAFETY INSPECTOR" does); [] when none fits."""
    pieces = _SEVERAL_KEPT.split(text)  # words at even positions, separators at odd ones
    words = len(pieces) // 2 + 1
    best: dict[int, list[str]] = {0: []}
    for start in range(words):
        if start not in best:
            continue
        for end in range(start + 1, words + 1):
            candidate = "".join(pieces[2 * start : 2 * end - 1]).strip()
            path = [*best[start], candidate]
            fewer = end not in best or len(path) < len(best[end])
            if fewer and cast.resolve(candidate) is not None:
                best[end] = path
    return best.get(words, [])


def _statement(data: Mapping[str, Any], rule: str, cast: Cast) -> Statement | None:
    target, content = _field(data, TARGET_KEYS), _field(data, CONTENT_KEYS)
    if target is None or content is None or not str(content).strip():
        return None
    targets = _targets(target, cast)
    return Statement(targets=targets, content=str(content).strip(), rule=rule) if targets else None


def _candidates(text: str) -> Iterable[tuple[str, str]]:
    """(source, candidate text) pairs in the order B.5's leniency is tried."""
    stripped = text.strip()
    yield "", stripped
    for fenced in _FENCE.findall(text):
        yield "fenced", fenced.strip()
        inner = _brace_span(fenced)
        if inner:
            yield "fenced", inner
    span = _brace_span(stripped)
    if span:
        yield "", span
        yield "repaired", _repair(span)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return False
    return True


def _mention(rest: str, cast: Cast) -> tuple[list[str], str] | None:
    """The addressee(s) of an ``@`` mention (``rest`` is what follows the ``@``) and what
    follows them: the longest run of ``rest``'s leading words, up to a colon, that names one
    character, or several joined by "and", "&" or (before a colon) a comma, as a ``role_to``
    value is read ("@Priya, the union rep says …" is addressed to Priya alone), read as r2
    reads names (so
    "@Health & Safety Inspector", an NFD "@Zoë Brandt" and "@Tom O’Brien" name their
    characters whole), or None when no leading run does."""
    leading = list(re.finditer(r"\S+", rest))
    # A colon ends the mention, and before one a comma joins names as "and" does, as in
    # ``role_to`` ("@Priya, Tom: …"); with no colon a comma ends it ("@Priya, the union rep
    # says …" is said to Priya, about the union rep).
    colon = next((i for i, word in enumerate(leading) if word[0].endswith(":")), None)
    comma = next((i for i, word in enumerate(leading) if word[0].endswith(",")), len(leading))
    closed = colon if colon is not None else comma
    longest = max((len(normalise_name(name).split()) for name in cast.names()), default=0)
    for count in range(min(closed + 1, len(leading), 2 * longest + 3), 0, -1):
        end = leading[count - 1].end()
        written = rest[:end].rstrip(",:").strip("[]").strip()
        targets = _targets(written, cast) if written else []
        if targets and all(cast.resolve(target) is not None for target in targets):
            return targets, rest[end:].lstrip(" \t\n,:")
    return None


def _cut_off(text: str, cast: Cast) -> Statement | None:
    """A reply cut off before its object closes (an output cap): B.5's essential elements are
    there when the addressee's value is complete and the statement has begun. The object is
    read loosely with its brace put back; a value cut short keeps its opening quote."""
    start = text.find("{")
    if start < 0 or "}" in text[start:]:
        return None  # no object, or one that closed (and failed for another reason)
    data = loose_object(text[start:].rstrip() + "}")
    if data is None:
        return None
    target, content = _field(data, TARGET_KEYS), _field(data, CONTENT_KEYS)
    if not isinstance(target, str) or target[:1] in ("'", '"'):
        return None  # the addressee itself was cut
    if not isinstance(content, str):
        return None
    said = content[1:] if content[:1] in ("'", '"') else content
    return _statement({"to": target, "content": said}, "cut-off", cast)


def _key_lines(text: str) -> dict[str, str]:
    """``key: value`` lines, the first of each key, keys and values without their markup."""
    lines: dict[str, str] = {}
    for match in _KEY_LINE.finditer(text):
        lines.setdefault(_key(match["key"]), match["value"].strip().strip(_MARKUP).strip())
    return lines


def parse_statement(text: str, names: NamesLike = ()) -> Statement | None:
    """The target(s) and content of a reply, or None when the reply holds neither.

    ``names``, the case's ``Cast`` (or a list of names), lets ``@Rafael Nadal …`` name a
    two-word character, keeps a name with "and" in it one addressee, and tells a ``To NAME:``
    address from prose that starts "To …:".
    """
    cast = _as_cast(names)
    for source, candidate in _candidates(text):
        data = strict_object(candidate)
        if data is not None:
            rule = source or ("json" if _is_json(candidate) else "python-dict")
            found = _statement(data, rule, cast)
            if found is not None:
                return found
    for _, candidate in _candidates(text):
        loose = loose_object(candidate)
        found = _statement(loose, "loose-dict", cast) if loose is not None else None
        if found is not None:
            return found
    found = _cut_off(text, cast) or _statement(_key_lines(text), "key-lines", cast)
    if found is not None:
        return found
    stripped = text.strip()
    if stripped.startswith("@"):
        known = _mention(stripped[1:], cast)
        if known is not None and known[1].strip():
            return Statement(targets=known[0], content=known[1].strip(), rule="at-mention")
    for rule, pattern in (("to-prefix", _TO_PREFIX), ("at-mention", _AT_MENTION)):
        match = pattern.match(stripped)
        if match and match["content"].strip():
            targets = _targets(match["target"].strip().strip("[]*"), cast)
            if rule == "to-prefix" and not all(cast.addresses(t) for t in targets):
                continue  # prose such as "To be clear: …", not an address
            return Statement(targets=targets, content=match["content"].strip(), rule=rule)
    return None


# --- r2: target matching -------------------------------------------------------------


def resolve_target(
    target: str, characters: Sequence[str], aliases: Mapping[str, Sequence[str]] | None = None
) -> str | None:
    """The character ``target`` names, or None (unknown, ambiguous, or the assistant):
    ``normlab.hsii.names.Cast.resolve``."""
    return Cast.of(characters, aliases).resolve(target)


def target_correct(
    statement: Statement,
    golden: str,
    characters: Sequence[str],
    aliases: Mapping[str, Sequence[str]] | None = None,
) -> bool:
    """r2: exactly one addressee, and it names the golden target."""
    if len(statement.targets) != 1:
        return False
    return resolve_target(statement.targets[0], characters, aliases) == golden
