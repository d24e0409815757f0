"""A headline's statistics as a sequential study needs them, each system's own object: how
its task's samples group into the units a sequential look counts, the most a unit can weigh
in the headline's pooled ratio, a read cell's units as (numerator, denominator) pairs, a
simulated study of such units at assumed rates, and the headline those rates give.

The shared layers (``normlab.study.sequential``) hold only what is the same for every system:
a headline that is a pooled ratio over units, Σa/Σb on its own scale, with 0 ≤ a ≤ b ≤ the
bound; its confidence sequence is the ratio's
([`confidence_sequence`][normlab.stats.confidence_sequence]). What the units are, how they are
drawn and what the rates mean is the system's, declared in its package: a new system subclasses
[`HeadlineStats`][normlab.runs.statistics.HeadlineStats] and nothing here or above changes.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel

from normlab.stats.planning import Assumed

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

Floats = NDArray[np.float64]
RunIn = TypeVar("RunIn", contravariant=True)
AnalysisIn = TypeVar("AnalysisIn", bound=BaseModel, contravariant=True)


@dataclass(frozen=True)
class Measured:
    """Per unit id, (A, B) with 0 ≤ A ≤ B: the numerator and denominator of the headline's
    pooled ratio over units; ``scale`` the headline's top (the ratio times it is the
    headline)."""

    values: dict[str, tuple[float, float]]
    scale: float = 1.0


@dataclass(frozen=True)
class Simulated:
    """Studies × units of numerators and denominators, the denominators' bound, the scale."""

    a: Floats
    b: Floats
    bound: float
    scale: float = 1.0


class HeadlineStats(ABC, Generic[RunIn, AnalysisIn]):
    """A system's headline as a pooled ratio over units (see the module docstring); typed by
    what its loader reads and its analysis makes, so that a read cell's units are the
    system's own function of its own types."""

    look: str
    """What one unit of a sequential look is, in words (``scenario``, ``dialogue``): what the
    headline's interval treats as independent, which may differ from the unit its n counts."""
    assumed: type[Assumed] = Assumed
    """What the rates a simulation draws at are (the system's estimator's)."""
    proportion: bool = True
    """Whether the headline lies on [0, 1] (so that a half-width above ½ means nothing)."""

    @abstractmethod
    def unit_of(self, sample: Sample) -> str:
        """The unit a sample of the system's task belongs to."""

    def bound(self, sample: Sample, task: Task) -> float:
        """What a sample adds to the most its unit's denominator can be; 0 everywhere where a
        unit is one value on [0, 1] (its bound then 1)."""
        return 0.0

    def size(self, samples: int) -> float:
        """A unit of ``samples`` samples, as ``simulate`` sizes it (by default one value,
        whatever its samples)."""
        return 1.0

    @abstractmethod
    def values(self, run: RunIn, analysis: AnalysisIn) -> Measured:
        """A read cell's units as the headline pools them."""

    @abstractmethod
    def simulate(
        self,
        rng: np.random.Generator,
        sizes: list[float],
        assumed: Assumed,
        bound: float,
        studies: int,
    ) -> Simulated:
        """``studies`` studies of independent units of ``sizes`` in the order given, drawn at
        ``assumed`` (read as ``assumed``'s type with ``self.assumed.of``)."""

    @abstractmethod
    def true_value(self, assumed: Assumed) -> float:
        """The headline the simulation draws at ``assumed`` has."""


def shares(rng: np.random.Generator, sizes: list[float], rate: float, studies: int) -> Simulated:
    """Units each one 0/1 value, 1 with probability ``rate``: a share's simulation, for a
    system whose unit is one binary value."""
    shape = (studies, len(sizes))
    return Simulated((rng.random(shape) < rate).astype(float), np.ones(shape), 1.0)
