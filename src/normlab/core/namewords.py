"""Is this occurrence of a name the name or the English word? (``rename:SEED``'s reading.)

A participant called Will, May, Grace or Hope shares a spelling with a word, so renaming every
occurrence turns "Will this be sorted by the end of May?" into nonsense and a norm about timing
into one about nobody. Whether a spelling is a word at all is looked up in a packaged English
lexicon (``lemminflect``'s, about 70,000 lemmas with their parts of speech, read from its
wheel: nothing is fetched) plus the closed classes it lacks (months, days); whether one
occurrence of it is the name is decided by where it stands and what it is, with these rules,
in order (``read``):

- not a word ("Kwame", "Priya"): the name, wherever it stands;
- after "@": the name;
- in capitals: read as the name written with a capital would be (a text in capitals says
  nothing by its case: "I WILL" as "I Will", "DR LEE" as "DR Lee");
- in lower case: the word ("hope it helps", "built on sandy foundations", "with grace"),
  except after a greeting ("thanks grace", "cc fern"), as a sentence-initial vocative
  ("grace, can you…", "grace can you…"), or a name that is only a verb before a comma or the
  end ("next week peter, …");
- a month or a day after a preposition of time or beside a number ("by the end of May",
  "May 5"): the word;
- at a sentence's start (after an opening quote too): the name before a comma, a colon, "!",
  "?", a possessive or the end ("Will, can you…", "Grace's draft"); a modal before a pronoun
  or a determiner is the word ("Will this be…", "May I…"), before a verb's inflected form the
  name ("Will says", "May worked"), before anything else not told ("Will check": "I will
  check", or Will checking?); a verb before a pronoun, a determiner, "so" or "not" is the word
  ("Hope you're well", "Hope so", "Mark this done"), an adjective before a noun too ("Sandy
  soil"); a noun before a noun that is no verb is not told ("Grace period ends": a compound,
  or Grace's period?); any other start is the name ("Grace asked", "Grant stop.");
- inside a sentence, capitalised: the name ("ask Grace", "as Will said"), but a modal after a
  pronoun is the word ("I Will ask"), and after an article or a demonstrative ("the Will") or
  before a noun that is no verb the occurrence is not told.

Letter case is information where a text uses it: a chat typed in lower case writes names so
too, and there a name that is a word is read as the word unless the text says otherwise (a
greeting, a vocative), so "will and may are here." keeps both words.

An occurrence not told is refused by the caller (``NameOrWord``): a rename that cannot tell a
name from a word must not guess, since either guess can change the answer.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import lru_cache
from typing import Any

from lemminflect import getAllLemmas  # type: ignore[import-untyped]

MONTHS = frozenset(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december")
)  # fmt: skip
DAYS = frozenset(
    ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
)  # fmt: skip
NUMBERS = frozenset(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
     "eleven", "twelve", "twenty", "hundred")
)  # fmt: skip
CLOSED = MONTHS | DAYS | NUMBERS
"""Words the lexicon lacks (it holds months and days as proper nouns, numerals not at all)."""
AGENT_SUFFIXES = ("er", "r", "ist", "or", "ian", "ee")
HONORIFICS = frozenset(
    ("dr", "doctor", "mr", "mrs", "ms", "miss", "mx", "prof", "professor", "sir", "dame",
     "lady", "lord", "rev", "reverend", "fr")
)  # fmt: skip
"""Titles before a name, always kept."""
RANKS = frozenset(
    ("captain", "capt", "chief", "judge", "father", "sister", "nurse", "officer", "sergeant",
     "sgt", "inspector", "detective", "constable", "councillor", "minister", "coach")
)  # fmt: skip
"""Words that are a title before a person's name ("Captain Okafor") but a post on their own
("CHIEF FINANCE OFFICER"): a title only where a word that is no English word follows."""
TITLES = HONORIFICS | RANKS
"""Words that, first in a person's name, are a title rather than a given name."""

