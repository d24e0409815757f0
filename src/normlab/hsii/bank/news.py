"""Keyword retrieval from an offline news corpus: the first stage of HSII's data (§4, §6.1).

The paper seeds each case with "one or two keywords" and searches "pre-processed offline news
datasets" (Leeb & Schölkopf's Babel Briefings; Gao et al.), without saying how. Ours:

- a corpus is a JSONL, CSV or Parquet file at a local path or any fsspec URL (``memory://``,
  ``s3://``, ``hf://datasets/…``); compression is read from the suffix (``.jsonl.gz``);
- columns are named differently across corpora, so a ``FieldMap`` says which column holds
  the id, title, text, date, source, language and domain (defaults: those names; the shipped
  seed corpus, ``data/news_seed.jsonl``, reads with them). Only the text is required; a row
  without an id gets one from its content, so reruns agree;
- filters: published on or after ``since`` and on or before ``until`` (ISO dates; a row with
  no date fails a date filter), ``source`` and ``language`` (exact, case folded);
- a JSONL or CSV corpus is read a line at a time, never held whole;
- ranking: TF-IDF (scikit-learn's, sublinear tf) over the filtered items' title and text,
  each read by ``analyse`` (Unicode NFC, casefolded, "&" as "and", Snowball English stems,
  so "Floods" is found by ``flood``). A keyword is one term however many words it has: "river
  defences" is the phrase (its stems in order, within one clause), never "river" or "defences"
  alone, so the documents' terms are word runs up to the longest keyword's length. An item's
  score is the cosine of its TF-IDF vector with the keywords' (each keyword once, at its idf);
  items holding no keyword are left out, ties broken by corpus order. One or two keywords
  (§5.1), each a word or a two-word phrase; more is refused on one line. It is computed in two
  reads of the items, with no matrix of all their terms (which took several times the corpus'
  size).
"""

from __future__ import annotations

import csv
import hashlib
import importlib
import io
import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import date
from functools import cache
from typing import Any

from pydantic import BaseModel, Field
from pydantic.dataclasses import dataclass

from normlab.core.csvio import TEXT_CELL_LIMIT, dict_rows
from normlab.core.errors import InputError
from normlab.core.jsonio import decoded_lines, line_rows
from normlab.core.sources import read_url_bytes, read_url_lines
from normlab.core.text import fold, words
from normlab.hsii.schemas import NewsParagraph


class FieldMap(BaseModel):
    """Which corpus column holds what (``--id-field``, ``--text-field``, …)."""

    id: str = "id"
    title: str = "title"
    text: str = "text"
    date: str = "date"
    source: str = "source"
    language: str = "language"
    domain: str = "domain"


@dataclass(slots=True)
class NewsItem:
    """One corpus row, read through a ``FieldMap``. A dataclass with slots, not a model: a
    corpus holds hundreds of thousands of them, and a model's per-instance dictionaries took
    more memory than the texts themselves did."""

    id: str
    text: str
    title: str = ""
    date: str | None = None
    source: str = ""
    language: str = ""
    domain: str = ""

    def paragraph(self, keywords: Sequence[str]) -> NewsParagraph:
        """The item as the generator's input: the title (else the text's start), the
        keywords it was found by (the paper's one or two), the domain (else the first keyword)."""
        words = [k for k in keywords if k.strip()][:2] or ["news"]
        return NewsParagraph(
            id=self.id,
            domain=self.domain or words[0],
            keywords=words,
            title=self.title or self.text[:80],
            text=self.text,
        )


class Hit(BaseModel):
    """A retrieved item, its rank (1 = best) and its TF-IDF cosine with the keywords."""

    item: NewsItem
    rank: int
    score: float
    keywords: list[str] = Field(default_factory=list)


def corpus_format(location: str) -> str:
    name = location.lower()
    for suffix in (".gz", ".bz2", ".xz", ".zst"):
        name = name.removesuffix(suffix)
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith((".csv", ".tsv")):
        return "csv"
    if name.endswith((".parquet", ".pq")):
        return "parquet"
    raise InputError(
        location, "unknown corpus format: name it .jsonl, .csv or .parquet", field="--corpus"
    )


