"""The plan's power, per system, on the scale of the system's own headline estimator.

Each system's headline is a different estimator over differently sampled units, so each gets
its own variance (``normlab.stats``; the estimators are ``normlab.stats.planning``'s and
HSII's ``normlab.hsii.power``, each named by its system's spec):

* LoSoNA, accuracy-at-K: a share of scenarios, each its own unit: the Wilson half-width over
  the scenarios; two subjects on the same scenarios are paired binary units (Connor 1987, at
  a stated discordance).
* SCENE, repair rate: repaired sanctions over sanctions, pooled; sanctions come in scenarios
  (every repetition of a scenario, as the report's interval resamples them). The sanctions are
  the episodes times the sanctions per episode (assumed, or a pilot's), a scenario's count taken
  as Poisson; the Wilson half-width at n / deff, deff = 1 + (m̃ − 1)ρ (Kish).
* HSII, the score ι = r1(1 + αβ·r2(r3 + γ·r4)) on 0–3: a function of four nested stage rates,
  by the delta method, cases clustered in their dialogues
  ([`normlab.stats.staged_variance`][normlab.stats.staged_variance]).
* CRSEC, the final adhering share: a mean over runs (the unit), each run's share over its
  agent × target-norm pairs, which correlate ρ within the run; Student's t over the runs, and
  none for one run.

The intra-cluster correlation ρ (``--icc``) and the correlation between two subjects on a
shared unit (``--pair-correlation``, from which LoSoNA's discordance ψ = 2p(1−p)(1 − r)) are
stated, never measured silently; the rates are assumed (``--assumed-rate``, HSII's four stage
rates at the paper's GPT-4 row) or read from a pilot (``normlab.study.pilot``).

[`precision`][normlab.study.power.precision] reads any estimator's half-width, paired MDE and
the n for a target at a cell's design and rates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from normlab import stats
from normlab.stats.planning import Assumed, Design, Estimator

ICC = 0.05
"""The intra-cluster correlation assumed when none is given: small but not nil, since cases cut
from one dialogue share its history and one scenario's sanctions its difficulty."""


@dataclass(frozen=True)
class Sizing:
    """What a plan reads every cell's precision at (``study plan``'s ``--target-halfwidth``,
    ``--icc`` and ``--pair-correlation``): the half-width to reach, the units' intra-cluster
    correlation ρ, and two subjects' correlation r on a shared unit."""

    target: float
    icc: float = ICC
    correlation: float = 0.0


@dataclass(frozen=True)
class Precision:
    """A cell's precision at its planned size, in its headline's unit."""

    unit: str
    n: float
    """Units (SCENE's sanctions are expected, so not whole)."""
    clusters: int
    cluster_size: float
    """Kish's m̃ of the units' clusters."""
    design_effect: float
    value: float
    """The headline at the assumed rates."""
    variance: float
    """Per unit, the design effect included."""
    halfwidth: float | None
    paired_mde: float | None
    discordance: float | None
    """Connor's ψ, where paired units are binary (LoSoNA)."""
    n_for_target: int
    """Units whose half-width reaches the target (clusters of the same size)."""
    sampled_for_target: int
    """The same in the study's sampled unit (episodes for SCENE's sanctions)."""
    method: str


def precision(
    estimator: Estimator,
    design: Design,
    assumed: Assumed,
    sizing: Sizing,
) -> Precision:
    """A cell's half-width, paired MDE and the n for the sizing's target, at its design and
    rates."""
    n, size = estimator.units(design, assumed)
    variance = estimator.variance(assumed, size, sizing.icc)
    independent = estimator.variance(assumed, size, 0.0)
    # The design effect as the variance says it (HSII's stages are clustered unequally).
    deff = variance / independent if independent > 0 else stats.design_effect(size, sizing.icc)
    mde, psi = estimator.mde(assumed, n, variance, deff, sizing.correlation)
    needed = estimator.n_for(sizing.target, assumed, variance, deff)
    per_sampled = n / design.sampled_n if design.sampled_n and n else 1.0
    return Precision(
        unit=estimator.unit,
        n=n,
        clusters=len(design.sizes),
        cluster_size=size,
        design_effect=deff,
        value=estimator.value(assumed),
        variance=variance,
        halfwidth=estimator.halfwidth(assumed, n, variance, deff),
        paired_mde=mde,
        discordance=psi,
        n_for_target=needed,
        sampled_for_target=math.ceil(needed / per_sampled - 1e-9) if per_sampled else needed,
        method=estimator.method,
    )
