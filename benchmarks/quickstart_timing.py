"""Measure the README quickstart from a fresh clone: setup time, demo time, calls and tokens.

    python -m benchmarks.quickstart_timing [--repo PATH] [--out results.json]

Clones the repository's HEAD into a temporary folder, runs ``make setup`` (fresh
virtual environment, pinned dependencies) and then ``make demo`` (the four systems'
demos on the embedded model, with an empty model cache so GGUF assembly is included),
timing each and each system's demo, and reads the benchmarks' Inspect logs for model
calls and tokens per role (CRSEC's calls are in its run directory's metrics).
Prints a JSON summary; the closing notes of issues quote it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import emit
from normlab.core.logs import read_samples
from normlab.models.usage import usage_by_role


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"{' '.join(command)} failed with exit code {result.returncode}")
    return elapsed, result.stdout + result.stderr


def measure(repo: Path) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="normlab-quickstart-") as scratch:
        clone = Path(scratch) / "normlab"
        subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
        env = {**os.environ, "NORMLAB_CACHE_DIR": str(Path(scratch) / "cache")}
        env.pop("VIRTUAL_ENV", None)
        setup_s, _ = timed(["make", "setup"], clone, env)
        demo_s, demo_output = timed(["make", "demo"], clone, env)
        logs = sorted((clone / "runs" / "demo").rglob("*.eval"))
        usage = usage_by_role(item.sample for item in read_samples(logs).samples)
        return {
            "setup_seconds": round(setup_s, 1),
            "demo_seconds": round(demo_s, 1),
            "demo_printed_index": "index:" in demo_output,
            "demo_minutes_by_system": {
                match.group(1): float(match.group(2))
                for match in re.finditer(r"\[\d/\d\] (\w+) done in ([\d.]+) min", demo_output)
            },
            "calls_and_tokens": {
                role: {
                    "calls": item.calls,
                    "input_tokens": item.input_tokens,
                    "cached_input_tokens": item.cached_input_tokens,
                    "output_tokens": item.output_tokens,
                }
                for role, item in sorted(usage.items())
            },
            "cpu_count": os.cpu_count(),
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--out", type=Path, default=None)
    arguments = parser.parse_args()
    summary = measure(arguments.repo)
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