MODALS = frozenset(("can", "could", "may", "might", "must", "shall", "should", "will", "would"))
PRONOUNS = frozenset(
    ("i", "you", "he", "she", "it", "we", "they", "me", "him", "her", "us", "them", "this",
     "that", "these", "those", "there", "everyone", "someone", "anyone", "somebody", "anybody",
     "everybody", "nobody", "everything", "something", "anything", "nothing", "one", "ya",
     "u", "y'all", "yall", "ur", "your", "my", "our", "their", "its", "his")
)  # fmt: skip
DETERMINERS = frozenset(
    ("the", "a", "an", "this", "that", "these", "those", "some", "any", "all", "each", "every",
     "no", "my", "your", "our", "their", "his", "her", "its", "another", "both")
)  # fmt: skip
ARTICLES = frozenset(("the", "a", "an", "this", "that", "these", "those", "my", "your", "our"))
TIME_PREPOSITIONS = frozenset(
    ("in", "of", "by", "until", "till", "til", "since", "before", "after", "during", "from",
     "to", "through", "early", "late", "mid", "next", "last", "this", "every", "on", "end",
     "start", "beginning", "middle", "around", "that", "each")
)  # fmt: skip
GREETINGS = frozenset(
    ("hi", "hey", "hello", "thanks", "thank", "thx", "ty", "cheers", "cc", "ping", "dear", "yo",
     "morning", "bye", "ok", "okay", "sorry", "ask", "tell", "@")
)  # fmt: skip
"""Words after which a lower-case name is the name ("thanks grace", "cc fern")."""
VOCATIVE_NEXT = frozenset(("can", "could", "would", "pls", "please", "do", "did", "are", "have"))
"""Words that, after a lower-case sentence-initial name, make it a vocative ("grace can you…")."""
THIRD_PERSON = frozenset(
    ("is", "was", "has", "had", "does", "did", "says", "said", "asked", "asks", "wants",
     "wanted", "thinks", "thought", "mentioned", "wrote", "writes", "posted", "replied",
     "agreed", "will", "would", "can", "could", "should", "might", "must", "'s", "and", "just",
     "also", "already", "still", "never", "always", "usually", "sent", "sends", "shared",
     "needs", "needed", "knows", "knew", "told", "tells", "made", "makes", "got", "gets")
)  # fmt: skip
"""Words that, after a sentence-initial capitalised word, make it the subject: the name."""

_TOKEN = re.compile(r"[\w'’]+|[^\w\s]")


class Reading(Enum):
    """What one occurrence of a name's spelling is."""

    NAME = "name"
    WORD = "word"
    UNTOLD = "not told"


class NameOrWord(ValueError):
    """An occurrence of a name that is also a word, where the text does not say which it is."""


@lru_cache(maxsize=8192)
def parts_of_speech(word: str) -> frozenset[str]:
    """The lexicon's parts of speech for ``word`` (lower case), with "NOUN" for a month or a
    day; empty for a word the lexicon lacks (most names)."""
    lower = word.lower()
    found = frozenset(getAllLemmas(lower))
    return found | {"NOUN"} if lower in CLOSED else found


def is_word(word: str) -> bool:
    """Whether ``word`` is an English word as well as (perhaps) a name."""
    return bool(parts_of_speech(word))


@lru_cache(maxsize=1)
def _given_names() -> Any:
    """gender-guesser's detector: some 40,000 given names of many countries, from its wheel."""
    from gender_guesser.detector import Detector  # type: ignore[import-untyped]

    return Detector(case_sensitive=False)


def is_given_name(word: str) -> bool:
    """Whether ``word`` is a known given name (gender-guesser's list; "Kwame" is not in it, so
    this says yes, never no)."""
    return bool(word.isalpha()) and _given_names().get_gender(word.title()) != "unknown"


def is_role_word(word: str) -> bool:
    """Whether ``word`` names what someone is: a word, or one the lexicon lacks that is made of
    words ("HEADTEACHER", "SMALLHOLDER") or a word with an agent's ending ("CONVENER",
    "HYDROLOGIST")."""
    lower = word.lower()
    if is_word(lower):
        return True
    if any(is_word(lower[:i]) and is_word(lower[i:]) for i in range(3, len(lower) - 2)):
        return True
    for suffix in AGENT_SUFFIXES:
        stem = lower[: -len(suffix)]
        if (
            lower.endswith(suffix)
            and len(stem) > 2
            and any(is_word(stem + end) for end in ("", "e", "y"))
        ):
            return True
    return False


def _sentence_start(before: str) -> bool:
    """Whether the text before an occurrence ends a sentence (or is empty, or a speaker's label
    or a list mark)."""
    stripped = before.rstrip()
    if not stripped or stripped[-1] in '.!?:;\n"“(-–—•*>' or before.endswith("\n"):
        return True
    # An opening single quote ("she wrote 'Will this…'"), not an apostrophe ("Chris' ").
    return stripped[-1] in "'‘" and (len(stripped) == 1 or not stripped[-2].isalnum())


