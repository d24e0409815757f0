"""SCENE scenario files: loading, validation and the sweep's selection of scenarios.

A scenario file is JSONL of ``scenario_v1`` records (see ``normlab.scene.schemas``).
Loading checks the schema and that each tuple is valid under the applicability
filter; errors name file, line and field. A top-level field a scenario does not have
(a release's ``license`` or ``source``) is kept as its metadata, in the sample's metadata
and the log; one that is a near miss of a known field (``scenaro_id``, ``Tuple``) is an
error (``normlab.core.fields``). Inside the scenario every object keeps its strict
shape: an unknown key there is an error.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path
from typing import Any

from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.sources import Sourced, read_sourced
from normlab.scene.defaults import SAMPLERS
from normlab.scene.schemas import SceneScenario, with_own_norms
from normlab.scene.taxonomy import Dimensions, axis_values, draw, load_dimensions

SCENARIOS_PATH = Path(str(files("normlab.scene") / "data" / "scenarios.jsonl"))
"""The shipped bank: what a run reads when it is given none."""


def load_scenarios(
    path: str | Path = SCENARIOS_PATH, dimensions: Dimensions | None = None
) -> list[SceneScenario]:
    """Every scenario of a JSONL file or folder; ids unique across files."""
    return read_scenarios(path, dimensions).items


def read_scenarios(
    location: str | Path = SCENARIOS_PATH, dimensions: Dimensions | None = None
) -> Sourced[SceneScenario]:
    """[`load_scenarios`][normlab.scene.load_scenarios] of a path or any fsspec URL, with the hash
    of the bytes read."""
    known = dimensions or load_dimensions()

    def parse(row: dict[str, Any], file: str | Path, line: int) -> SceneScenario:
        scenario = validate_known(SceneScenario, row, file, line)
        own = [scenario.own_norm] if scenario.own_norm else []
        if not with_own_norms(known, own).is_valid(scenario.tuple):
            raise InputError(
                file,
                f"tuple {scenario.tuple.slug()} fails the applicability filter",
                line=line,
                field="tuple",
            )
        return scenario

    return read_sourced(location, parse, lambda scenario: scenario.scenario_id, "scenario_id")


def select_for_sweep(
    scenarios: list[SceneScenario], n: int | None, sampler: str = "coverage", seed: int = 0
) -> list[SceneScenario]:
    """``n`` scenarios drawn by ``sampler`` over their tuples (all of them if None or more)."""
    if sampler not in SAMPLERS:
        raise InputError("--sampler", f"choose one of {', '.join(SAMPLERS)}", field="sampler")
    if n is not None and n < 1:
        raise InputError("--tuples", f"must be at least 1, got {n}", field="tuples")
    if n is None or n >= len(scenarios):
        return list(scenarios)
    return draw(scenarios, n, sampler, lambda scenario: axis_values(scenario.tuple), seed)
