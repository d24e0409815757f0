"""SCENE scenario files: loading, validation and the sweep's selection of scenarios.

A scenario file is JSONL of ``scenario_v1`` records (see :mod:`normlab.scene.schemas`).
Loading checks the schema and that each tuple is valid under the applicability
filter; errors name file, line and field.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.scene.schemas import SceneScenario
from normlab.scene.taxonomy import Dimensions, axis_values, coverage_greedy, load_dimensions

SCENARIOS_PATH = Path(str(files("normlab.scene") / "data" / "scenarios.jsonl"))


def load_scenarios(
    path: Path = SCENARIOS_PATH, dimensions: Dimensions | None = None
) -> list[SceneScenario]:
    dimensions = dimensions or load_dimensions()
    if path.is_dir():
        loaded = [
            s for child in sorted(path.rglob("*.jsonl")) for s in load_scenarios(child, dimensions)
        ]
        if not loaded:
            raise InputError(path, "no scenarios (*.jsonl) found in folder")
        return loaded
    scenarios: list[SceneScenario] = []
    seen: set[str] = set()
    for line, row in read_jsonl_rows(path):
        scenario = validate_row(SceneScenario, row, path, line)
        if not dimensions.is_valid(scenario.tuple):
            raise InputError(
                path,
                f"tuple {scenario.tuple.slug()} fails the applicability filter",
                line=line,
                field="tuple",
            )
        if scenario.scenario_id in seen:
            raise InputError(
                path,
                f"duplicate scenario_id {scenario.scenario_id!r}",
                line=line,
                field="scenario_id",
            )
        seen.add(scenario.scenario_id)
        scenarios.append(scenario)
    if not scenarios:
        raise InputError(path, "file holds no scenarios")
    return scenarios


def select_for_sweep(scenarios: list[SceneScenario], n: int | None) -> list[SceneScenario]:
    """``n`` scenarios chosen coverage-greedily over their tuples' axis values (all if None)."""
    if n is None or n >= len(scenarios):
        return list(scenarios)
    return coverage_greedy(scenarios, lambda scenario: axis_values(scenario.tuple), n)
