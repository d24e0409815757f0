"""A SCENE release's extra columns (issue 31, item 14): a row carrying ``license`` or ``source``
loads, by path or by URL, keeping them as metadata (``validate`` lists them, the sample's
metadata and so the log carry them); a near miss of a field (``scenaro_id``, ``Tuple``) is one
line naming file, line and field. Inside the scenario the objects stay strict."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios, read_scenarios
from normlab.scene.task import episode_sample
from tests.helpers.inputs import refuses_near_miss, validate_keeps_release_columns, write_jsonl

RELEASE = {"license": "CC-BY-4.0", "source": {"release": "v1", "split": "test"}}


def rows(count: int = 2) -> list[dict[str, object]]:
    lines = SCENARIOS_PATH.read_text().splitlines()[:count]
    return [{**json.loads(line), **RELEASE} for line in lines]


@pytest.fixture
def in_memory(tmp_path: Path) -> Iterator[str]:
    filesystem: MemoryFileSystem = fsspec.filesystem("memory")
    filesystem.pipe_file(
        "/normlab-scene-release/s.jsonl", write_jsonl(tmp_path / "s", rows()).read_bytes()
    )
    yield "memory://normlab-scene-release/s.jsonl"
    filesystem.rm("/normlab-scene-release", recursive=True)


def test_a_row_with_extra_columns_loads_and_rides_into_the_sample(tmp_path: Path) -> None:
    scenarios = load_scenarios(write_jsonl(tmp_path / "release.jsonl", rows()))
    assert [scenario.model_extra for scenario in scenarios] == [RELEASE, RELEASE]
    plain = load_scenarios(write_jsonl(tmp_path / "plain.jsonl", [
        {k: v for k, v in row.items() if k not in RELEASE} for row in rows()
    ]))  # fmt: skip
    assert [s.model_dump(exclude=set(RELEASE)) for s in scenarios] == [
        s.model_dump() for s in plain
    ]
    metadata = episode_sample(scenarios[0], 1).metadata or {}
    assert metadata["scenario"]["source"] == RELEASE["source"]


def test_a_row_with_extra_columns_loads_by_url(in_memory: str) -> None:
    assert [s.model_extra for s in read_scenarios(in_memory).items] == [RELEASE, RELEASE]


def test_validate_lists_the_metadata(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "release.jsonl", rows())
    output = validate_keeps_release_columns("scene", path, "2 of 2")
    assert "clean: 2 scenarios" in output


@pytest.mark.parametrize(("name", "meant"), [("scenaro_id", "scenario_id"), ("Tuple", "tuple")])
def test_a_near_miss_is_one_line_naming_file_line_and_field(
    tmp_path: Path, name: str, meant: str
) -> None:
    data = rows()
    data[1][name] = "x"
    path = write_jsonl(tmp_path / "release.jsonl", data)
    refuses_near_miss(load_scenarios, path, name, meant)
    result = CliRunner().invoke(app, ["scene", "validate", str(path)])
    assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1


def test_an_unknown_key_inside_the_scenario_is_still_an_error(tmp_path: Path) -> None:
    data = rows(1)
    scaffold = data[0]["scaffold"]
    assert isinstance(scaffold, dict)
    scaffold["channel"]["license"] = "x"
    with pytest.raises(InputError, match=r":1: field 'scaffold.channel.license': Extra inputs"):
        load_scenarios(write_jsonl(tmp_path / "nested.jsonl", data))
