"""The plan's half-widths against a simulation of the same design (issue 35, item 0.1).

    python -m benchmarks.study_power [--studies 4000] [--out F]

The plan computes each system's precision from its estimator by formula
(:mod:`normlab.study.power`: the delta method over HSII's r1–r4, Wilson at n / deff for SCENE's
repair rate over sanctions in scenarios). Here the same designs are simulated: many studies
drawn from the model the formula assumes, each estimated as the report estimates it, and the
half-width is half the central 95% range of the simulated estimates.

* HSII: the shipped bank's 477 cases in its 64 dialogues; each dialogue draws its own rate for
  each stage from a Beta with mean rₖ and intra-cluster correlation ρ (independently across
  stages); each case is parsed, right, first-won and long-won in turn; the score is Table 1's
  ι = r1(1 + r2(r3 + r4)), a rate with no denominator counting 0 as the analysis counts it.
* SCENE: 28 scenarios × 5 repetitions; a scenario's sanctions are Poisson with mean
  5 × (sanctions per episode), each repaired with the scenario's own rate (Beta, mean p, ICC ρ);
  the repair rate pools repaired sanctions over sanctions.

Reported per design: the plan's half-width, the simulation's, and their ratio (the issue asks
for agreement within 10%).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from importlib import resources

import numpy as np
from numpy.typing import NDArray

from benchmarks import command, emit
from normlab.hsii.power import HSII_STAGES, StagedScore
from normlab.scene import SANCTIONS_PER_EPISODE
from normlab.scene.power import SceneAssumed
from normlab.stats.planning import Assumed, Design, Proportion
from normlab.study.power import Sizing, precision


def hsii_bank_sizes() -> list[int]:
    """Cases per dialogue of the shipped HSII bank."""
    text = resources.files("normlab.hsii").joinpath("data/cases.jsonl").read_text("utf-8")
    dialogues = Counter(json.loads(line)["dialogue_id"] for line in text.splitlines() if line)
    return sorted(dialogues.values())


def _cluster_rates(
    rng: np.random.Generator, mean: float, icc: float, shape: tuple[int, int]
) -> NDArray[np.float64]:
    """Each cluster's rate: Beta(a, b) with mean a/(a+b) = p and ICC 1/(a+b+1) = ρ."""
    if icc == 0:
        return np.full(shape, mean)
    a, b = mean * (1 - icc) / icc, (1 - mean) * (1 - icc) / icc
    return rng.beta(a, b, size=shape)


def _halfwidth(estimates: NDArray[np.float64]) -> float:
    low, high = np.quantile(estimates[~np.isnan(estimates)], [0.025, 0.975])
    return float(high - low) / 2


def simulate_hsii(
    sizes: list[int],
    stages: tuple[float, ...] = HSII_STAGES,
    icc: float = 0.0,
    studies: int = 4000,
    seed: int = 0,
) -> float:
    """Half the central 95% range of HSII's score over simulated studies of this design."""
    rng = np.random.default_rng(seed)
    cluster = np.repeat(np.arange(len(sizes)), sizes)
    rates = [_cluster_rates(rng, r, icc, (studies, len(sizes)))[:, cluster] for r in stages]
    shape = (studies, cluster.size)
    parsed = rng.random(shape) < rates[0]
    right = parsed & (rng.random(shape) < rates[1])
    first = right & (rng.random(shape) < rates[2])
    long = right & (rng.random(shape) < rates[3])
    with np.errstate(divide="ignore", invalid="ignore"):
        r1 = parsed.mean(axis=1)
        r2 = np.nan_to_num(right.sum(axis=1) / parsed.sum(axis=1))
        r3 = np.nan_to_num(first.sum(axis=1) / right.sum(axis=1))
        r4 = np.nan_to_num(long.sum(axis=1) / right.sum(axis=1))
    return _halfwidth(r1 * (1 + r2 * (r3 + r4)))


@dataclass(frozen=True)
class SceneDesign:
    """A SCENE study as the plan sizes it and the simulation draws it: ``scenarios`` ×
    ``reps`` episodes, the repair rate, sanctions per episode, and the ICC of the scenarios'
    own repair rates."""

    rate: float
    per_episode: float
    icc: float = 0.0
    scenarios: int = 28
    reps: int = 5

    def __str__(self) -> str:
        return (
            f"{self.scenarios} scenarios × {self.reps}, repair {self.rate}, "
            f"{self.per_episode} sanctions/episode, icc {self.icc}"
        )


def simulate_scene(scene: SceneDesign, studies: int = 20_000, seed: int = 0) -> float:
    """Half the central 95% range of the pooled repair rate over simulated studies."""
    rng = np.random.default_rng(seed)
    shape = (studies, scene.scenarios)
    sanctions = rng.poisson(scene.per_episode * scene.reps, shape)
    repaired = rng.binomial(sanctions, _cluster_rates(rng, scene.rate, scene.icc, shape))
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = repaired.sum(axis=1) / sanctions.sum(axis=1)
    return _halfwidth(pooled)


def planned_hsii(sizes: list[int], icc: float) -> float:
    design = Design(sampled="case", cluster="dialogue", sizes=sizes)
    width = precision(StagedScore(), design, Assumed(), Sizing(0.05, icc)).halfwidth
    assert width is not None
    return width


def planned_scene(scene: SceneDesign) -> float:
    design = Design(sampled="episode", cluster="scenario", sizes=[scene.reps] * scene.scenarios)
    assumed = SceneAssumed(rate=scene.rate, sanctions_per_episode=scene.per_episode)
    repair = Proportion("sanction", per_sampled=SANCTIONS_PER_EPISODE)
    width = precision(repair, design, assumed, Sizing(0.05, scene.icc))
    assert width.halfwidth is not None
    return width.halfwidth


HSII_DESIGNS = (0.0, 0.05, 0.2)
SCENE_DESIGNS = (
    SceneDesign(0.8, 0.547, 0.0),
    SceneDesign(0.8, 0.547, 0.05),
    SceneDesign(0.6, 0.547, 0.2),
    SceneDesign(0.5, 1.5, 0.05),
)
"""(repair rate, sanctions per episode, ICC) on 28 scenarios × 5 repetitions."""


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--studies", type=int, default=4000)
    args = parser.parse_args()
    sizes = hsii_bank_sizes()
    rows = []

    def row(system: str, design: str, plan: float, simulated: float) -> None:
        ratio = round(plan / simulated, 3)
        rows.append({"system": system, "design": design, "plan": round(plan, 4),
                     "simulated": round(simulated, 4), "ratio": ratio})  # fmt: skip

    for icc in HSII_DESIGNS:
        design = f"{sum(sizes)} cases in {len(sizes)} dialogues, GPT4's r1–r4, icc {icc}"
        simulated = simulate_hsii(sizes, icc=icc, studies=args.studies)
        row("hsii", design, planned_hsii(sizes, icc), simulated)
    for scene in SCENE_DESIGNS:
        simulated = simulate_scene(scene, studies=5 * args.studies)
        row("scene", str(scene), planned_scene(scene), simulated)
    emit({"studies": args.studies, "rows": rows}, args.out)


if __name__ == "__main__":
    main()