def _previous(before: str) -> str:
    tokens = _TOKEN.findall(before)
    return tokens[-1].lower() if tokens else ""


def _next(after: str) -> str:
    """The next token, a contraction's first word alone ("you're" → "you")."""
    tokens = _TOKEN.findall(after)
    if not tokens:
        return ""
    token = tokens[0].lower()
    if token == "&":
        return "and"
    return token if token[:1] in "'’" else re.split(r"['’]", token)[0]


def _is_number(token: str) -> bool:
    return bool(re.fullmatch(r"\d+(st|nd|rd|th)?", token))


def read(text: str, start: int, end: int) -> Reading:
    """Whether ``text[start:end]`` (a name's spelling standing whole there) is the name."""
    written = text[start:end]
    spelled = written.split()
    if not all(is_word(part) for part in spelled):
        return Reading.NAME
    before, after = text[:start], text[end:]
    previous, following = _previous(before), _next(after)
    if before.endswith("@"):
        return Reading.NAME
    first = spelled[0].lower()
    if written.isupper() and len(written) > 1:
        # Capitals carry no case of their own (a shouted line, a text all in capitals): read
        # as the name written with a capital would be ("I WILL" as "I Will", "DR LEE" as
        # "DR Lee").
        return read(text[:start] + written.title() + after, start, end)
    if written.islower():
        if previous in GREETINGS:
            return Reading.NAME
        if _sentence_start(before) and (following in (",", ":") or following in VOCATIVE_NEXT):
            return Reading.NAME
        if following in ("", ",", "!", "?") and not parts_of_speech(first) & {"NOUN", "ADJ"}:
            return Reading.NAME  # "next week peter, …": a verb is no vocative
        return Reading.WORD
    dated = previous in TIME_PREPOSITIONS or _is_number(previous) or _is_number(following)
    if len(spelled) == 1 and first in CLOSED and dated:
        return Reading.WORD
    if _sentence_start(before):
        return _at_start(first, following, after)
    if previous in ARTICLES or (len(spelled) == 1 and compound_noun(first, following)):
        return Reading.UNTOLD
    if first in MODALS and len(spelled) == 1 and (previous in PRONOUNS or previous == "we"):
        return Reading.WORD  # "I Will ask", "we May need"
    return Reading.NAME


def compound_noun(word: str, following: str) -> bool:
    """Whether ``word`` before ``following`` may be the first half of a compound noun ("grace
    period", "safety net"): a noun before a word that is a noun and no verb."""
    if not following.isalpha() or following in PRONOUNS or following in DETERMINERS:
        return False
    after = parts_of_speech(following)
    return "NOUN" in parts_of_speech(word) and "NOUN" in after and not after & {"VERB", "AUX"}


def inflected_verb(word: str) -> bool:
    """Whether ``word`` is only a verb's inflected form ("works", "said"), never its base."""
    if not word.isalpha():
        return False
    lemmas = getAllLemmas(word)
    verbs = {*lemmas.get("VERB", ()), *lemmas.get("AUX", ())}
    return bool(verbs) and word not in verbs


def _at_start(word: str, following: str, after: str) -> Reading:
    """A sentence-initial capitalised name that is a word: see the module docstring."""
    if following in ("", ",", ":", "!", "?", ".", ")", "'s", "’s") or after[:2] in ("'s", "’s"):
        return Reading.NAME
    kinds = parts_of_speech(word)
    pronoun = following in PRONOUNS or following in DETERMINERS
    if word in MODALS:
        if pronoun:
            return Reading.WORD
        # A modal takes a verb's base form: "Will works", "May said" make it the subject.
        inflected = inflected_verb(following)
        return Reading.NAME if following in THIRD_PERSON or inflected else Reading.UNTOLD
    if "VERB" in kinds and (pronoun or following in ("so", "not")):
        return Reading.WORD  # "Hope you're well", "Hope so", "Mark this done"
    following_kinds = parts_of_speech(following) if following.isalpha() else frozenset()
    if kinds <= {"ADJ", "ADV"} and "NOUN" in following_kinds and following not in THIRD_PERSON:
        return Reading.WORD
    if compound_noun(word, following):
        return Reading.UNTOLD  # "Grace period ends": a compound noun, or Grace's period?
    # A verb before anything else is not the verb's imperative ("Grant stop."): the name.
    return Reading.NAME
