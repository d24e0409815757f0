"""HSII cases by URL: read through fsspec, the bytes' hash in the task's metadata."""

from __future__ import annotations

from normlab.hsii.dataset import CASES_PATH
from normlab.hsii.task import hsii
from tests.helpers.inputs import assert_data_recorded, in_memory


def test_a_memory_url_is_read_and_its_hash_recorded() -> None:
    with in_memory(CASES_PATH, "normlab-hsii/cases.jsonl") as (url, data):
        task = hsii(cases=url, limit=2)
    assert len(task.dataset) == 2
    assert_data_recorded(task.metadata, url, data)
