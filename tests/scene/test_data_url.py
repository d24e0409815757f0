"""SCENE scenarios by URL: read through fsspec, the bytes' hash in the task's metadata."""

from __future__ import annotations

import hashlib

import fsspec

from normlab.scene.task import scene
from tests.scene.conftest import SCENARIOS


def test_a_memory_url_is_read_and_its_hash_recorded() -> None:
    filesystem = fsspec.filesystem("memory")
    data = SCENARIOS.read_bytes()
    filesystem.pipe_file("/normlab-scene/scenarios.jsonl", data)
    try:
        task = scene(scenarios="memory://normlab-scene/scenarios.jsonl", reps=1)
    finally:
        filesystem.rm("/normlab-scene", recursive=True)
    assert len(task.dataset) == len(scene(scenarios=str(SCENARIOS), reps=1).dataset)
    recorded = (task.metadata or {})["data"]
    assert recorded["location"] == "memory://normlab-scene/scenarios.jsonl"
    assert recorded["sha256"] == hashlib.sha256(data).hexdigest()
