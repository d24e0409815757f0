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
5. ``key-lines``: ``role_to: X`` / ``content: …`` lines without braces;
6. ``to-prefix``: ``To X: …``; 7. ``at-mention``: ``@X …``.

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
from collections.abc import Iterable, Mapping
from typing import Any

from normlab.hsii.schemas import ASSISTANT, Statement
from normlab.models.structured import load_object

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
_SEVERAL = re.compile(r"\s*(?:,|;|&|/|\band\b)\s*", re.I)


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


def _targets(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(item).strip() for item in value if str(item).strip()]
    text = str(value).strip().strip("'\"[]")
    return [part for part in _SEVERAL.split(text) if part.strip()] if text else []


def _statement(data: Mapping[str, Any], rule: str) -> Statement | None:
    target, content = _field(data, TARGET_KEYS), _field(data, CONTENT_KEYS)
    if target is None or content is None or not str(content).strip():
        return None
    targets = _targets(target)
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

    ``names`` (characters and aliases) lets ``@Rafael Nadal …`` name a two-word character.
    """
    for source, candidate in _candidates(text):
        data = load_object(candidate)
        if data is not None:
            rule = source or ("json" if _is_json(candidate) else "python-dict")
            found = _statement(data, rule)
            if found is not None:
                return found
    lines = {m["key"].lower(): m["value"].strip().strip("'\"") for m in _KEY_LINE.finditer(text)}
    found = _statement(lines, "key-lines")
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
            return Statement(targets=_targets(target), content=match["content"].strip(), rule=rule)
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
