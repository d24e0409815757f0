"""SCENE scenarios by URL: read through fsspec, the bytes' hash in the task's metadata."""

from __future__ import annotations

from normlab.scene.task import scene
from tests.helpers.inputs import assert_data_recorded, in_memory
from tests.scene.conftest import SCENARIOS


def test_a_memory_url_is_read_and_its_hash_recorded() -> None:
    with in_memory(SCENARIOS, "normlab-scene/scenarios.jsonl") as (url, data):
        task = scene(scenarios=url, reps=1)
    assert len(task.dataset) == len(scene(scenarios=str(SCENARIOS), reps=1).dataset)
    assert_data_recorded(task.metadata, url, data)
