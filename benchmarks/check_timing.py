"""Time ``make check`` (lint, types, the fast tests on two workers) in this checkout.

    python -m benchmarks.check_timing [--runs N] [--busy N] [--out FILE]

Runs ``make check`` ``--runs`` times in a row (the first may pay for cold caches: mypy's, the
bytecode, pytest's rewritten asserts; the later ones are the inner loop a developer meets),
each timed by the wall clock, with ``--busy N`` busy loops spinning on the cores meanwhile
(a loaded machine: the suite must stay green there, and may take longer). Prints a JSON
summary per run: the seconds, whether it passed, and pytest's own count line. Issue 33's
target is the quiet machine's warm run at or under 120 s.
"""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.quickstart_timing import busy_loops

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"=+ (.*(?:passed|failed).*) =+")


def one_check() -> dict[str, Any]:
    started = time.perf_counter()
    result = subprocess.run(
        ["make", "check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    seconds = time.perf_counter() - started
    counts = SUMMARY.findall(result.stdout + result.stderr)
    return {
        "seconds": round(seconds, 1),
        "passed": result.returncode == 0,
        "pytest": counts[-1] if counts else None,
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--runs", type=int, default=2, help="make check runs, one after another.")
    parser.add_argument("--busy", type=int, default=0, help="Busy loops on the cores meanwhile.")
    arguments = parser.parse_args()
    with busy_loops(arguments.busy):
        runs = [one_check() for _ in range(arguments.runs)]
    emit({"busy_loops": arguments.busy, "runs": runs}, arguments.out)


if __name__ == "__main__":
    main()
