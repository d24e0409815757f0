"""A release's extra columns (issue 31, item 14): a row carrying ``license`` or ``source`` loads,
by path or by URL, and keeps them as metadata (``validate`` lists them, the log carries them);
a near miss of a field (``scenaro_id``, ``Norm_ID``) is one line naming file, line and field."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem
from inspect_ai.log import list_eval_logs, read_eval_log

from normlab.losona.analysis import load_run
from normlab.losona.dataset import SCENARIOS_PATH, build_dataset, load_scenarios, read_scenarios
from tests.helpers.inputs import refuses_near_miss
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli

RELEASE = {"license": "CC-BY-4.0", "source": {"release": "v1", "split": "test"}}


def with_columns(source: Path, target: Path, count: int | None = None) -> Path:
    """``source``'s first ``count`` rows, each with the release's extra columns."""
    rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    target.write_text("".join(json.dumps({**row, **RELEASE}) + "\n" for row in rows[:count]))
    return target


@pytest.fixture
def in_memory(tmp_path: Path) -> Iterator[str]:
    filesystem: MemoryFileSystem = fsspec.filesystem("memory")
    data = with_columns(SCENARIOS, tmp_path / "release.jsonl").read_bytes()
    filesystem.pipe_file("/normlab-release/scenarios.jsonl", data)
    yield "memory://normlab-release/scenarios.jsonl"
    filesystem.rm("/normlab-release", recursive=True)


def test_a_row_with_extra_columns_loads_by_path_and_keeps_them(tmp_path: Path) -> None:
    path = with_columns(SCENARIOS, tmp_path / "release.jsonl")
    scenarios = load_scenarios(path)
    assert [scenario.model_extra for scenario in scenarios] == [RELEASE, RELEASE]
    plain = load_scenarios(SCENARIOS)
    assert [s.model_dump(exclude=set(RELEASE)) for s in scenarios] == [
        s.model_dump() for s in plain
    ], "the columns change nothing else"
    (sample,) = build_dataset(scenarios[:1], ["naive"])
    assert (sample.metadata or {})["scenario"]["license"] == "CC-BY-4.0"


def test_a_row_with_extra_columns_loads_by_url(in_memory: str) -> None:
    scenarios = read_scenarios(in_memory).items
    assert [scenario.model_extra for scenario in scenarios] == [RELEASE, RELEASE]


def test_validate_lists_the_metadata_and_stays_clean(tmp_path: Path) -> None:
    path = with_columns(SCENARIOS_PATH, tmp_path / "release.jsonl", count=3)
    code, output = run_cli("losona", "validate", str(path))
    assert code == 0, output
    assert (
        f"{path}: kept as metadata (not read by the benchmark): license (3 of 3 rows), "
        "source (3 of 3 rows)"
    ) in output
    assert output.strip().endswith("clean")


@pytest.mark.parametrize(("name", "meant"), [("scenaro_id", "scenario_id"), ("Norm_ID", "norm_id")])
def test_a_near_miss_is_one_line_and_exit_2(
    workdir: Path, tmp_path: Path, name: str, meant: str
) -> None:
    path = with_columns(SCENARIOS, tmp_path / "release.jsonl")
    rows = path.read_text().splitlines()
    rows[1] = json.dumps({**json.loads(rows[1]), name: "x"})
    path.write_text("\n".join(rows) + "\n")
    code, output = run_cli(
        "losona", "run", "--model", f"scripted/{SCRIPT}", "--data", str(path),
        "--log-dir", str(workdir / "logs"),
    )  # fmt: skip
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, output
    assert f"{path}:2: field '{name}': unknown field, a near miss of '{meant}'" in lines[0]
    code, output = run_cli("losona", "validate", str(path))
    assert code == 1 and f":2: standup__banned_direct_answers_norm__demos__t2: {name}:" in output


def test_a_misspelt_required_field_is_named_as_the_misspelling(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in SCENARIOS.read_text().splitlines()]
    rows[0]["scenaro_id"] = rows[0].pop("scenario_id")
    path = tmp_path / "release.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    refuses_near_miss(load_scenarios, path, "scenaro_id", "scenario_id", line=1)


def test_the_metadata_rides_into_the_log(workdir: Path, in_memory: str) -> None:
    code, output = run_cli(
        "losona", "run", "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
        "--data", in_memory, "-c", "naive", "-k", "1",
        "--log-dir", str(workdir / "logs"), "--report-dir", str(workdir / "report"),
    )  # fmt: skip
    assert code == 0, output
    (info,) = list_eval_logs(str(workdir / "logs"))
    samples = read_eval_log(info.name).samples or []
    assert len(samples) == 2
    for sample in samples:
        scenario = (sample.metadata or {})["scenario"]
        assert {name: scenario[name] for name in RELEASE} == RELEASE
    scenarios = load_run([workdir / "logs"]).scenarios
    assert all(scenario.model_extra == RELEASE for scenario in scenarios.values())
