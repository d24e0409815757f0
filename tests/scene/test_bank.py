"""The shipped SCENE scenario bank meets the issue's coverage and validates clean."""

from __future__ import annotations

from collections import Counter

from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
from normlab.scene.lint import scaffold_findings
from normlab.scene.taxonomy import load_dimensions


def test_bank_coverage() -> None:
    scenarios = load_scenarios(SCENARIOS_PATH)
    dimensions = load_dimensions()
    assert len(scenarios) >= 28
    per_norm = Counter(s.tuple.norm for s in scenarios)
    assert set(per_norm) == set(dimensions.norms) and min(per_norm.values()) >= 2
    assert {s.tuple.sanction for s in scenarios} == set(dimensions.sanctions)
    assert {s.tuple.elicitor for s in scenarios} == set(dimensions.elicitors)
    assert {s.tuple.precedent for s in scenarios} == {0, 1}
    assert all(scaffold_findings(s.scaffold) == [] for s in scenarios)
