"""Leak checks shared by every data linter: subject-visible text must not give the test away.

Two kinds of leak: words that name the hidden layer of a test (norm, rule,
etiquette, evaluation, role-play…), and runs of words copied from hidden text
(a norm statement into a transcript, a news paragraph into a dialogue).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator

SHARED_RUN_WORDS = 5
"""A run of this many words shared by subject-visible text and hidden text (a norm's statement
or examples) is a leak: the norm copied into what the subject reads gives the test away."""

LEAK_WORDS = re.compile(
    r"\b(norms?|rules?|etiquette|conventions?|expectations?|benchmarks?|evaluat\w*|AI|"
    r"role[- ]?play\w*)\b",
    re.IGNORECASE,
)
"""Words that name or imply the hidden layer of a test."""

_WORD = re.compile(r"[a-z0-9']+")


def leak_word_findings(fields: Iterable[tuple[str, str]]) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for every field whose text names the hidden layer."""
    for field, text in fields:
        match = LEAK_WORDS.search(text)
        if match:
            yield field, f"mentions {match.group(0)!r}"


def words(text: str) -> list[str]:
    """The words of ``text`` as the leak rule compares them: lower case, accents folded (NFC and
    NFD alike), curly apostrophes straight, "&" read as "and" (a copy is a copy however it is
    spelled)."""
    decomposed = unicodedata.normalize("NFKD", text.replace("&", " and "))
    plain = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _WORD.findall(plain.lower().replace("’", "'"))


def shingles(text: str, size: int) -> set[tuple[str, ...]]:
    """Every run of ``size`` consecutive words."""
    tokens = words(text)
    return {tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def shared_run(text: str, hidden: Iterable[str], size: int = SHARED_RUN_WORDS) -> str | None:
    """The first (sorted) ``size``-word run ``text`` shares with a hidden text, or None."""
    runs: set[tuple[str, ...]] = set()
    for other in hidden:
        runs |= shingles(other, size)
    shared = shingles(text, size) & runs
    return " ".join(sorted(shared)[0]) if shared else None


def copied_runs(
    fields: Iterable[tuple[str, str]], hidden: Iterable[str], size: int
) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for every field sharing a ``size``-word run with a hidden text."""
    texts = list(hidden)
    for field, text in fields:
        run = shared_run(text, texts, size)
        if run is not None:
            yield field, f"shares a {size}-word run with hidden text: {run!r}"
