"""The fault-injecting endpoint (``benchmarks/endpoint.py``) as a test fixture helper."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from benchmarks.endpoint import EndpointConfig, EndpointProcess, Faults


def model_name(endpoint: EndpointProcess) -> str:
    """The model string a user's OpenAI-compatible URL takes (``openai-api/SERVICE/MODEL`` with
    ``SERVICE_BASE_URL``), one service per endpoint: Inspect keeps a model per name."""
    return f"openai-api/{service(endpoint)}/scripted"


def service(endpoint: EndpointProcess) -> str:
    return f"faulty{endpoint.base_url.rsplit(':', 1)[1].split('/')[0]}"


@contextlib.contextmanager
def serving(
    folder: Path,
    script: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    latency: float = 0.0,
    faults: Faults | None = None,
    timeout_hold: float = 600.0,
) -> Iterator[EndpointProcess]:
    """Run the endpoint answering from ``script``; :func:`model_name` reaches it in this process
    and in the subprocesses it starts."""
    config = EndpointConfig(
        script=script, latency=latency, faults=faults or Faults(), timeout_hold=timeout_hold
    )
    folder.mkdir(parents=True, exist_ok=True)
    with EndpointProcess(config, folder) as endpoint:
        for name, value in endpoint.env(service(endpoint)).items():
            monkeypatch.setenv(name, value)
        yield endpoint
