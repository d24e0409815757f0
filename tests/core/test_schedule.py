"""More samples in flight than connections, the longest first (issue 23: at 2 s latency and
64 connections, multi-call episodes left connections idle while the last wave played out)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import Sample

from normlab.core import evalrun
from normlab.core.evalrun import SAMPLES_PER_CONNECTION, run_task, samples_in_flight
from normlab.core.schedule import longest_first


def test_more_samples_than_connections_run_at_once_unless_told() -> None:
    assert samples_in_flight(64) == SAMPLES_PER_CONNECTION * 64 > 64
    assert samples_in_flight(1) == SAMPLES_PER_CONNECTION > 1
    assert samples_in_flight(64, 1) == 1, "an explicit max_samples (a person playing) is kept"
    assert samples_in_flight(None) is None, "no connection limit: Inspect's adaptive rule"


def test_run_task_gives_inspect_the_samples_in_flight(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[dict[str, Any]] = []

    def eval_set(**options: Any) -> tuple[bool, list[Any]]:
        given.append(options)
        return True, [SimpleNamespace(status="success", location=str(tmp_path / "a.eval"))]

    monkeypatch.setattr(evalrun, "eval_set", eval_set)
    run_task(Task(), tmp_path, "scripted/x.json", {}, max_connections=8)
    run_task(Task(), tmp_path, "scripted/x.json", {}, max_samples=1, max_connections=8)
    assert [(g["max_samples"], g["max_connections"]) for g in given] == [(32, 8), (1, 8)]


def test_the_longest_start_first_and_equals_keep_their_order() -> None:
    assert longest_first(["bb", "a", "ccc", "dd"], len) == ["ccc", "bb", "dd", "a"]
    samples = [Sample(id=name, input="x" * size) for name, size in (("a", 1), ("b", 3), ("c", 3))]
    ordered = longest_first(samples, lambda sample: len(str(sample.input)))
    assert [sample.id for sample in ordered] == ["b", "c", "a"]
