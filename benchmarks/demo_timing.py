"""Time one system's demo on the embedded model (e.g. ``normlab crsec demo``: at most 5 minutes).

    python -m benchmarks.demo_timing crsec [--out results.json]

Runs ``normlab SYSTEM demo`` in a temporary folder (the embedded model's cache is kept, so
GGUF assembly is not counted; ``benchmarks/quickstart_timing.py`` counts it for
``make demo``) and prints the wall time and the CPU count. For CRSEC it also reads the run
directory: simulated hours, agent calls by operation and tokens.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from normlab.crsec import RunDir


def crsec_details(folder: Path) -> dict[str, Any]:
    run = RunDir(folder)
    calls = [event.data for event in run.events() if event.kind == "call"]
    return {
        "simulated_hours": len(run.metrics()),
        "agents": len(run.config().society.agents),
        "agent_calls": len(calls),
        "by_operation": dict(Counter(call.operation for call in calls).most_common()),
        "input_tokens": sum(call.input_tokens for call in calls),
        "cached_input_tokens": sum(call.cached_input_tokens for call in calls),
        "output_tokens": sum(call.output_tokens for call in calls),
        "parse_failures": sum(call.parse_failed for call in calls),
        "judge_verdicts": len((folder / "judge_cache.jsonl").read_text().splitlines()),
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("system", choices=["losona", "scene", "hsii", "crsec"])
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="normlab-demo-") as scratch:
        demo = [sys.executable, "-m", "normlab.cli", arguments.system, "demo", "--out", scratch]
        started = time.perf_counter()
        result = subprocess.run(demo, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - started
        if result.returncode != 0:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
            raise SystemExit(f"the demo failed with exit code {result.returncode}")
        summary: dict[str, Any] = {
            "system": arguments.system,
            "seconds": round(seconds, 1),
            "cpu_count": os.cpu_count(),
        }
        if arguments.system == "crsec":
            summary.update(crsec_details(Path(scratch) / "crsec"))
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
