"""The papers' own numbers, to print beside a study's: "how does my number compare with the
paper's?" is the question users ask most (issue 23).

The rows live in ``data/paper_numbers.json``, each with its source (paper, table or passage,
section), taken verbatim from the papers' texts or the project's reading notes; a row whose
text prints no n or interval carries ``null`` rather than a guess. The file also holds what
the papers print beyond a study's headline (paired differences, per-stage rates, costs), each
checked against the paper's text, and where the papers contradict themselves
(``contradictions``, with the arithmetic).

A row is set beside a subject's number only when it is the same quantity of the same model:
the metric, and each of the row's ``quantity`` settings (LoSoNA's K, SCENE's view, HSII's ε
and score form) equal to the headline's, and the model the cell's logs name is the paper's
model: by the file's alias map (API ids → the paper's name) or, failing that, by the names
compared without case, provider prefix or punctuation. A row of the same metric and model but
another quantity is named in a note instead (the paper's accuracy-at-3 is not beside an
accuracy-at-2). A subject wrapped by an agent is not the model the paper measured, so it
matches nothing. Even a matched row comes from the paper's own scenarios, judges and setup
(``setups``), which the report says beside it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources

from pydantic import BaseModel

from normlab.stats import Interval


class Source(BaseModel):
    paper: str
    where: str
    section: str


class PaperRow(BaseModel):
    system: str
    model: str
    """The model as the paper names it."""
    metric: str
    """The study's headline metric this row reports (``systems.Headline.metric``)."""
    value: float
    ci: Interval | None
    n: int | None
    unit: str
    source: Source
    note: str
    quantity: dict[str, str | int] = {}
    """Settings that make the number this quantity (LoSoNA's K, SCENE's view, HSII's ε and
    score form): a headline matches only with the same values."""
    k: int | None = None
    """Successes of ``n`` where the paper prints them (recovered 18 of 24)."""


class Contradiction(BaseModel):
    """Where a paper's own numbers disagree, with the arithmetic that shows it."""

    paper: str
    where: str
    text: str


class PaperNumbers(BaseModel):
    about: str
    papers: dict[str, str]
    """Each paper by its short name: its title and where it is published."""
    setups: dict[str, str]
    """Per system: what the paper's numbers were measured on (scenarios, judges, setup)."""
    aliases: dict[str, list[str]]
    rows: list[PaperRow]
    printed: list[PaperRow] = []
    """What else the papers print (not a study's headline): checked against the texts."""
    contradictions: list[Contradiction] = []


@cache
def paper_numbers() -> PaperNumbers:
    text = resources.files("normlab.study").joinpath("data/paper_numbers.json").read_text("utf-8")
    return PaperNumbers.model_validate(json.loads(text))


def _plain(name: str) -> str:
    """``openai/gpt-4`` and ``GPT4`` alike: no provider prefix, case or punctuation."""
    return re.sub(r"[^a-z0-9]", "", name.rsplit("/", 1)[-1].lower())


def paper_name(model: str) -> str | None:
    """The paper's name for ``model`` (an Inspect model id), or None when no paper used it."""
    numbers = paper_numbers()
    for name, ids in numbers.aliases.items():
        if model in ids or model.lower() in (i.lower() for i in ids):
            return name
    names = {row.model for row in numbers.rows}
    return next((name for name in sorted(names) if _plain(name) == _plain(model)), None)


def paper_rows(
    system: str,
    metric: str,
    model: str,
    agent: str = "base",
    quantity: Mapping[str, str | int] | None = None,
) -> tuple[list[PaperRow], list[str]]:
    """The papers' rows for this system's headline ``metric``, of this quantity, for this
    subject's model; and a note for each row of the metric and model left out because it is
    another quantity (its settings against ours)."""
    name = paper_name(model) if agent == "base" else None
    if name is None:
        return [], []
    ours = quantity or {}
    matched, other = [], []
    for row in paper_numbers().rows:
        if row.system != system or row.metric != metric or row.model != name:
            continue
        differing = {key: value for key, value in row.quantity.items() if ours.get(key) != value}
        if not differing:
            matched.append(row)
            continue
        theirs = ", ".join(f"{key} = {value}" for key, value in differing.items())
        mine = ", ".join(f"{key} = {ours.get(key, 'not set')}" for key in differing)
        other.append(
            f"{row.source.paper}'s {row.metric} of {row.model} ({row.value:.3f}, "
            f"{row.source.section}) is not shown: the paper's {theirs}, this study's {mine}."
        )
    return matched, other


def setup_note(system: str) -> str | None:
    """What the paper's numbers for ``system`` were measured on (for the report)."""
    return paper_numbers().setups.get(system)
