"""HSII cases by URL: read through fsspec, the bytes' hash in the task's metadata."""

from __future__ import annotations

import hashlib

import fsspec

from normlab.hsii.dataset import CASES_PATH
from normlab.hsii.task import hsii


def test_a_memory_url_is_read_and_its_hash_recorded() -> None:
    filesystem = fsspec.filesystem("memory")
    data = CASES_PATH.read_bytes()
    filesystem.pipe_file("/normlab-hsii/cases.jsonl", data)
    try:
        task = hsii(cases="memory://normlab-hsii/cases.jsonl", limit=2)
    finally:
        filesystem.rm("/normlab-hsii", recursive=True)
    assert len(task.dataset) == 2
    recorded = (task.metadata or {})["data"]
    assert recorded["location"] == "memory://normlab-hsii/cases.jsonl"
    assert recorded["sha256"] == hashlib.sha256(data).hexdigest()
