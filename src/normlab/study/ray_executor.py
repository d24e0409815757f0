"""The ``ray`` executor: each part of a cell (the whole cell, or one ``--shard I/N`` of it) a Ray
task running ``run_part``.

Ray is an optional extra (``pip install normlab[ray]``) and is imported only when this executor
runs, so ``normlab --help`` and the faces never load it. Without an address a local Ray
instance is started (two CPUs, no dashboard, no usage stats: offline) and shut down afterwards;
with one (``--ray-address``), the cells go to that cluster, whose workers must have normlab and
the study's files.

A worker lost mid-part is Ray's to retry (``max_retries``): the retried task runs the same part
into the same folder, so the system's own resume counts each finished sample once.
"""

from __future__ import annotations

import dataclasses
import os
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import TypeVar

from normlab.core.errors import InputError
from normlab.study.systems import Part

R = TypeVar("R")
"""A part's result (``PartResult``)."""

RETRIES = 3
"""Attempts after the first for a cell whose worker died (Ray's ``max_retries``)."""

KILL_ENV = "NORMLAB_TEST_KILL_WORKER"
"""Tests only: ``DIR:SECONDS`` makes the first cell to claim ``DIR/killed`` end its own worker
process, as a lost machine would, once its folder holds a log (mid-run) or SECONDS into its
run, whichever comes first, so that Ray retries it."""


def _require_ray() -> ModuleType:
    """Ray, imported only here (a study on the local executor never loads it)."""
    try:
        import ray
    except ImportError:
        raise InputError(
            "--executor", "ray is not installed; install it with: pip install normlab[ray]"
        ) from None
    return ray


def _kill_once_later(folder: Path | str) -> None:
    """The test hook of ``KILL_ENV``: at most one worker of a study dies, once."""
    spec = os.environ.get(KILL_ENV)
    if not spec:
        return
    markers, _, seconds = spec.rpartition(":")
    try:
        os.close(os.open(Path(markers) / "killed", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return
    deadline = time.monotonic() + float(seconds)

    def die() -> None:
        while time.monotonic() < deadline and not (
            isinstance(folder, Path) and any(folder.rglob("*.eval"))
        ):
            time.sleep(0.05)
        os._exit(1)

    threading.Thread(target=die, daemon=True).start()


def _run_part_task(run_one: Callable[[Part], R], part: Part) -> R:
    _kill_once_later(part.cell.folder)
    return run_one(part)


def _resolved(part: Part) -> Part:
    """Workers may start in another folder: each part's logs go where the study says."""
    folder = part.cell.folder
    if not isinstance(folder, Path):
        return part
    return dataclasses.replace(part, cell=dataclasses.replace(part.cell, folder=folder.resolve()))


CONNECT_TIMEOUT_S = 10.0
"""Seconds a cluster's address has to answer before ``--ray-address`` is refused: Ray itself
retries a dead address for minutes."""
ADDRESS = re.compile(
    r"^(?:ray://)?(?:\[(?P<ipv6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9._-]+)):(?P<port>\d{1,5})$"
)
_GRPC_HELLO = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""An HTTP/2 client's preface and an empty SETTINGS frame: a gRPC server (Ray's GCS, or its
client server behind ``ray://``) answers with a SETTINGS frame of its own."""
_SETTINGS = 4
"""The HTTP/2 frame type of SETTINGS (byte 3 of a frame's header)."""


def check_address(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """``--ray-address`` is an address a Ray cluster answers at, within ``timeout`` seconds, or
    an [`InputError`][normlab.core.InputError] saying which it is not.

    Ray takes ``HOST:PORT`` (the head's GCS, 6379 by default), ``ray://HOST:PORT`` (Ray
    Client), ``auto`` (``RAY_ADDRESS``, else the cluster started on this machine) or
    ``local`` (a new instance). Given a
    malformed address it raised a ValueError (a traceback); given a dead one it retried for
    minutes. So the address is parsed here, and the cluster asked for a gRPC handshake first,
    which a live head answers at once and a dead or foreign port does not."""
    if address == "local":
        return  # a new local instance, as with no address
    if address == "auto":
        address = os.environ.get("RAY_ADDRESS", "").strip()
        if not address:
            return  # Ray looks for a cluster on this machine and says so if none runs
    found = ADDRESS.match(address)
    port = int(found["port"]) if found else 0
    if found is None or not 0 < port < 65536:
        raise InputError(
            "--ray-address",
            f"{address!r} is not a Ray address: give HOST:PORT (the head's port, 6379 by "
            "default), ray://HOST:PORT, auto or local",
            field="ray_address",
        )
    host = found["ipv6"] or found["host"]
    deadline = time.monotonic() + timeout
    try:
        with socket.create_connection((host, port), timeout=timeout) as connection:
            connection.sendall(_GRPC_HELLO)
            reply = b""
            while len(reply) < 4 and time.monotonic() < deadline:
                connection.settimeout(max(deadline - time.monotonic(), 0.01))
                chunk = connection.recv(9)
                if not chunk:
                    break
                reply += chunk
    except OSError as error:  # refused, unreachable, no such host, or silent past the deadline
        reason = "no answer" if isinstance(error, TimeoutError) else (error.strerror or error)
        raise InputError(
            "--ray-address",
            f"no Ray cluster answers at {address} within {timeout:g} s ({reason}); start one "
            "there (ray start --head) or fix the address",
            field="ray_address",
        ) from None
    if len(reply) < 4 or reply[3] != _SETTINGS:
        raise InputError(
            "--ray-address",
            f"something answers at {address}, but not a Ray cluster (no gRPC handshake within "
            f"{timeout:g} s)",
            field="ray_address",
        )


class RayExecutor:
    """Every part a Ray task, all submitted at once; results in the study's order."""

    def __init__(self, address: str | None = None) -> None:
        self.ray = _require_ray()
        if address is not None:
            check_address(address)
        self.address = address

    def run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]:
        from normlab.runs import stdout_to_stderr

        # What Ray prints (a lost worker, the instance's start) goes to stderr: a study's
        # stdout holds only its own result.
        with stdout_to_stderr():
            return self._run(parts, run_one)

    def _run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]:
        ray = self.ray
        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
        started = not ray.is_initialized()
        if started:
            if self.address:
                try:
                    ray.init(address=self.address, log_to_driver=False)
                except (ValueError, ConnectionError, RuntimeError, TimeoutError) as error:
                    raise InputError(
                        "--ray-address", f"Ray could not join {self.address}: {error}"
                    ) from None
            else:
                ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            task = ray.remote(num_cpus=1, max_retries=RETRIES)(_run_part_task)
            pending = [task.remote(run_one, _resolved(part)) for part in parts]
            try:
                results: list[R] = ray.get(pending)
            except ray.exceptions.RayTaskError as error:
                # A cell's own error (a bad option, a refused folder) as the local run gives it.
                cause = getattr(error, "cause", None)
                if isinstance(cause, Exception):
                    raise cause from None
                raise
            return results
        finally:
            if started:
                ray.shutdown()
