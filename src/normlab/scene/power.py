"""SCENE's headline, the repair rate, as a study plan sizes it and a sequential study looks at
it: repaired sanctions over sanctions, pooled, the sanctions the episodes times the sanctions
per episode ([`SceneAssumed`][normlab.scene.power.SceneAssumed]: a pilot's, or SCENE §6's
0.547).

A sequential study's unit is a scenario with all its repetitions (the report's interval
resamples scenarios, and repetitions of one scenario share its difficulty). The repair rate is a
pooled ratio, repaired over sanctions; its sequence is the ratio's, each scenario's sanctions
bounded by its episodes × rounds × cast (every scripted persona's turn a sanction at most). A
simulated scenario of e episodes makes Poisson(e·s) sanctions (at most the unit's bound), each
repaired at the rate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Self

import numpy as np

from normlab.runs.statistics import HeadlineStats, Measured, Simulated
from normlab.scene.analysis import SceneAnalysis, SceneRun
from normlab.scene.defaults import SANCTIONS_PER_EPISODE
from normlab.scene.meta import SampleMeta
from normlab.scene.rules import episode_views
from normlab.stats.planning import Assumed

if TYPE_CHECKING:
    from inspect_ai import Task
    from inspect_ai.dataset import Sample


def sanctions(run: SceneRun, analysis: SceneAnalysis) -> dict[str, tuple[int, int]]:
    """Per scenario: (repaired, sanctions), pooled over its episodes in the headline view."""
    labelled = [r.outcome for r in run.records if r.outcome.labelled]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in episode_views(labelled)[analysis.headline_view]:
        counts[outcome.scenario_id][0] += outcome.repaired
        counts[outcome.scenario_id][1] += outcome.sanctions
    return {scenario: (k, n) for scenario, (k, n) in counts.items()}


class SceneAssumed(Assumed):
    """The repair rate, and how many sanctions an episode brings (its denominator); None: a
    pilot measured none, SCENE §6's 0.547 holds."""

    sanctions_per_episode: float | None = None

    @property
    def per_episode(self) -> float:
        return (
            SANCTIONS_PER_EPISODE
            if self.sanctions_per_episode is None
            else self.sanctions_per_episode
        )

    def per_sampled(self) -> float | None:
        return self.sanctions_per_episode

    def describe(self) -> str:
        words = [super().describe()]
        if self.sanctions_per_episode is not None:
            words.append(f"{self.sanctions_per_episode:.2f} sanctions per episode")
        return "; ".join(word for word in words if word)

    def mean(self, others: Sequence[Assumed], rate: float, source: str) -> Self:
        found = super().mean(others, rate, source)
        known = [
            s for s in (self.of(other).sanctions_per_episode for other in others) if s is not None
        ]
        if not known:
            return found
        return found.model_copy(update={"sanctions_per_episode": sum(known) / len(known)})


class SceneStats(HeadlineStats[SceneRun, SceneAnalysis]):
    """A scenario with all its repetitions; its repaired and its sanctions."""

    look = "scenario"
    assumed = SceneAssumed

    def unit_of(self, sample: Sample) -> str:
        return sample.metadata_as(SampleMeta).scenario.scenario_id

    def bound(self, sample: Sample, task: Task) -> float:
        """An episode's sanctions are scripted personas' turns: at most its cast in every
        round."""
        assert task.metadata is not None
        cast = len(sample.metadata_as(SampleMeta).scenario.scaffold.channel.cast)
        return float(cast * int(task.metadata["max_turns"]))

    def size(self, samples: int) -> float:
        """A scenario's episodes."""
        return float(samples)

    def values(self, run: SceneRun, analysis: SceneAnalysis) -> Measured:
        return Measured(
            {unit: (float(k), float(n)) for unit, (k, n) in sanctions(run, analysis).items()}
        )

    def simulate(
        self,
        rng: np.random.Generator,
        sizes: list[float],
        assumed: Assumed,
        bound: float,
        studies: int,
    ) -> Simulated:
        own = SceneAssumed.of(assumed)
        size = np.broadcast_to(np.asarray(sizes, dtype=np.float64), (studies, len(sizes)))
        sanctions = np.minimum(rng.poisson(size * own.per_episode), bound).astype(float)
        rate = self.true_value(own)
        repaired = rng.binomial(sanctions.astype(np.int64), rate).astype(float)
        return Simulated(repaired, sanctions, bound)

    def true_value(self, assumed: Assumed) -> float:
        return 0.5 if assumed.rate is None else assumed.rate
