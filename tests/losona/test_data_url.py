"""LoSoNA scenarios by URL: a memory:// run end to end, its data hash in log, analysis, report."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import fsspec
import pytest
from fsspec.implementations.memory import MemoryFileSystem

from normlab.losona.task import losona
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli

URL = "memory://normlab-losona/scenarios.jsonl"


@pytest.fixture
def in_memory() -> Iterator[bytes]:
    filesystem: MemoryFileSystem = fsspec.filesystem("memory")
    data = SCENARIOS.read_bytes()
    filesystem.pipe_file("/normlab-losona/scenarios.jsonl", data)
    yield data
    filesystem.rm("/normlab-losona", recursive=True)


def test_a_memory_url_runs_end_to_end_with_its_hash_logged_and_reported(
    workdir: Path, in_memory: bytes
) -> None:
    digest = hashlib.sha256(in_memory).hexdigest()
    code, output = run_cli(
        "losona", "run",
        "--model", f"scripted/{SCRIPT}",
        "--judge", f"scripted/{SCRIPT}",
        "--data", URL,
        "-c", "naive",
        "--log-dir", str(workdir / "logs"),
        "--report-dir", str(workdir / "report"),
    )  # fmt: skip
    assert code == 0, output
    from inspect_ai.log import list_eval_logs, read_eval_log

    (log,) = list_eval_logs(str(workdir / "logs"))
    data = (read_eval_log(log.name, header_only=True).eval.metadata or {})["data"]
    assert data["location"] == URL and data["sha256"] == digest
    assert [file["sha256"] for file in data["files"]] == [digest]
    assert f"sha256 {digest}" in (workdir / "report" / "report.html").read_text()
    code, output = run_cli("losona", "analyze", str(workdir / "logs"), "--json")
    assert code == 0, output
    (sources,) = json.loads(output)["data"].values()
    assert [source["sha256"] for source in sources] == [digest]


def test_a_missing_url_is_one_line_naming_it(workdir: Path) -> None:
    code, output = run_cli(
        "losona", "run",
        "--model", f"scripted/{SCRIPT}",
        "--data", "memory://user:hunter22@normlab-losona/none.jsonl",
        "--log-dir", str(workdir / "logs"),
    )  # fmt: skip
    assert code == 2
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and "memory://user:***@normlab-losona/none.jsonl" in lines[0]
    assert "hunter22" not in output


def test_the_task_records_the_shipped_data_too() -> None:
    task = losona(limit_scenarios=1)
    data = (task.metadata or {})["data"]
    assert data["sha256"] == hashlib.sha256(Path(data["location"]).read_bytes()).hexdigest()


def test_an_old_log_reports_that_its_data_hash_was_not_recorded(tmp_path: Path) -> None:
    from tests.test_legacy_logs import LEGACY

    code, output = run_cli(
        "losona", "report", str(LEGACY / "losona_v1.eval"), "--out", str(tmp_path)
    )
    assert code == 0, output
    assert "data hash: not recorded" in (tmp_path / "report.html").read_text()
