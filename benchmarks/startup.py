"""CPU time to start: ``normlab --help``, each group's ``--help``, and Inspect's entry point.

    python -m benchmarks.startup [--repeat 5] [--out results.json]

Each command runs ``--repeat`` times in a fresh interpreter; the median CPU time (user +
system, from the child's resource usage) is reported, so a busy machine inflates it less than
wall time. Targets (issue 18): ``normlab --help`` and ``normlab SYSTEM --help`` at most 0.5 s;
importing ``normlab._registry`` at most 0.3 s more than ``import inspect_ai``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

from benchmarks import command, emit

NORMLAB = str(Path(sys.executable).with_name("normlab"))
COMMANDS: dict[str, list[str]] = {
    "normlab --help": [NORMLAB, "--help"],
    **{
        f"normlab {group} --help": [NORMLAB, group, "--help"]
        for group in ("losona", "scene", "hsii", "crsec", "models")
    },
    "normlab losona run --help": [NORMLAB, "losona", "run", "--help"],
    "import inspect_ai": [sys.executable, "-c", "import inspect_ai"],
    "import normlab._registry": [sys.executable, "-c", "import normlab._registry"],
}


def cpu_seconds(command: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, env={**os.environ, "COLUMNS": "100"})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    medians = {
        name: round(statistics.median(cpu_seconds(command) for _ in range(arguments.repeat)), 3)
        for name, command in COMMANDS.items()
    }
    entry_extra = medians["import normlab._registry"] - medians["import inspect_ai"]
    emit(
        {
            "cpu_seconds_median": medians,
            "registry_minus_inspect": round(entry_extra, 3),
            "help_within_0.5s": all(v <= 0.5 for k, v in medians.items() if "--help" in k),
            "registry_within_0.3s_of_inspect": entry_extra <= 0.3,
            "repeat": arguments.repeat,
            "cpu_count": os.cpu_count(),
        },
        arguments.out,
    )


if __name__ == "__main__":
    main()
