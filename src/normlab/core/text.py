"""Folding text for comparison: the one rule behind "the same name" and "the same words".

Four places compare text written by models or authors with text written elsewhere: HSII's
names (a reply's addressee against the cast, ``normlab.hsii.names.normalise_name``), HSII's
news retrieval (keywords against news text, ``normlab.hsii.bank.news.analyse``), and CRSEC's norms
(the duplicate pre-check, ``normlab.norms.normdb.normalized``, and export's one norm per
wording, ``normlab.crsec.export.emerged.wording_key``). Each once folded text its own way, and they
drifted apart: "O'Brien" was one word in one place and two in another, and export's docstring
promised "Café" and "CAFE" were one norm while the NFC step after its NFKD step put the accent
back. Every one of them now folds through ``fold`` (and ``words``):

- Unicode: read in canonical decomposition (NFD) and recomposed (NFC) after case folding, so a
  reply in NFD equals its NFC original (case folding alone does not commute with composition);
- letter case: ``str.casefold`` ("STRASSE" and "Straße" fold alike);
- "&" is the word "and" ("Health & Safety" and "Health and Safety");
- apostrophes (straight, typographic, modifier letter, backtick and acute accent as typed for one)
  are dropped, so a word with one inside stays one word ("O'Brien" → "obrien", "don’t" → "dont");
- runs of whitespace are one space, none at either end;
- ``strip_accents``: compatibility-decomposed (NFKD: "ﬁ" is "fi", a full-width "Ａ" is "a") and
  combining marks dropped ("Café" → "cafe"), where an accent does not make another word.

``words`` goes on to read every other punctuation mark and the underscore as a space
between words. What stays with a caller is its own: a name's leading "the" (names), clauses
and stems (news).
"""

from __future__ import annotations

import re
import unicodedata

APOSTROPHES = "'’‘ʼ`´"
"""Marks read as an apostrophe (the acute accent and backtick as keyboards type one)."""
_APOSTROPHE = re.compile(f"[{APOSTROPHES}]")
_SPACE = re.compile(r"\s+")


def _without_marks(text: str) -> str:
    """``text`` compatibility-decomposed with its combining marks (accents) dropped."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def fold(text: str, *, strip_accents: bool = False) -> str:
    """``text`` as compared (see the module's rule): NFC and casefolded, "&" read as " and ",
    apostrophes dropped, whitespace single; accents dropped too when ``strip_accents``.

    Idempotent, and the same for any Unicode normal form of ``text``."""
    folded = unicodedata.normalize("NFD", text).casefold()
    if strip_accents:
        # Stripped after case folding (a folded letter may decompose further) and again after
        # NFKD of the result, which can expose marks compatibility forms held.
        folded = _without_marks(_without_marks(folded).casefold())
    folded = unicodedata.normalize("NFC", folded)
    folded = _APOSTROPHE.sub("", folded.replace("&", " and "))
    return _SPACE.sub(" ", folded).strip()


def _in_word(char: str) -> bool:
    """A letter or digit, or a combining mark (an accent no precomposed letter holds, as on the
    "i̇" that "İ" folds to, stays on its letter)."""
    return char.isalnum() or unicodedata.category(char).startswith("M")


def words(text: str, *, strip_accents: bool = False) -> list[str]:
    """The words of ``fold``'s ``text``: every mark but an apostrophe (dropped inside its
    word), and the underscore, separates two words as a space does."""
    folded = fold(text, strip_accents=strip_accents)
    return "".join(char if _in_word(char) else " " for char in folded).split()