def _rows(location: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """The corpus' rows as they are read: a JSONL or CSV line by line (a 200 MB JSONL took
    2.8 GB when its bytes, its text and its lines were held at once), a Parquet file whole
    (its columns are read together)."""
    kind = corpus_format(location)
    if kind == "parquet":
        try:
            # pyarrow ships no type hints; imported by name so mypy reads it as Any.
            pq = importlib.import_module("pyarrow.parquet")
        except ImportError as error:
            raise InputError(location, "reading Parquet needs pyarrow installed") from error
        data = read_url_bytes(location, "corpus", "--corpus")
        try:
            table = pq.read_table(io.BytesIO(data))
        except Exception as error:  # pyarrow raises its own ArrowInvalid and friends
            raise InputError(location, f"not a Parquet file: {error}") from error
        yield from enumerate(table.to_pylist(), start=1)
        return
    lines = decoded_lines(read_url_lines(location, "corpus", "--corpus"), location)
    if kind == "csv":
        dialect = "excel-tab" if ".tsv" in location.lower() else "excel"
        # Strict, with each row's own line: a quote left open is said to be one, at the line
        # its row starts on (it swallowed the rest of the file into a cell, which then read
        # as a row with no text).
        reader = csv.DictReader(lines, dialect=dialect, strict=True)
        yield from dict_rows(reader, location, TEXT_CELL_LIMIT)
        return
    yield from line_rows(lines, location)


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        # Babel Briefings nests the source as {"id", "name"}.
        return str(value.get("name") or value.get("id") or "")
    return str(value).strip()


def _date(value: str, location: str, line: int, field: str) -> str:
    try:
        return date.fromisoformat(value[:10]).isoformat()
    except ValueError as error:
        raise InputError(
            location, f"not an ISO date (YYYY-MM-DD…): {value!r}", line=line, field=field
        ) from error


def read_corpus(location: str, fields: FieldMap | None = None) -> list[NewsItem]:
    """Every row of the corpus at ``location`` as a ``NewsItem``; a row without text, or
    with a date that is no ISO date, is an error naming the file, line and column."""
    fields = fields or FieldMap()
    corpus_format(location)  # a wrong suffix says so before any download
    items: list[NewsItem] = []
    seen: set[str] = set()
    for line, row in _rows(location):
        text = _text(row.get(fields.text))
        if not text:
            known = ", ".join(sorted(map(str, row))[:12])
            raise InputError(
                location,
                f"no text in column {fields.text!r} (columns: {known}); name it with --text-field",
                line=line,
                field=fields.text,
            )
        title = _text(row.get(fields.title))
        item_id = _text(row.get(fields.id))
        if not item_id:
            item_id = "news-" + hashlib.sha256(f"{title}\n{text}".encode()).hexdigest()[:12]
        if item_id in seen:
            raise InputError(location, f"duplicate id {item_id!r}", line=line, field=fields.id)
        seen.add(item_id)
        published = _text(row.get(fields.date))
        items.append(
            NewsItem(
                id=item_id,
                title=title,
                text=text,
                date=_date(published, location, line, fields.date) if published else None,
                source=_text(row.get(fields.source)),
                language=_text(row.get(fields.language)),
                domain=_text(row.get(fields.domain)),
            )
        )
    if not items:
        raise InputError(location, "the corpus holds no rows")
    return items


class Filters(BaseModel):
    """What a search keeps before ranking (``--since``, ``--until``, ``--source``,
    ``--language``)."""

    since: date | None = None
    until: date | None = None
    source: str | None = None
    language: str | None = None

    def keeps(self, item: NewsItem) -> bool:
        if self.since or self.until:
            if item.date is None:
                return False
            published = date.fromisoformat(item.date)
            if (self.since and published < self.since) or (self.until and published > self.until):
                return False
        if self.source and item.source.casefold() != self.source.casefold():
            return False
        return not (self.language and item.language.casefold() != self.language.casefold())


def parse_date(value: str | None, option: str) -> date | None:
    if value is None:
        return None
    try:
        return date.fromisoformat(value)
    except ValueError as error:
        raise InputError(
            option, f"not an ISO date (YYYY-MM-DD): {value!r}", field=option.lstrip("-")
        ) from error


_CLAUSE = re.compile(r"[^\w\s-]+")
"""What ends a phrase: sentence and clause punctuation (not a hyphen; the fold has already
dropped apostrophes and read "&" as "and")."""


@cache
def _stemmer() -> Any:
    # snowballstemmer ships no type hints; imported by name so mypy reads it as Any.
    return importlib.import_module("snowballstemmer").stemmer("english")


@cache
def _stem(word: str) -> str:
    return str(_stemmer().stemWord(word))


def analyse(text: str) -> list[list[str]]:
    """``text`` as clauses of stemmed words: folded as names and norms are
    (``normlab.core.text``: NFC, casefolded, "&" read as "and", apostrophes dropped inside a
    word), each word of a clause reduced to its Snowball English stem."""
    return [[_stem(word) for word in words(clause)] for clause in _CLAUSE.split(fold(text))]


MAX_KEYWORDS = 2
"""§5.1: "the strategic selection of one to two keywords to seed news searches"."""
MAX_KEYWORD_WORDS = 2
"""A keyword is a word or a two-word phrase (``--keywords``' own help): the paper's seeds are
keywords, not sentences. A longer one was accepted and searched for as a phrase, and made
every document's terms runs of that many words (issue 41)."""


def checked_keywords(keywords: Sequence[str]) -> list[str]:
    """The keywords given (blank ones dropped), refused on one line where they are none, more
    than ``MAX_KEYWORDS``, or one has more than ``MAX_KEYWORD_WORDS`` words."""
    given = [k.strip() for k in keywords if k.strip()]
    if not given:
        raise InputError("--keywords", "give at least one keyword", field="keywords")
    if len(given) > MAX_KEYWORDS:
        raise InputError(
            "--keywords",
            f"{len(given)} keywords: a search is seeded by one or two (§5.1)",
        )
    for keyword in given:
        count = len(keyword_term(keyword).split())
        if count > MAX_KEYWORD_WORDS:
            raise InputError(
                "--keywords",
                f"{keyword!r} has {count} words: a keyword is a word or a two-word phrase",
            )
    return given


def keyword_term(keyword: str) -> str:
    """A keyword as one term: its stems in order ("River defences" → "river defenc")."""
    return " ".join(word for clause in analyse(keyword) for word in clause)


def _terms(text: str, longest: int) -> list[str]:
    """Every run of 1..``longest`` consecutive stems within a clause of ``text``."""
    return [
        " ".join(clause[start : start + size])
        for clause in analyse(text)
        for size in range(1, longest + 1)
        for start in range(len(clause) - size + 1)
    ]


def search(
    items: Sequence[NewsItem],
    keywords: Sequence[str],
    filters: Filters | None = None,
    top: int = 10,
) -> list[Hit]:
    """The ``top`` items that best match ``keywords`` (see the module docstring).

    TF-IDF as scikit-learn's ``TfidfVectorizer(sublinear_tf=True)`` computes it (tf 1 + ln
    count, idf ln((1 + n) / (1 + df)) + 1, each item's vector of unit length), in two reads
    of the items and no matrix: the first counts each term's documents, the second scores
    the items holding a keyword. The matrix of every item's terms took several times the
    corpus' own size (issue 32); this holds one item's terms at a time and the counts."""
    words = checked_keywords(keywords)
    kept = [item for item in items if (filters or Filters()).keeps(item)]
    phrases = list(dict.fromkeys(term for term in map(keyword_term, words) if term))
    if not kept or not phrases:
        return []
    longest = max(len(phrase.split()) for phrase in phrases)

    def terms(item: NewsItem) -> list[str]:
        return _terms(f"{item.title}\n{item.text}", longest)

    documents: Counter[str] = Counter()
    holding: list[int] = []  # the items holding some keyword: only they are scored
    for index, item in enumerate(kept):
        found = set(terms(item))
        documents.update(found)
        if not found.isdisjoint(phrases):
            holding.append(index)

    def idf(term: str) -> float:
        return math.log((1 + len(kept)) / (1 + documents[term])) + 1

    # The keywords as a document of their own: each phrase once (sublinear tf 1), at its idf.
    query = {phrase: idf(phrase) for phrase in phrases if phrase in documents}
    length = math.sqrt(sum(weight * weight for weight in query.values()))
    scores: dict[int, float] = {}
    for index in holding:
        counts = Counter(terms(kept[index]))
        norm = math.sqrt(sum(((1 + math.log(n)) * idf(term)) ** 2 for term, n in counts.items()))
        dot = sum((1 + math.log(counts[p])) * w * w for p, w in query.items() if p in counts)
        scores[index] = dot / (norm * length)
    order = sorted(
        (index for index, score in scores.items() if score > 0),
        key=lambda index: (-scores[index], index),
    )
    return [
        Hit(item=kept[index], rank=rank, score=round(float(scores[index]), 6), keywords=words)
        for rank, index in enumerate(order[:top], start=1)
    ]
