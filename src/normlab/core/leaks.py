"""Leak checks shared by every data linter: subject-visible text must not give the test away.

Two kinds of leak: words that name the hidden layer of a test (norm, rule,
etiquette, evaluation, role-play…), and runs of words copied from hidden text
(a norm statement into a transcript, a news paragraph into a dialogue).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

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
    return _WORD.findall(text.lower().replace("’", "'"))


def shingles(text: str, size: int) -> set[tuple[str, ...]]:
    """Every run of ``size`` consecutive words."""
    tokens = words(text)
    return {tuple(tokens[i : i + size]) for i in range(len(tokens) - size + 1)}


def copied_runs(
    fields: Iterable[tuple[str, str]], hidden: Iterable[str], size: int
) -> Iterator[tuple[str, str]]:
    """``(field, message)`` for every field sharing a ``size``-word run with a hidden text."""
    hidden_runs: set[tuple[str, ...]] = set()
    for text in hidden:
        hidden_runs |= shingles(text, size)
    for field, text in fields:
        shared = shingles(text, size) & hidden_runs
        if shared:
            run = " ".join(sorted(shared)[0])
            yield field, f"shares a {size}-word run with hidden text: {run!r}"
