"""Each system's headline statistics (``normlab.runs.statistics``): a read cell's units pool to
its headline, a simulation at known rates has the headline its ``true_value`` says, and a
system whose cells run whole has none."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from normlab.runs.statistics import HeadlineStats, Measured, shares
from normlab.specs import parts, spec, specs

LEGACY = Path(__file__).parents[1] / "fixtures" / "legacy"
LOGS = {"losona": "losona_v1.eval", "scene": "scene_v1.eval", "hsii": "hsii_v1.eval"}


def _pooled(found: Measured) -> float:
    a = sum(value[0] for value in found.values.values())
    b = sum(value[1] for value in found.values.values())
    return a / b * found.scale


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_read_cells_units_pool_to_its_headline(name: str) -> None:
    # The sequence is the pooled ratio's: Σa/Σb × scale must be the very number the study
    # ranks subjects by, whatever the system (HSII's score, in its own form and weights,
    # SCENE's repaired over sanctions, LoSoNA's scenarios' majority labels).
    system = parts(spec(name))
    run = system.load([LEGACY / LOGS[name]])
    analysis = system.analyze_cell(run)
    headline = system.headline_of(run, analysis)
    found = system.measured_of(run, analysis)
    assert headline is not None and headline.estimate.value is not None and found is not None
    assert found.values and all(0 <= a <= b for a, b in found.values.values())
    assert _pooled(found) == pytest.approx(headline.estimate.value)


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_simulation_has_the_headline_its_true_value_says(name: str) -> None:
    statistics = parts(spec(name)).statistics
    assert statistics is not None
    assumed = statistics.assumed(rate=0.7)
    rng = np.random.default_rng(3)
    found = statistics.simulate(rng, [4.0] * 60, assumed, 40.0, 200)
    assert found.a.shape == found.b.shape == (200, 60)
    assert (found.a <= found.b).all() and (found.b <= found.bound).all()
    pooled = found.a.sum(axis=1) / found.b.sum(axis=1) * found.scale
    truth = statistics.true_value(assumed)
    assert float(pooled.mean()) == pytest.approx(truth, rel=0.03)
    # A proportion's scale is 1; a score's (HSII's ι_max) is its top.
    assert (found.scale == 1.0) == statistics.proportion


def test_only_a_system_whose_cells_run_whole_has_no_statistics() -> None:
    whole = [s.name for s in specs() if parts(s).statistics is None]
    assert whole == ["crsec"]
    assert all(isinstance(parts(s).statistics, HeadlineStats) for s in specs() if s.task)


def test_a_share_is_one_binary_value_per_unit() -> None:
    found = shares(np.random.default_rng(0), [3.0, 5.0], 0.25, 4000)
    assert set(np.unique(found.a)) <= {0.0, 1.0} and (found.b == 1.0).all()
    assert found.bound == 1.0 and float(found.a.mean()) == pytest.approx(0.25, abs=0.02)
