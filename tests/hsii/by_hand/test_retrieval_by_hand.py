"""News retrieval by keyword, scored by hand (issue 31, item 8).

§5.1: "we begin with the strategic selection of one to two keywords to seed news searches,
programmatically retrieving relevant news articles and documents". A keyword is one term, its
words' stems in order; an item's score is the cosine of its TF-IDF vector (sublinear tf,
smoothed idf, l2 norm, scikit-learn's defaults otherwise) with the keywords'.
"""

from __future__ import annotations

import math

import pytest

from normlab.hsii.bank.news import NewsItem, analyse, keyword_term, search


def items(*texts: str) -> list[NewsItem]:
    return [NewsItem(id=f"d{i}", text=text) for i, text in enumerate(texts, start=1)]


def test_a_plural_headline_is_found_by_its_singular_keyword() -> None:
    """The issue's own example: "Floods swamp valley farms" never appeared for ``flood``."""
    corpus = [
        NewsItem(id="farms", title="Floods swamp valley farms", text="Water covered the fields."),
        NewsItem(id="budget", title="Council budget", text="The council met on Tuesday."),
    ]
    assert [hit.item.id for hit in search(corpus, ["flood"])] == ["farms"]


def test_cosines_of_three_short_items_by_hand() -> None:
    # Terms (stems; the keyword has one word, so single words only):
    #   d1 "Floods swamp farms."  → flood, swamp, farm          (tf 1 each)
    #   d2 "A flood, a flood."    → a, flood, a, flood          (tf 2 each → 1 + ln 2)
    #   d3 "Farm prices rise."    → farm, price, rise
    # idf = ln((1 + n) / (1 + df)) + 1 with n = 3:
    #   df 2 (flood, farm): ln(4/3) + 1 = 1.2876821;  df 1 (swamp, a, price, rise): 1.6931472
    # d1 = (flood 1.2876821, swamp 1.6931472, farm 1.2876821), |d1| = √6.1829998 = 2.4865639
    #      flood weight = 1.2876821 / 2.4865639 = 0.5178560
    # d2 = (a 1.6931472², flood 1.6931472 · 1.2876821) = (2.8667474, 2.1802358),
    #      |d2| = √12.9716686 = 3.6016203, flood weight = 2.1802358 / 3.6016203 = 0.6053489
    # d3 has no flood: left out. The query is flood alone (weight 1 after its norm), so the
    # cosines are the flood weights: d2 0.605349 first, then d1 0.517856.
    hits = search(items("Floods swamp farms.", "A flood, a flood.", "Farm prices rise."), ["flood"])
    assert [(hit.item.id, hit.rank) for hit in hits] == [("d2", 1), ("d1", 2)]
    assert hits[0].score == pytest.approx(2.1802358 / math.sqrt(12.9716686), abs=1e-6)
    assert hits[1].score == pytest.approx(1.2876821 / math.sqrt(6.1829998), abs=1e-6)


def test_a_two_word_keyword_is_a_phrase() -> None:
    # "river defences" → the term "river defenc"; d2 has both stems but in two clauses.
    # Terms are runs of 1–2 stems within a clause, idf = ln((1 + n) / (1 + df)) + 1, n = 2:
    #   d1 "New river defences hold." → new, river, defenc, hold, new river, river defenc,
    #      defenc hold (7 terms, tf 1); river and defenc are in d2 too (df 2: idf ln(3/3) + 1
    #      = 1), the other five only in d1 (df 1: idf ln(3/2) + 1 = 1.4054651):
    #      |d1| = √(2 · 1² + 5 · 1.4054651²) = √11.8766605 = 3.4462531
    #      cosine with the query "river defenc" = 1.4054651 / 3.4462531 = 0.407824
    #   d2 "The river rose; defences failed." → the, river, rose, the river, river rose |
    #      defenc, fail, defenc fail: no "river defenc", left out (today's split keyword
    #      found it by "river" and "defences" alone).
    assert keyword_term("River Defences") == "river defenc"
    hits = search(
        items("New river defences hold.", "The river rose; defences failed."), ["river defences"]
    )
    assert [hit.item.id for hit in hits] == ["d1"]
    assert hits[0].score == pytest.approx(1.4054651 / math.sqrt(11.8766605), abs=1e-6)


def test_the_analyser_reads_case_unicode_ampersand_and_apostrophes_alike() -> None:
    assert (
        analyse("Health & Safety") == analyse("HEALTH AND SAFETY") == [["health", "and", "safeti"]]
    )
    assert analyse("O’Brien’s flooding") == analyse("O'Brien's floods") == [["obrien", "flood"]]
    assert analyse("Cafe\u0301 floods") == analyse("Café flooded")
