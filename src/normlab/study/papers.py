"""The papers' own numbers, to print beside a study's: "how does my number compare with the
paper's?" is the question users ask most (issue 23).

The rows live in ``data/paper_numbers.json``, each with its source (paper, table or passage,
section), taken verbatim from the papers' texts or the project's reading notes; a row whose
text prints no n or interval carries ``null`` rather than a guess. A subject matches a row
when its model is the paper's model: by the file's alias map (API ids → the paper's name) or,
failing that, by the names compared without case, provider prefix or punctuation. A subject
wrapped by an agent is not the model the paper measured, so it matches nothing.
"""

from __future__ import annotations

import json
import re
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


class PaperNumbers(BaseModel):
    aliases: dict[str, list[str]]
    rows: list[PaperRow]


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


def paper_rows(system: str, metric: str, model: str, agent: str = "base") -> list[PaperRow]:
    """The papers' rows for this system's headline ``metric`` and this subject's model."""
    name = paper_name(model) if agent == "base" else None
    if name is None:
        return []
    return [
        row
        for row in paper_numbers().rows
        if row.system == system and row.metric == metric and row.model == name
    ]
