"""Measure the README quickstart from a fresh clone: setup time, demo time, calls and tokens.

    python -m benchmarks.quickstart_timing [--repo PATH] [--busy N] [--beside] [--skip-setup]
        [--out FILE]

Clones the repository's HEAD into a temporary folder, runs ``make setup`` (fresh
virtual environment, pinned dependencies) and then ``make demo`` (the four systems'
demos on the embedded model, with an empty model cache, so GGUF assembly is included, and
an empty Inspect cache, so no reply is replayed), timing each and each system's demo, and
reads the benchmarks' Inspect logs for model calls and tokens per role (CRSEC's calls are
in its run directory's metrics). ``--busy N`` keeps N busy loops running on the cores for
the whole demo, as on a laptop that is doing other work; ``--beside`` runs a second
``normlab demo`` (its own folder and caches) at the same time, as a second run of one's own
would; each run's ``retries`` count the model attempts made again (an attempt of the embedded
model is restarted only after it stopped making progress, never while producing tokens, so
they should be 0 however busy the machine); ``--skip-setup`` runs this
checkout's ``normlab demo`` (its ``.venv`` and working tree) in the clone's folder instead of
building a virtual environment, for a quick measurement of uncommitted work.
Prints a JSON summary; the closing notes of issues quote it.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from normlab.core.logs import read_samples, sample_retries
from normlab.models.usage import usage_by_role

BUSY_LOOP = "while True: pass"


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"{' '.join(command)} failed with exit code {result.returncode}")
    return elapsed, result.stdout + result.stderr


@contextlib.contextmanager
def busy_loops(count: int) -> Iterator[None]:
    """``count`` processes spinning on the CPU for as long as the block runs."""
    loops = [subprocess.Popen([sys.executable, "-c", BUSY_LOOP]) for _ in range(count)]
    try:
        yield
    finally:
        for loop in loops:
            loop.kill()
            loop.wait()


def calls_and_tokens(folder: Path) -> dict[str, dict[str, int]]:
    """Model calls, tokens and retried attempts per role of one system's demo (its logs, or
    CRSEC's events)."""
    if (folder / "events.jsonl").exists():
        from normlab.crsec import RunDir

        calls = [event.data for event in RunDir(folder).events() if event.kind == "call"]
        verdicts = folder / "judge_cache.jsonl"
        return {
            "agent": {
                "calls": len(calls),
                "input_tokens": sum(call.input_tokens for call in calls),
                "cached_input_tokens": sum(call.cached_input_tokens for call in calls),
                "output_tokens": sum(call.output_tokens for call in calls),
                "retries": sum(call.retries for call in calls),
            },
            "judge": {"calls": len(verdicts.read_text().splitlines()) if verdicts.exists() else 0},
        }
    samples = [item.sample for item in read_samples(sorted(folder.rglob("*.eval"))).samples]
    usage = usage_by_role(samples)
    found: dict[str, dict[str, int]] = {
        role: {
            "calls": item.calls,
            "input_tokens": item.input_tokens,
            "cached_input_tokens": item.cached_input_tokens,
            "output_tokens": item.output_tokens,
        }
        for role, item in sorted(usage.items())
    }
    found["all roles"] = {"retries": sum(sample_retries(sample) for sample in samples)}
    return found


def demo_summary(seconds: float, output: str, runs: Path) -> dict[str, Any]:
    """One ``normlab demo``'s time, each system's minutes, calls, tokens and retries."""
    return {
        "demo_seconds": round(seconds, 1),
        "demo_minutes": round(seconds / 60, 2),
        "demo_printed_index": "index:" in output,
        "demo_minutes_by_system": {
            match.group(1): float(match.group(2))
            for match in re.finditer(r"\[\d/\d\] (\w+) done in ([\d.]+) min", output)
        },
        "calls_and_tokens": {
            system: calls_and_tokens(runs / system)
            for system in ("losona", "scene", "hsii", "crsec")
        },
    }


def measure(repo: Path, busy: int, beside: bool, skip_setup: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="normlab-quickstart-") as scratch:
        clone = Path(scratch) / "normlab"
        subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
        env = {
            **os.environ,
            "NORMLAB_CACHE_DIR": str(Path(scratch) / "cache"),
            "INSPECT_CACHE_DIR": str(Path(scratch) / "inspect-cache"),
        }
        env.pop("VIRTUAL_ENV", None)
        if skip_setup:
            setup_s = 0.0
            demo = [str(repo / ".venv" / "bin" / "normlab"), "demo"]
        else:
            setup_s, _ = timed(["make", "setup"], clone, env)
            demo = ["make", "demo"]
        second = Path(scratch) / "beside"
        second_runs = second / "runs"
        second_env = {
            **env,
            "NORMLAB_CACHE_DIR": str(second / "cache"),
            "INSPECT_CACHE_DIR": str(second / "inspect-cache"),
        }
        second_demo = [str(repo / ".venv" / "bin" / "normlab"), "demo", "--out", str(second_runs)]
        with busy_loops(busy), ThreadPoolExecutor() as pool:
            beside_run = pool.submit(timed, second_demo, clone, second_env) if beside else None
            demo_s, demo_output = timed(demo, clone, env)
            beside_result = beside_run.result() if beside_run is not None else None
        return {
            "setup_seconds": round(setup_s, 1),
            **demo_summary(demo_s, demo_output, clone / "runs" / "demo"),
            "busy_loops": busy,
            "beside": None if beside_result is None else demo_summary(*beside_result, second_runs),
            "cpu_count": os.cpu_count(),
        }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--busy", type=int, default=0, help="Busy loops on the cores meanwhile.")
    parser.add_argument("--beside", action="store_true", help="A second demo at the same time.")
    parser.add_argument("--skip-setup", action="store_true", help="Reuse this checkout's .venv.")
    arguments = parser.parse_args()
    summary = measure(
        arguments.repo.resolve(), arguments.busy, arguments.beside, arguments.skip_setup
    )
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
