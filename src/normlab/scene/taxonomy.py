"""SCENE's dimensions as data (paper Appendix A): events, norms, elicitors, sanctions, precedent.

A tuple τ = (e, n, l, s, p) is valid iff e ∈ applies_to(n) ∩ applies_to(l) ∩
applies_to(s) (A.7); precedent p ∈ {0, 1} is free. Norms come in 7 opposing
pairs whose poles prescribe incompatible behaviour on the same situation (A.3).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from normlab.core.jsonio import read_json_list
from normlab.scene.defaults import SAMPLERS

DIMENSIONS_DIR = Path(str(files("normlab.scene") / "data" / "dimensions"))
PRECEDENT_VALUES: tuple[Literal[0, 1], ...] = (0, 1)


class SceneEvent(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    setting: str


class SceneNorm(BaseModel):
    """One implicit norm of Appendix A (A.3): what the group enacts and the subject must infer;
    the judge labels demonstrations and breaches by its signals."""

    model_config = ConfigDict(extra="forbid")

    id: str
    """The name a tuple uses (``phatic_reaction_norm``)."""
    pair: int
    """Its opposing pair's number: both poles prescribe incompatible behaviour in one
    situation, so a subject's default style cannot pass both."""
    pole: Literal["a", "b"]
    """Which pole of the pair it is."""
    opposite: str
    """The id of the other pole."""
    statement: str
    """The norm in one sentence (hidden from the subject and never said by a persona)."""
    compliance_signals: list[str] = Field(min_length=1)
    """Observable behaviour that follows the norm."""
    breach_signals: list[str] = Field(min_length=1)
    """Observable behaviour that breaks it."""
    applies_to: list[str] = Field(min_length=1)
    """The events it can apply to: a tuple is valid only where its event is among them."""


class Elicitor(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    description: str
    applies_to: list[str] = Field(min_length=1)


class Sanction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    description: str
    applies_to: list[str] = Field(min_length=1)


class SceneTuple(BaseModel):
    """τ = (event, norm, elicitor, sanction, precedent)."""

    model_config = ConfigDict(frozen=True)

    event: str
    """The event type (A.2): what is happening in the chat."""
    norm: str
    """The hidden norm's id (A.3)."""
    elicitor: str
    """What positions the subject to act where the norm applies (A.4)."""
    sanction: str
    """The one modality the personas sanction a breach with (A.5)."""
    precedent: Literal[0, 1]
    """1: a persona breaches and is sanctioned before the subject's first move (A.6)."""

    def slug(self) -> str:
        return f"{self.event}__{self.norm}__{self.elicitor}__{self.sanction}__p{self.precedent}"


class Dimensions(BaseModel):
    events: dict[str, SceneEvent]
    norms: dict[str, SceneNorm]
    elicitors: dict[str, Elicitor]
    sanctions: dict[str, Sanction]

    def is_valid(self, candidate: SceneTuple) -> bool:
        event = candidate.event
        return (
            event in self.events
            and candidate.norm in self.norms
            and candidate.elicitor in self.elicitors
            and candidate.sanction in self.sanctions
            and event in self.norms[candidate.norm].applies_to
            and event in self.elicitors[candidate.elicitor].applies_to
            and event in self.sanctions[candidate.sanction].applies_to
        )

    def valid_tuples(self) -> Iterator[SceneTuple]:
        """Every valid τ, in the data files' order (event, norm, elicitor, sanction, p)."""
        for event in self.events:
            for norm in self.norms.values():
                if event not in norm.applies_to:
                    continue
                for elicitor in self.elicitors.values():
                    if event not in elicitor.applies_to:
                        continue
                    for sanction in self.sanctions.values():
                        if event not in sanction.applies_to:
                            continue
                        for precedent in PRECEDENT_VALUES:
                            yield SceneTuple(
                                event=event,
                                norm=norm.id,
                                elicitor=elicitor.id,
                                sanction=sanction.id,
                                precedent=precedent,
                            )

    def opposing_pairs(self) -> list[tuple[str, str]]:
        """The 7 (pole a, pole b) norm pairs, by pair number."""
        poles = sorted(self.norms.values(), key=lambda norm: (norm.pair, norm.pole))
        return [(a.id, b.id) for a, b in zip(poles[::2], poles[1::2], strict=True)]


@cache
def load_dimensions(directory: Path = DIMENSIONS_DIR) -> Dimensions:
    """Appendix A as data: events, norms, elicitors and sanctions, each with ``applies_to``
    (the shipped ``data/dimensions/`` unless ``directory`` holds another set)."""

    def path(name: str) -> Path:
        return directory / f"{name}.json"

    events = read_json_list(path("events"), SceneEvent)
    norms = read_json_list(path("norms"), SceneNorm)
    elicitors = read_json_list(path("elicitors"), Elicitor)
    sanctions = read_json_list(path("sanctions"), Sanction)
    return Dimensions(
        events={item.id: item for item in events},
        norms={item.id: item for item in norms},
        elicitors={item.id: item for item in elicitors},
        sanctions={item.id: item for item in sanctions},
    )


ItemT = TypeVar("ItemT")


def coverage_greedy(
    items: Sequence[ItemT], values: Callable[[ItemT], list[tuple[str, str]]], n: int
) -> list[ItemT]:
    """Pick ``n`` items, each time the one whose values are least covered so far.

    Greedy: at every step take the item whose (axis, value) pairs have the
    smallest total count among the items already taken (ties: input order), so
    every value appears as evenly as the items allow. Deterministic.
    """
    if n > len(items):
        raise ValueError(f"asked for {n} items but only {len(items)} are available")
    counts: Counter[tuple[str, str]] = Counter()
    remaining = list(items)
    chosen: list[ItemT] = []
    for _ in range(n):
        best = min(
            range(len(remaining)),
            key=lambda index: sum(counts[value] for value in values(remaining[index])),
        )
        picked = remaining.pop(best)
        chosen.append(picked)
        counts.update(values(picked))
    return chosen


def axis_values(candidate: SceneTuple) -> list[tuple[str, str]]:
    """The five (axis, value) pairs of a tuple, the units coverage is counted in."""
    return [
        ("event", candidate.event),
        ("norm", candidate.norm),
        ("elicitor", candidate.elicitor),
        ("sanction", candidate.sanction),
        ("precedent", str(candidate.precedent)),
    ]


DEFAULT_SEED = 0


def draw(
    items: Sequence[ItemT],
    n: int,
    sampler: str,
    values: Callable[[ItemT], list[tuple[str, str]]],
    seed: int = DEFAULT_SEED,
) -> list[ItemT]:
    """``n`` distinct items: ``uniform`` draws them uniformly at random without replacement
    (§6: 200 tuples from the valid space), ``coverage`` greedily spreads every axis value
    (A.7) as counted by ``values``; both deterministic for a seed."""
    if sampler == "uniform":
        if n > len(items):
            raise ValueError(f"asked for {n} items but only {len(items)} are available")
        return random.Random(seed).sample(list(items), n)
    if sampler == "coverage":
        return coverage_greedy(items, values, n)
    raise ValueError(f"unknown sampler {sampler!r}; choose from {', '.join(SAMPLERS)}")


def sample_tuples(
    dimensions: Dimensions, n: int, sampler: str = "coverage", seed: int = DEFAULT_SEED
) -> list[SceneTuple]:
    """``n`` valid tuples drawn with ``sampler`` from the applicability-filtered space."""
    return draw(list(dimensions.valid_tuples()), n, sampler, axis_values, seed)
