"""HSII's headline as a study plan sizes it and a sequential study looks at it: the score
ι = r1(1 + αβ·r2(r3 + γ·r4)) on 0–3, a function of four nested stage rates.

The plan sizes it by the delta method, cases clustered in their dialogues
([`normlab.stats.staged_variance`][normlab.stats.staged_variance]), at r1–r4
([`HsiiAssumed`][normlab.hsii.power.HsiiAssumed]: a pilot's, or the paper's GPT-4 row). A
sequential study's unit is a dialogue with all its cases: ι is linear in each case's stage
products (``normlab.hsii.rules.case_weights``), so the dialogue's sum over ι_max over its
cases is a pooled ratio, its cases bounded by the largest dialogue of the bank.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean
from typing import TYPE_CHECKING, Self

import numpy as np

from normlab import stats
from normlab.hsii.analysis import HsiiAnalysis, HsiiRun, stages_of
from normlab.hsii.meta import SampleMeta
from normlab.hsii.rules import case_weights, hsii_score
from normlab.runs.statistics import HeadlineStats, Measured, Simulated
from normlab.stats.planning import Assumed, Design

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample

HSII_STAGES = (0.701, 0.732, 0.67, 0.69)
"""HSII Table 1, GPT4's r1–r4 (ι = 1.399): the default where no pilot measured a subject."""


class HsiiAssumed(Assumed):
    """HSII's rates: r1–r4 (its score is no rate); None: the paper's GPT-4 row."""

    stages: tuple[float, float, float, float] | None = None

    @property
    def own_stages(self) -> tuple[float, float, float, float]:
        """r1–r4, the paper's row where none was measured (a simulation without them draws
        every stage at the rate, where one is given)."""
        if self.stages is not None:
            return self.stages
        return HSII_STAGES if self.rate is None else (self.rate,) * 4

    def describe(self) -> str:
        if self.stages is None:
            return super().describe()
        return "r1–r4 " + ", ".join(f"{rate:.3f}" for rate in self.stages)

    def mean(self, others: Sequence[Assumed], rate: float, source: str) -> Self:
        found = super().mean(others, rate, source)
        stages = [s for s in (self.of(other).stages for other in others) if s is not None]
        if not stages:
            return found
        means = [fmean(s[index] for s in stages) for index in range(4)]
        return found.model_copy(update={"stages": (means[0], means[1], means[2], means[3])})


def hsii_gradient(stages: Sequence[float]) -> list[float]:
    """∂ι/∂rₖ of HSII's score (Table 1's form, α = β = γ = 1) at ``stages``, by central
    differences: ι is linear in each rate, so they are exact up to rounding."""
    step, slopes = 1e-4, []
    for index in range(4):
        up, down = list(stages), list(stages)
        up[index] += step
        down[index] -= step
        slopes.append((hsii_score(*up) - hsii_score(*down)) / (2 * step))
    return slopes


@dataclass(frozen=True)
class StagedScore:
    """HSII's score of r1–r4, the delta method over cases clustered in dialogues."""

    unit: str = "case"
    method: str = "delta method over r1–r4"
    assumed: type[Assumed] = HsiiAssumed
    parents: tuple[int | None, ...] = (None, 0, 1, 1)
    """r2 is over parsed replies, r3 and r4 over right targets (Definition 1)."""

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        return float(design.sampled_n), stats.effective_cluster_size(design.sizes)

    def _stages(self, assumed: Assumed) -> tuple[float, float, float, float]:
        return HsiiAssumed.of(assumed).stages or HSII_STAGES

    def value(self, assumed: Assumed) -> float:
        return float(hsii_score(*self._stages(assumed)))

    def variance(self, assumed: Assumed, cluster_size: float, icc: float) -> float:
        stages = self._stages(assumed)
        return stats.staged_variance(stages, self.parents, hsii_gradient(stages), icc, cluster_size)

    def halfwidth(self, assumed: Assumed, n: float, variance: float, deff: float) -> float | None:
        return stats.delta_halfwidth(variance, n) if n > 0 else None

    def n_for(self, target: float, assumed: Assumed, variance: float, deff: float) -> int:
        return stats.n_for_delta_halfwidth(target, variance)

    def mde(
        self, assumed: Assumed, n: float, variance: float, deff: float, correlation: float
    ) -> tuple[float | None, float | None]:
        return (stats.normal_mde(variance, n, correlation) if n > 0 else None), None

    def source(self, assumed: Assumed) -> str:
        if HsiiAssumed.of(assumed).stages is not None:
            return assumed.source
        return "assumed: HSII Table 1, GPT4's r1–r4 (.701, .732, .67, .69)"

    def per_sampled_units(self, n: float, design: Design) -> float | None:
        return None


class HsiiStats(HeadlineStats[HsiiRun, HsiiAnalysis]):
    """A dialogue with all its cases (the report's interval resamples dialogues); each case
    its value under the cell's own weights and form over ι_max."""

    look = "dialogue"
    assumed = HsiiAssumed
    proportion = False
    """ι runs to ι_max (3 in Table 1's form)."""

    def unit_of(self, sample: Sample) -> str:
        return sample.metadata_as(SampleMeta).case.cluster

    def bound(self, sample: Sample, task: object) -> float:
        """A case adds 1 to its dialogue's denominator."""
        return 1.0

    def size(self, samples: int) -> float:
        return float(samples)

    def values(self, run: HsiiRun, analysis: HsiiAnalysis) -> Measured:
        """Per dialogue, Σ over its cases of the case's value over ι_max, and its cases."""
        result = next(iter(analysis.models.values()), None)  # a cell has one subject
        if result is None:
            return Measured({})
        weights = case_weights(
            alpha=result.alpha, beta=result.beta, gamma=result.gamma, formula=result.formula
        )
        top = sum(weights)
        sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
        for record in run.records:
            s1, s2, s3, s4 = (0.0 if np.isnan(v) else float(v) for v in stages_of(record).values())
            products = (s1, s1 * s2, s1 * s2 * s3, s1 * s2 * s4)
            entry = sums[record.cluster]
            entry[0] += sum(w * p for w, p in zip(weights, products, strict=True)) / top
            entry[1] += 1.0
        return Measured({unit: (a, b) for unit, (a, b) in sums.items()}, scale=top)

    def simulate(
        self,
        rng: np.random.Generator,
        sizes: list[float],
        assumed: Assumed,
        bound: float,
        studies: int,
    ) -> Simulated:
        """Each case of a dialogue passes r1, then r2, then r3 and r4 (each with its rate),
        valued in Table 1's form over its ι_max."""
        r1, r2, r3, r4 = HsiiAssumed.of(assumed).own_stages
        weights = case_weights()
        most = int(max(sizes))
        mask = np.arange(most) < np.asarray(sizes)[:, None]  # units × cases
        draws = rng.random((4, studies, len(sizes), most))
        s1 = draws[0] < r1
        s2 = s1 & (draws[1] < r2)
        products = (s1, s2, s2 & (draws[2] < r3), s2 & (draws[3] < r4))
        value = sum(w * p.astype(float) for w, p in zip(weights, products, strict=True))
        top = sum(weights)
        total = (value * mask).sum(axis=2) / top
        size = np.broadcast_to(np.asarray(sizes, dtype=np.float64), total.shape)
        return Simulated(total.astype(float), size.copy(), bound, scale=top)

    def true_value(self, assumed: Assumed) -> float:
        return hsii_score(*HsiiAssumed.of(assumed).own_stages)
