"""A 2-subject × 4-system study on Ray against fault-injecting endpoints: wall time beside the
latency bound, and every cell's planned n (issue 23).

    python -m benchmarks.study_ray [--latency 0.5] [--connections 8] [--no-faults]
        [--executor ray|local] [--out F]

Each system's replies come from its scripted-model test script, served over HTTP by
``benchmarks/endpoint.py`` (one endpoint per script: LoSoNA, SCENE, HSII, HSII's reference,
CRSEC), which injects the sweep's faults (rate limits, server errors, malformed and cut-off
bodies, held requests). The study names two subjects, ``a`` and ``b``: two model names on each
endpoint, every other role on the same endpoint. ``normlab study run --executor ray`` runs it
in a child process (a local Ray instance of ``--workers`` CPUs), then ``study report`` reads it.

Reported:

* ``wall_s``: the study run's wall time (Ray's start and each worker's imports included);
* ``bound_s``: the latency bound, requests × latency / (workers × connections), every request
  the endpoints received (faults included) at the stated latency with two Ray workers each
  keeping its connections busy; ``bound_ratio`` = bound / wall;
* ``parts_s``: the parts' own wall times summed (what the cells took, one after another), and
  ``worker_use`` = parts_s / (workers × wall): how busy Ray kept its workers. A CRSEC cell's
  ticks call one after another, so a cell's own time, not the connections, is its floor;
* per cell, the samples and calls of the run and the n the report counts.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.endpoint import EndpointConfig, EndpointProcess, Faults

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
FAULTS = Faults(rate_limit=0.1, server_error=0.1, malformed=0.05, truncated=0.05, timeout=0.05)
SCRIPTS = {
    "losona": TESTS / "losona/fixtures/script.json",
    "scene": TESTS / "scene/fixtures/script.json",
    "hsii": TESTS / "hsii/fixtures/script.json",
    "hsiiref": TESTS / "hsii/fixtures/reference.json",
    "crsec": TESTS / "crsec/fixtures/busy.json",
}
SUBJECTS = ("a", "b")
RAY_CPUS = 2
"""The local Ray instance's CPUs (:mod:`normlab.study.ray_executor`): parts run at once."""


def study(out: Path, connections: int) -> dict[str, Any]:
    """Two subjects × LoSoNA, SCENE, HSII and CRSEC, every model on its system's endpoint."""

    def on(service: str, name: str) -> str:
        return f"openai-api/{service}/{name}"

    return {
        "name": "ray-faults",
        "out": str(out),
        "max_connections": connections,
        "seed": 0,
        "systems": {
            "losona": {
                "options": {
                    "scenarios": str(TESTS / "losona/fixtures/scenarios.jsonl"),
                    "conditions": ["naive", "norm_informed"],
                    "epochs": 4,
                },
                "roles": {"judge": on("losona", "judge")},
                "shards": 2,
            },
            "scene": {
                "options": {"scenarios": str(TESTS / "scene/fixtures/scenarios.jsonl"), "reps": 3},
                "roles": {
                    r: on("scene", r) for r in ("judge", "persona", "orchestrator", "auditor")
                },
            },
            "hsii": {
                "options": {"cases": str(TESTS / "hsii/fixtures/paper_tables.jsonl"), "epsilon": 2},
                "roles": {
                    "judge": on("hsii", "judge"),
                    "persona": on("hsii", "persona"),
                    "reference": on("hsiiref", "reference"),
                },
            },
            "crsec": {
                "options": {"agents": "Bob Johnson,Carlos Gomez,Tamara Rodriguez", "hours": "9-10"},
                "roles": {"judge": on("crsec", "judge")},
            },
        },
        "subjects": [
            {
                "name": name,
                "model": on("losona", name),
                "models": {s: on(s, name) for s in ("scene", "hsii", "crsec")},
            }
            for name in SUBJECTS
        ],
    }


def normlab(*arguments: str, env: dict[str, str]) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "normlab.cli", "study", *arguments],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def measure(
    latency: float, connections: int, faults: bool, executor: str, workers: int
) -> dict[str, Any]:
    chosen = FAULTS if faults else Faults()
    with (
        tempfile.TemporaryDirectory(prefix="normlab-study-ray-") as scratch,
        contextlib.ExitStack() as stack,
    ):
        folder = Path(scratch)
        env = {**os.environ, "INSPECT_DISPLAY": "none", "INSPECT_CACHE_DIR": str(folder / "cache"),
               "NORMLAB_ATTEMPT_TIMEOUT": "2" if faults else "600",
               "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip
        endpoints = {}
        for service, script in SCRIPTS.items():
            (folder / service).mkdir()
            config = EndpointConfig(script=script, latency=latency, faults=chosen, timeout_hold=60)
            endpoints[service] = stack.enter_context(EndpointProcess(config, folder / service))
            env.update(endpoints[service].env(service))
        path = folder / "study.yaml"
        path.write_text(json.dumps(study(folder / "out", connections)), encoding="utf-8")
        started = time.perf_counter()
        code, out, err = normlab("run", str(path), "--json", "--executor", executor, env=env)
        wall = time.perf_counter() - started
        if code != 0:
            raise SystemExit(f"study run failed ({code}): {err.strip().splitlines()[-1:]}")
        cells = json.loads(out)
        code, out, err = normlab("report", str(path), "--json", env=env)
        if code != 0:
            raise SystemExit(f"study report failed ({code}): {err.strip().splitlines()[-1:]}")
        report = json.loads(out)
        counts = {service: endpoint.stats() for service, endpoint in endpoints.items()}
    requests = sum(count["requests"] for count in counts.values())
    bound = requests * latency / (workers * connections)
    parts = sum(cell["wall_s"] for cell in cells)
    return {
        "executor": executor,
        "workers": workers,
        "latency_s": latency,
        "connections": connections,
        "faults": faults,
        "wall_s": round(wall, 1),
        "bound_s": round(bound, 1),
        "bound_ratio": round(bound / wall, 3),
        "parts_s": round(parts, 1),
        "worker_use": round(parts / (workers * wall), 3),
        "requests": requests,
        "replies": sum(count["replies"] for count in counts.values()),
        "faults_injected": {s: count["faults"] for s, count in counts.items()},
        "cells": [
            {
                "cell": f"{c['system']}/{c['subject']}",
                "samples": c["samples"],
                "calls": c["calls"],
                "wall_s": c["wall_s"],
            }
            for c in cells
        ],
        "n": {
            f"{s['system']}/{r['subject']}": r["n"]
            for s in report["systems"]
            for r in s["subjects"]
        },
        "missing": report["missing"],
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--no-faults", action="store_true")
    parser.add_argument("--executor", default="ray", choices=("ray", "local"))
    args = parser.parse_args()
    workers = RAY_CPUS if args.executor == "ray" else 1
    emit(
        measure(args.latency, args.connections, not args.no_faults, args.executor, workers),
        args.out,
    )


if __name__ == "__main__":
    main()
