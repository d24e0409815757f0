"""Leak checks shared by the linters of every system."""

from __future__ import annotations

from normlab.core.leaks import copied_runs, leak_word_findings


def test_leak_words() -> None:
    fields = [("a", "Team chat for the release"), ("b", "Channel etiquette: be brief"),
              ("c", "an AI evaluation sandbox")]  # fmt: skip
    assert list(leak_word_findings(fields)) == [
        ("b", "mentions 'etiquette'"),
        ("c", "mentions 'AI'"),
    ]


def test_copied_runs() -> None:
    hidden = ["Questions get a pointer to a resource instead of the answer."]
    found = list(copied_runs([("t", "you get a pointer to a resource here")], hidden, 5))
    assert found == [("t", "shares a 5-word run with hidden text: 'a pointer to a resource'")]
    assert not list(copied_runs([("t", "a pointer, to a resource")], hidden, 6))
