"""The one text fold (issue 31 review, item 6): a hand case, then its metamorphic properties.

Properties (Hypothesis): folding twice is folding once; a text's Unicode normal form (NFC, NFD)
never matters; "&" and " and " fold alike; so does letter case, over letters whose upper and
lower case are each other's.
"""

from __future__ import annotations

import unicodedata

from hypothesis import given, settings
from hypothesis import strategies as st

from normlab.core.text import fold, words


def test_a_text_folded_by_hand() -> None:
    """Each step of the rule on one text, written out:

    "  Health & Safety — O’Brien's CAFÉ_Rules  "
      casefold             → "  health & safety — o’brien's café_rules  "
      "&" as " and "       → "  health  and  safety — o’brien's café_rules  "
      apostrophes dropped  → "  health  and  safety — obriens café_rules  "
      spaces single, ends  → "health and safety — obriens café_rules"      (fold)
      marks and "_" split  → health | and | safety | obriens | café | rules (words)
      accents stripped     → … | cafe | rules                              (words, strip_accents)
    """
    text = "  Health & Safety — O’Brien's CAFÉ_Rules  "
    assert fold(text) == "health and safety — obriens café_rules"
    assert words(text) == ["health", "and", "safety", "obriens", "café", "rules"]
    assert words(text, strip_accents=True) == [
        "health",
        "and",
        "safety",
        "obriens",
        "cafe",
        "rules",
    ]
    # export's promise: one norm whatever the accents, quotes, case and compatibility forms
    assert words("Café tables stay clear.", strip_accents=True) == words(
        "“CAFE TABLES STAY CLEAR”", strip_accents=True
    )
    assert words("ﬁre exits Ａ", strip_accents=True) == ["fire", "exits", "a"]
    # an NFD text is its NFC original; a mark with no precomposed letter stays on its letter
    assert fold("Zoe\u0308") == fold("ZOË") == "zoë"
    assert words("İstanbul") == ["i\u0307stanbul"]
    assert words("İstanbul", strip_accents=True) == ["istanbul"]


ANY_TEXT = st.text(st.characters(codec="utf-8"), max_size=30)  # any text but surrogates
LETTERS = "abcdefghijklmnopqrstuvwxyzàéïñøçåæœ"
CASED = st.lists(st.sampled_from([*LETTERS, *" &'’-.,_", " and "]), max_size=30).map("".join)
PROPERTY = settings(max_examples=300, deadline=None)


@PROPERTY
@given(ANY_TEXT, st.booleans())
def test_folding_twice_is_folding_once(text: str, strip_accents: bool) -> None:
    once = fold(text, strip_accents=strip_accents)
    assert fold(once, strip_accents=strip_accents) == once
    joined = " ".join(words(text, strip_accents=strip_accents))
    assert words(joined, strip_accents=strip_accents) == words(text, strip_accents=strip_accents)


@PROPERTY
@given(ANY_TEXT, st.sampled_from(["NFC", "NFD"]), st.booleans())
def test_the_unicode_normal_form_does_not_matter(text: str, form: str, strip_accents: bool) -> None:
    other = unicodedata.normalize(form, text)  # type: ignore[arg-type]
    assert fold(other, strip_accents=strip_accents) == fold(text, strip_accents=strip_accents)
    assert words(other, strip_accents=strip_accents) == words(text, strip_accents=strip_accents)


@PROPERTY
@given(ANY_TEXT, st.booleans())
def test_ampersand_is_the_word_and(text: str, strip_accents: bool) -> None:
    spelt = text.replace("&", " and ")
    assert fold(spelt, strip_accents=strip_accents) == fold(text, strip_accents=strip_accents)
    assert words(spelt, strip_accents=strip_accents) == words(text, strip_accents=strip_accents)


@PROPERTY
@given(CASED, st.booleans())
def test_letter_case_does_not_matter(text: str, strip_accents: bool) -> None:
    for cased in (text.upper(), text.lower(), text.title(), text.swapcase()):
        assert fold(cased, strip_accents=strip_accents) == fold(text, strip_accents=strip_accents)
