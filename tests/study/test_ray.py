"""The ``ray`` study executor (issue 23) on a local Ray instance: the scripted study's analyses
equal the local executor's, and a worker killed mid-study still ends with exactly the planned n
per cell (Ray retries the part; its folder resumes and counts each sample once). LoSoNA's cells
run as two shards each, so some Ray tasks are parts of one cell."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from tests.study.test_study import EXAMPLE, invoke, study_file

pytestmark = [
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None,
        reason="ray is not installed (pip install normlab[ray]); CI installs it",
    ),
    pytest.mark.slow,
]


SHARDED = EXAMPLE.read_text(encoding="utf-8").replace("  losona:\n", "  losona:\n    shards: 2\n")


def run_and_report(folder: Path, *options: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    path = study_file(folder, SHARDED)
    code, out, err = invoke("run", path, "--json", *options)
    assert code == 0, err
    ran = json.loads(out)
    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    return ran, json.loads(out)


@pytest.fixture(scope="module")
def local(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    return run_and_report(tmp_path_factory.mktemp("local"))


def same_cells(ran: list[dict[str, Any]], local_ran: list[dict[str, Any]]) -> None:
    def key(cells: list[dict[str, Any]]) -> list[tuple[str, str, int, int]]:
        return [(c["system"], c["subject"], c["samples"], c["calls"]) for c in cells]

    assert key(ran) == key(local_ran)


def test_a_ray_run_equals_a_local_run(
    workdir: Path, local: tuple[list[dict[str, Any]], dict[str, Any]]
) -> None:
    ran, report = run_and_report(workdir, "--executor", "ray")
    assert not any(cell["skipped"] for cell in ran)
    assert (workdir / "out" / "losona" / "scripted-a" / "shard-2-of-2").is_dir()
    same_cells(ran, local[0])
    assert report == {**local[1], "study": report["study"]}
    assert report["missing"] == []


def test_a_killed_worker_still_gives_exactly_the_planned_n(
    workdir: Path,
    local: tuple[list[dict[str, Any]], dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from normlab.study.ray_executor import KILL_ENV

    markers = workdir / "markers"
    markers.mkdir()
    # The first cell to start ends its own worker once it has a log; Ray retries it.
    monkeypatch.setenv(KILL_ENV, f"{markers}:10")
    ran, report = run_and_report(workdir, "--executor", "ray")
    assert (markers / "killed").is_file()
    same_cells(ran, local[0])
    n = {(s["system"], r["subject"]): r["n"] for s in report["systems"] for r in s["subjects"]}
    planned = {
        (s["system"], r["subject"]): r["n"] for s in local[1]["systems"] for r in s["subjects"]
    }
    assert n == planned and len(n) == 6
