"""SCENE's ``rename:SEED`` worked by hand (issue 41 item 2): a scenario's own norm is renamed
with its cast.

A scenario exported from a CRSEC society carries its own norm ("Questions from Priya are
answered in one line"); the personas play it, the judge labels breaches by it and the auditor
checks fidelity against it (B.5–B.7), all beside the renamed channel. By hand, under
``rename:1`` with Priya → P: the own norm must read "Questions from P are answered in one line",
its id (the tuple's norm) unchanged.
"""

from __future__ import annotations

from normlab.scene.schemas import SceneScenario, with_own_norms
from normlab.scene.taxonomy import load_dimensions
from normlab.scene.variants import renamed


def test_an_own_norm_naming_a_persona_is_renamed_with_the_cast(
    scenarios: list[SceneScenario],
) -> None:
    scenario = scenarios[0]
    persona = scenario.scaffold.channel.cast[0].name
    dimensions = load_dimensions()
    norm = dimensions.norms[scenario.tuple.norm].model_copy(
        update={"statement": f"Questions from {persona} are answered in one line."}
    )
    row = scenario.model_dump(mode="json")
    row["own_norm"] = norm.model_dump(mode="json")
    own = SceneScenario.model_validate(row)
    changed, renaming = renamed(own, 1, with_own_norms(dimensions, [norm]))
    assert changed.own_norm is not None
    new = renaming.names[persona]
    assert changed.own_norm.statement == f"Questions from {new} are answered in one line."
    assert changed.own_norm.id == norm.id
