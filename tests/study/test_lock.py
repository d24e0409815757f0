"""One ``study run`` per out folder (issue 32, item 7): a second one, started while the first
runs, ran every cell again (72 endpoint requests for 36, and one could fail). It is refused on
one line naming who holds the folder, before any cell starts; the lock goes with its holder,
however that ends."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

from normlab.study.execute import LOCK_FILE, study_lock
from tests.study.test_study import invoke, study_file

HOLD = """
import sys
from pathlib import Path
from normlab.study.execute import study_lock
with study_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


def holder(folder: Path) -> subprocess.Popen[str]:
    """Another process holding the folder's lock until its stdin closes."""
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(folder)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline() == "held\n"
    return process


def test_a_second_study_run_on_one_folder_is_refused_naming_the_first(workdir: Path) -> None:
    path = study_file(workdir)
    out = workdir / "out"
    first = holder(out)
    try:
        code, _, err = invoke("run", path)
        assert code == 2, err
        assert len(err.strip().splitlines()) == 1, err
        assert f"{out}: another study run is writing here (pid {first.pid} on " in err
        assert socket.gethostname() in err and "since 20" in err
        assert sorted(p.name for p in out.iterdir()) == [LOCK_FILE]  # no cell started
    finally:
        assert first.stdin is not None
        first.stdin.close()
        first.wait(30)
    with study_lock(out):  # released by its holder's end
        pass


def test_a_killed_holder_leaves_no_stale_lock(tmp_path: Path) -> None:
    first = holder(tmp_path)
    os.kill(first.pid, signal.SIGKILL)
    first.wait(30)
    with study_lock(tmp_path):
        second = subprocess.run(
            [sys.executable, "-c", HOLD, str(tmp_path)], input="", capture_output=True, text=True
        )
    assert second.returncode != 0 and "another study run is writing here" in second.stderr
    assert f"pid {os.getpid()} on" in second.stderr
