"""Test-wide guards: no network, isolated caches and Inspect logs."""

from __future__ import annotations

import ipaddress
import os
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

if os.environ.get("PYTEST_XDIST_WORKER"):
    # Each xdist worker already keeps a core busy: numpy's OpenBLAS pool of one thread per core
    # on top of that oversubscribed the cores, and its threads' spinning made the MiniLM
    # encoder 2-3 times slower (hsii build's clustering took 30 s of `make check`). Set before
    # anything loads numpy; an explicit setting is kept.
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")

from tests.helpers.figures import draw_each_chart_once

draw_each_chart_once()

_real_connect = socket.socket.connect


def _is_local(address: Any) -> bool:
    if isinstance(address, (str, bytes)):  # AF_UNIX path
        return True
    host = address[0]
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: Any) -> Any:
    if not _is_local(address):
        raise OSError(f"network disabled in tests: attempted connection to {address!r}")
    return _real_connect(self, address)


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Any connection to a non-loopback address fails, as it would on an offline machine;
    Inspect's model cache is private to each test, so no test reads another's cached reply."""
    monkeypatch.setattr(socket.socket, "connect", _guarded_connect)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "inspect-cache"))
    yield


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run in a temporary folder so default ``runs/`` and ``logs/`` land there."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def anyio_backend() -> str:
    """Async tests (``pytest.mark.anyio``) run on asyncio, as Inspect does."""
    return "asyncio"


@pytest.fixture
def bucket(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """An empty bucket ``s3://sweeps`` on a loopback S3 server (moto's: no network), and the
    credentials to reach it, as any S3-compatible store is reached (``AWS_ENDPOINT_URL``)."""
    import boto3
    from moto.server import ThreadedMotoServer
    from s3fs import S3FileSystem

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    # moto keeps its buckets per process, not per server: start from none
    urllib.request.urlopen(f"http://{host}:{port}/moto-api/reset", data=b"").close()
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    for name, value in {
        "AWS_ENDPOINT_URL": f"http://{host}:{port}",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    S3FileSystem.clear_instance_cache()  # a cached client would still name another server
    boto3.client("s3").create_bucket(Bucket="sweeps")
    try:
        yield "s3://sweeps"
    finally:
        S3FileSystem.clear_instance_cache()
        server.stop()
