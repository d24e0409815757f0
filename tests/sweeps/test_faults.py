"""Every system's sweep survives a faulty endpoint and SIGKILLs with nothing lost (issue 12).

Smaller than ``python -m benchmarks.sweep --faults``, through the same code: each
system's own run command against ``benchmarks/endpoint.py`` as an
OpenAI-compatible URL, with the benchmark's fault mix (20% rate limits and
server errors, 10% bodies that are no reply, 5% requests held until the
attempt timeout).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from benchmarks.endpoint import EndpointProcess, Faults
from benchmarks.sweep import SWEEP_FAULTS, SYSTEMS, run_arguments

from tests.helpers.endpoint import model_name, serving

SIZES = {"losona": 1, "scene": 1, "hsii": 1}


def _start(
    system: str, folder: Path, monkeypatch: pytest.MonkeyPatch, stack: ExitStack, **kwargs: Any
) -> tuple[list[str], list[EndpointProcess]]:
    """The endpoint(s) for ``system`` and its run arguments against them."""
    spec = SYSTEMS[system]
    endpoint: EndpointProcess = stack.enter_context(
        serving(folder / "endpoint", spec.script, monkeypatch, **kwargs)
    )
    endpoints = [endpoint]
    second = None
    if spec.second_script:
        other = stack.enter_context(
            serving(folder / "second", spec.second_script[1], monkeypatch, **kwargs)
        )
        endpoints.append(other)
        second = model_name(other)
    return run_arguments(spec, model_name(endpoint), folder, SIZES[system], second), endpoints


def _run(arguments: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "normlab.cli", *arguments],
        cwd=folder,
        env={**os.environ, "INSPECT_DISPLAY": "none"},
        capture_output=True,
        text=True,
        timeout=600,
    )


def _analysis(system: str, logs: Path, folder: Path) -> dict[str, Any]:
    result = _run([system, "analyze", str(logs), "--json"], folder)
    assert result.returncode == 0, result.stderr
    value: dict[str, Any] = json.loads(result.stdout)
    return value


def _units(analysis: dict[str, Any]) -> int:
    (usage,) = analysis["usage"].values()
    units: int = usage["units"]
    return units


@pytest.fixture
def attempt_timeout(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("NORMLAB_ATTEMPT_TIMEOUT", "2")
    yield


@pytest.mark.slow
@pytest.mark.parametrize("system", sorted(SIZES))
def test_a_sweep_completes_through_faults_and_counts_its_retries(
    system: str, workdir: Path, monkeypatch: pytest.MonkeyPatch, attempt_timeout: None
) -> None:
    with ExitStack() as stack:
        arguments, endpoints = _start(system, workdir, monkeypatch, stack, faults=SWEEP_FAULTS)
        logs = workdir / "logs"
        result = _run([*arguments, "--log-dir", str(logs)], workdir)
        assert result.returncode == 0, result.stderr[-2000:]
        faults = sum(sum(item.stats()["faults"].values()) for item in endpoints)
    analysis = _analysis(system, logs, workdir)
    planned = SYSTEMS[system].planned(SIZES[system])
    assert _units(analysis) == planned
    # Output that is not a terminal still shows progress and retries, a line each (issue 18).
    lines = result.stderr.splitlines()
    assert lines[0].startswith("models: subject=")
    assert sum(" finished (" in line for line in lines) == planned
    assert any("retried call attempt" in line or "retrying a call to" in line for line in lines)
    (usage,) = analysis["usage"].values()
    retries = sum(role["retries"] for role in usage["roles"].values())
    assert faults > 0 and retries > 0
    table = _run([system, "analyze", str(logs)], workdir).stdout
    assert "retries" in table


@pytest.mark.slow
@pytest.mark.parametrize("system", sorted(SIZES))
def test_a_sweep_killed_three_times_resumes_to_exactly_the_planned_n(
    system: str, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(f"kill-{system}")
    logs = workdir / "logs"
    with ExitStack() as stack:
        arguments, _ = _start(system, workdir, monkeypatch, stack, latency=0.3)
        arguments += ["--max-connections", "2", "--log-dir", str(logs)]
        for _ in range(3):
            process = subprocess.Popen(
                [sys.executable, "-m", "normlab.cli", *arguments],
                cwd=workdir,
                env={**os.environ, "INSPECT_DISPLAY": "none"},
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            time.sleep(rng.uniform(3.0, 8.0))  # start-up takes a few seconds of these
            process.send_signal(signal.SIGKILL)
            process.wait()
        result = _run(arguments, workdir)
        assert result.returncode == 0, result.stderr[-2000:]
    analysis = _analysis(system, logs, workdir)
    assert _units(analysis) == SYSTEMS[system].planned(SIZES[system])


def test_the_fault_mix_is_the_benchmarks() -> None:
    assert SWEEP_FAULTS.rate_limit + SWEEP_FAULTS.server_error == pytest.approx(0.2)
    assert SWEEP_FAULTS.malformed + SWEEP_FAULTS.truncated == pytest.approx(0.1)
    assert SWEEP_FAULTS.timeout == pytest.approx(0.05)
    assert Faults().draw(random.Random(0)) is None
