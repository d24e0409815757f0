"""HSII's headline as a study plan sizes it: the score ι = r1(1 + αβ·r2(r3 + γ·r4)) on 0–3, a
function of four nested stage rates, by the delta method, cases clustered in their dialogues
([`normlab.stats.staged_variance`][normlab.stats.staged_variance]). The rates are a pilot's, or
the paper's GPT-4 row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from normlab import stats
from normlab.hsii.rules import hsii_score
from normlab.stats.planning import Assumed, Design

HSII_STAGES = (0.701, 0.732, 0.67, 0.69)
"""HSII Table 1, GPT4's r1–r4 (ι = 1.399): the default where no pilot measured a subject."""


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
    parents: tuple[int | None, ...] = (None, 0, 1, 1)
    """r2 is over parsed replies, r3 and r4 over right targets (Definition 1)."""

    def units(self, design: Design, assumed: Assumed) -> tuple[float, float]:
        return float(design.sampled_n), stats.effective_cluster_size(design.sizes)

    def _stages(self, assumed: Assumed) -> tuple[float, float, float, float]:
        return assumed.stages or HSII_STAGES

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
        if assumed.stages is not None:
            return assumed.source
        return "assumed: HSII Table 1, GPT4's r1–r4 (.701, .732, .67, .69)"

    def per_sampled_units(self, n: float, design: Design) -> float | None:
        return None
