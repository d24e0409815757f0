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
   to the next quoted key (:func:`normlab.models.structured.loose_object`);
6. ``key-lines``: ``role_to: X`` / ``content: …`` lines without braces;
7. ``to-prefix``: ``To X: …``; 8. ``at-mention``: ``@X …``.

Keys may be spelt ``role_to``, ``role-to``, ``to``, ``target`` or ``addressee`` and
``content``, ``message`` or ``statement``; ``role_from`` is ignored.

r2 matches names ignoring case, spacing, punctuation and a leading "the"; any
listed alias counts, and so does a first or last word of a character's name when
no other character's name starts or ends with it. Several addressees, or the
assistant itself, is a miss.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from normlab.hsii.schemas import ASSISTANT, Statement
from normlab.models.structured import loose_object, strict_object

TARGET_KEYS = ("role_to", "role-to", "to", "target", "addressee", "recipient")
CONTENT_KEYS = ("content", "message", "statement", "text", "utterance")
_FENCE = re.compile(r"```[a-zA-Z]*\s*(.*?)```", re.DOTALL)
_KEY_LINE = re.compile(
    r"""^\s*['"]?(?P<key>[a-z_-]+)['"]?\s*[:=]\s*(?P<value>.+?)\s*,?\s*$""", re.MULTILINE
)
_TO_PREFIX = re.compile(
    r"^\s*(?:\*\*)?to\s+(?P<target>[^:\n*]{1,80}?)\s*:\s*(?:\*\*)?\s*(?P<content>.+)",
    re.I | re.S,
)
_AT_MENTION = re.compile(r"^\s*@(?P<target>\[[^\]]+\]|\S+)[,:]?\s+(?P<content>.+)", re.S)
CURLY_QUOTES = str.maketrans("“”‘’", "\"\"''")
_SEVERAL_KEPT = re.compile(r"(\s*(?:,|;|&|/|\band\b)\s*)", re.I)


def _brace_span(text: str) -> str | None:
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def _repair(span: str) -> str:
    """Curly quotes to straight, trailing commas dropped."""
    fixed = span.translate(CURLY_QUOTES)
    return re.sub(r",\s*([}\]])", r"\1", fixed)


def _field(data: Mapping[str, Any], keys: Iterable[str]) -> Any:
    lowered = {str(key).strip().lower(): value for key, value in data.items()}
    for key in keys:
        if key in lowered and lowered[key] not in (None, ""):
            return lowered[key]
    return None


def names_a_character(text: str, names: Iterable[str]) -> bool:
    """Would r2 read ``text`` as one of ``names`` (the cast and its aliases): the same name
    once case, spacing, punctuation and a leading "the" are folded, or a first or last word
    that only one of the names has."""
    wanted = normalise_name(text)
    folded = [normalise_name(name) for name in names]
    if not wanted or wanted in folded:
        return bool(wanted)
    owners = [name for name in folded if name and wanted in {name.split()[0], name.split()[-1]}]
    return len(owners) == 1


def _targets(value: Any, names: Sequence[str] = ()) -> list[str]:
    """The addressees a reply names. A list is several; text is split at "and", "&", "/",
    "," or ";" only when every part names a character and the whole does not, so a name such
    as "HEALTH AND SAFETY INSPECTOR" stays one addressee."""
    if isinstance(value, list | tuple):
        return [str(item).strip() for item in value if str(item).strip()]
    text = str(value).strip().strip("'\"[]").strip()
    if not text:
        return []
    if names_a_character(text, names):
        return [text]
    parts = _cast_split(text, names)
    return parts if len(parts) > 1 else [text]


def _cast_split(text: str, names: Sequence[str]) -> list[str]:
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
            if fewer and names_a_character(candidate, names):
                best[end] = path
    return best.get(words, [])


def _statement(data: Mapping[str, Any], rule: str, names: Sequence[str]) -> Statement | None:
    target, content = _field(data, TARGET_KEYS), _field(data, CONTENT_KEYS)
    if target is None or content is None or not str(content).strip():
        return None
    targets = _targets(target, names)
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


def _mention(rest: str, names: Iterable[str]) -> tuple[str, str] | None:
    """A known name (the longest) that ``rest`` starts with, and what follows it."""
    for name in sorted(names, key=len, reverse=True):
        if rest.lower().startswith(name.lower()) and rest[len(name) : len(name) + 1] in " ,:":
            return name, rest[len(name) :].lstrip(" ,:")
    return None


def parse_statement(text: str, names: Iterable[str] = ()) -> Statement | None:
    """The target(s) and content of a reply, or None when the reply holds neither.

    ``names`` (characters and aliases) lets ``@Rafael Nadal …`` name a two-word character,
    and keeps a name with "and" in it one addressee.
    """
    names = list(names)
    for source, candidate in _candidates(text):
        data = strict_object(candidate)
        if data is not None:
            rule = source or ("json" if _is_json(candidate) else "python-dict")
            found = _statement(data, rule, names)
            if found is not None:
                return found
    for _, candidate in _candidates(text):
        loose = loose_object(candidate)
        found = _statement(loose, "loose-dict", names) if loose is not None else None
        if found is not None:
            return found
    lines = {m["key"].lower(): m["value"].strip().strip("'\"") for m in _KEY_LINE.finditer(text)}
    found = _statement(lines, "key-lines", names)
    if found is not None:
        return found
    stripped = text.strip()
    if stripped.startswith("@"):
        known = _mention(stripped[1:], names)
        if known is not None and known[1].strip():
            return Statement(targets=[known[0]], content=known[1].strip(), rule="at-mention")
    for rule, pattern in (("to-prefix", _TO_PREFIX), ("at-mention", _AT_MENTION)):
        match = pattern.match(stripped)
        if match and match["content"].strip():
            target = match["target"].strip().strip("[]*")
            return Statement(
                targets=_targets(target, names), content=match["content"].strip(), rule=rule
            )
    return None


# --- r2: target matching -------------------------------------------------------------


def normalise_name(name: str) -> str:
    """Case, spacing and punctuation folded; a leading "the" dropped."""
    words = re.sub(r"[^\w\s]", " ", name.lower()).split()
    if words and words[0] == "the":
        words = words[1:]
    return " ".join(words)


def resolve_target(
    target: str, characters: list[str], aliases: Mapping[str, list[str]] | None = None
) -> str | None:
    """The character ``target`` names, or None (unknown, ambiguous, or the assistant)."""
    wanted = normalise_name(target)
    if not wanted or wanted == normalise_name(ASSISTANT):
        return None
    for character in characters:
        names = [character, *((aliases or {}).get(character, []))]
        if wanted in {normalise_name(name) for name in names}:
            return character
    edges: dict[str, set[str]] = {}
    for character in characters:
        words = normalise_name(character).split()
        for word in {words[0], words[-1]} if words else set():
            edges.setdefault(word, set()).add(character)
    owners = edges.get(wanted, set())
    return next(iter(owners)) if len(owners) == 1 else None


def target_correct(
    statement: Statement,
    golden: str,
    characters: list[str],
    aliases: Mapping[str, list[str]] | None = None,
) -> bool:
    """r2: exactly one addressee, and it names the golden target."""
    if len(statement.targets) != 1:
        return False
    return resolve_target(statement.targets[0], characters, aliases) == golden
