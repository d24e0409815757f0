"""``--ray-address`` checked before Ray is asked (issue 32, items 8 and 9): a malformed one was
a ValueError traceback, a dead one retried for over 120 s. Each is refused on one line within
the probe's bound, before the study's folder is made; a gRPC server's answer is taken as a
cluster. No Ray instance is started here (servers are sockets in a thread)."""

from __future__ import annotations

import importlib.util
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from normlab.core.errors import InputError
from normlab.study.ray_executor import check_address
from tests.study.test_study import invoke, study_file

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="ray is not installed (pip install normlab[ray]); CI installs it",
)

SETTINGS = bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])
"""An empty HTTP/2 SETTINGS frame: what a gRPC server sends first."""


@contextmanager
def server(reply: bytes | None) -> Iterator[int]:
    """A loopback listener that answers each connection with ``reply`` (``None``: silence);
    its port."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.1)
        held = []
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            held.append(connection)
            if reply is not None:
                connection.sendall(reply)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join(5)
        listener.close()


def closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        return int(listener.getsockname()[1])


@pytest.mark.parametrize(
    ("address", "said"),
    [
        ("not an address", "'not an address' is not a Ray address"),
        ("127.0.0.1:99999", "is not a Ray address"),
        ("127.0.0.1:CLOSED", "no Ray cluster answers at 127.0.0.1:"),
    ],
)
def test_a_bad_or_dead_address_is_one_line_before_anything(
    workdir: Path, address: str, said: str
) -> None:
    # The closed port is found when the test runs: a port in the test's id would differ
    # between pytest-xdist's workers, which must collect the same tests.
    address = address.replace("CLOSED", str(closed_port()))
    path = study_file(workdir)
    code, _, err = invoke("run", path, "--executor", "ray", "--ray-address", address)
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and said in err, err
    assert "--ray-address" in err and not (workdir / "out").exists()


def test_a_silent_or_foreign_port_is_refused_within_the_bound() -> None:
    """A port that accepts and never answers (a dead head behind a proxy, a firewall) is the
    case Ray waited on for minutes: the handshake is given ``timeout`` seconds, no more."""
    with server(None) as port, pytest.raises(InputError, match=r"answers at .* 0\.5 s \(no answer"):
        check_address(f"127.0.0.1:{port}", timeout=0.5)
    with server(b"SSH-2.0-OpenSSH_9.6\r\n") as port, pytest.raises(InputError, match="not a Ray"):
        check_address(f"ray://localhost:{port}", timeout=5)


def test_a_grpc_answer_is_taken_for_a_cluster(monkeypatch: pytest.MonkeyPatch) -> None:
    with server(SETTINGS) as port:
        check_address(f"127.0.0.1:{port}")
        check_address(f"ray://127.0.0.1:{port}")
        monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
        check_address("auto")
    check_address("local")
