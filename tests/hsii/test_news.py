"""A news corpus read and searched in memory linear in its size (issue 32, item 4): a 200 MB
JSONL took 2.8 GB, its bytes, text and lines held at once, then a matrix of every item's terms.
Checked structurally (what is read before the first row, what an item holds), and the search,
computed now without scikit-learn's matrix, against scikit-learn's own TF-IDF."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.feature_extraction.text import TfidfVectorizer

from normlab.core import sources
from normlab.core.errors import InputError
from normlab.hsii.bank import news
from normlab.hsii.bank.news import NewsItem, _terms, keyword_term, read_corpus, search
from tests.helpers.reads import count_reads


def test_a_corpus_is_read_a_line_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "news.jsonl"
    text = "Flood waters rose. " * 50
    path.write_text("".join(f'{{"id": "n{i}", "text": "{text}"}}\n' for i in range(5_000)))
    opened = count_reads(monkeypatch, sources)
    rows = news._rows(str(path))
    assert next(rows)[1]["id"] == "n0"
    assert opened[0].consumed < 2_000 and path.stat().st_size > 4_000_000
    assert len(read_corpus(str(path))) == 5_000


def test_an_item_holds_its_fields_and_nothing_more() -> None:
    """A model kept a dictionary and a set per item, more than a short item's text."""
    item = NewsItem(id="n1", text="Floods.", title="Valley")
    assert not hasattr(item, "__dict__")
    assert (item.id, item.title, item.text, item.date) == ("n1", "Valley", "Floods.", None)


WORDS = ["flood", "floods", "river", "farm", "council", "the", "rain", "defences", "bank"]


def sklearn_scores(items: list[NewsItem], keywords: list[str]) -> dict[str, float]:
    """The scores as scikit-learn's matrix gave them (the code before issue 32)."""
    phrases = list(dict.fromkeys(t for t in map(keyword_term, keywords) if t))
    longest = max(len(p.split()) for p in phrases)
    vectorizer = TfidfVectorizer(analyzer=lambda text: _terms(text, longest), sublinear_tf=True)
    try:
        matrix = vectorizer.fit_transform([f"{item.title}\n{item.text}" for item in items])
    except ValueError:  # no words at all
        return {}
    columns = [vectorizer.vocabulary_[p] for p in phrases if p in vectorizer.vocabulary_]
    if not columns:
        return {}
    weights = np.asarray(vectorizer.idf_)[columns]
    scores = np.asarray(matrix[:, columns] @ (weights / np.linalg.norm(weights))).ravel()
    return {items[i].id: round(float(s), 6) for i, s in enumerate(scores) if s > 0}


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*WORDS, ".", ","]), min_size=1, max_size=12),
        min_size=1,
        max_size=8,
    ),
    st.lists(
        st.lists(st.sampled_from(WORDS), min_size=1, max_size=2).map(" ".join),
        min_size=1,
        max_size=2,
    ),
)
def test_the_search_scores_as_scikit_learns_tf_idf(
    texts: list[list[str]], keywords: list[str]
) -> None:
    items = [NewsItem(id=f"d{i}", text=" ".join(words)) for i, words in enumerate(texts)]
    hits = search(items, keywords, top=len(items))
    assert {hit.item.id: hit.score for hit in hits} == pytest.approx(
        sklearn_scores(items, keywords), abs=1e-6
    )


def test_an_article_longer_than_the_csv_modules_limit_is_read(tmp_path: Path) -> None:
    """Issue 32: a news CSV cell over 131,072 characters (a long article) made the corpus
    unreadable; a text cell may now hold 16 Mi characters, the file's size limit bounding the
    rest. A CSV of answers keeps the csv module's limit (tests/test_bad_inputs.py)."""
    article = "Flood defences held. " * 10_000  # 210,000 characters
    path = tmp_path / "news.csv"
    path.write_text(f'id,title,text\nn1,Floods,"{article}"\nn2,Budget,Council met.\n')
    items = read_corpus(str(path))
    assert [len(item.text) for item in items] == [len(article.strip()), len("Council met.")]
    assert [hit.item.id for hit in search(items, ["flood"])] == ["n1"]


# --- issue 41, item 19: what a keyword is ---------------------------------------------------


@pytest.mark.parametrize(
    ("command", "keywords", "said"),
    [
        ("search", ["river flood defences"], "'river flood defences' has 3 words"),
        ("search", ["flood", "river", "farm"], "3 keywords: a search is seeded by one or two"),
        ("build", ["river flood defences"], "'river flood defences' has 3 words"),
    ],
)
def test_a_keyword_longer_than_a_two_word_phrase_is_refused(
    tmp_path: Path, command: str, keywords: list[str], said: str
) -> None:
    """§5.1 seeds a search with "one to two keywords", and ``--keywords`` is "a keyword or
    two-word phrase": a three-word keyword was searched for as a phrase, exit 0."""
    from typer.testing import CliRunner

    from normlab.cli import app

    given = [part for keyword in keywords for part in ("--keywords", keyword)]
    args = ["hsii", "news", "search", *given] if command == "search" else []
    if command == "build":
        args = ["hsii", "build", *given, "--out", str(tmp_path / "b")]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert line.startswith(f"normlab: error: --keywords: {said}"), line
    assert not (tmp_path / "b").exists()
    with pytest.raises(InputError):
        search([NewsItem(id="d", text="River flood defences held.")], keywords)


def test_a_two_word_phrase_and_two_keywords_are_searched() -> None:
    corpus = [NewsItem(id="d", text="River defences held the flood.")]
    assert [h.item.id for h in search(corpus, ["river defences", "flood"])] == ["d"]
