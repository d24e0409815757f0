"""Sweeps against the model endpoint: wall time beside the physical bound, calls/s, faults.

    python -m benchmarks.sweep [--systems losona,scene,hsii] [--latency 0.5]
        [--connections 64] [--size 40] [--shards 1] [--faults] [--bare] [--bare-each]
        [--out F]

For each system, starts ``benchmarks/endpoint.py`` answering from that system's
scripted-model test script (so every reply parses), and runs the system's own
``normlab SYSTEM run`` in a child process against it as ``openai-api/…`` (the
provider path of any OpenAI-compatible URL), every role on the endpoint, with
``--max-connections``. ``--shards N`` runs the sweep as N ``--shard I/N``
processes at once into one log folder, the connections shared among them.
From the logs and the endpoint's counts:

* ``calls``: replies the endpoint sent; ``requests``: every request it got, faults
  included (calls Inspect's cache answered reach neither);
* ``depth``: the most endpoint calls one sample made one after another (calls it
  made at once count once, cache hits not at all), so the sample cannot finish sooner
  than depth × latency;
* ``bound_s``: max(depth × latency, requests × latency / connections);
* ``eval_wall_s``: the eval's own wall time (the logs' start to end);
  ``command_wall_s`` adds process start, analysis and the report;
* ``bound_ratio``: bound / eval wall (1.0 = as fast as the endpoint allows);
* ``cpu_ms_per_call``: CPU of the run's processes per call;
* ``peak_rss_mb``: the largest resident memory of the run's processes.

``--bare`` also runs a bare Inspect task (one generate, one judge call per
sample, no normlab code; as many samples as the largest sweep's requests / 2,
in as many shards, as many in flight as normlab runs: four per connection) against
the same endpoint: its CPU per call is Inspect's and the OpenAI client's share,
normlab's is the rest, and its bound ratio is the most any Inspect-based tool reaches
on this machine; each sweep's ``vs_bare`` is its bound ratio over bare's.
``--bare-each`` runs it again at each system's number of requests
(``bare_same_requests``, and ``vs_bare_same``): a run of a few ``rounds`` (requests /
connections) loses its start (every sample in flight is set up before the first
call goes out) and its last, partly filled round, which a run of forty rounds hardly
feels, so only a bare run of the same size tells normlab's share of the gap from
the size's. ``--faults`` injects 20% rate limits
and server errors, 10% malformed or cut-off bodies and 5% held requests
(``NORMLAB_ATTEMPT_TIMEOUT`` 2 s) and reports how many planned samples completed and the
retries the report counts.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.endpoint import EndpointConfig, EndpointProcess, Faults
from normlab.core.evalrun import samples_in_flight

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests"
SWEEP_FAULTS = Faults(
    rate_limit=0.1, server_error=0.1, malformed=0.05, truncated=0.05, timeout=0.05
)


@dataclass(frozen=True)
class System:
    name: str
    script: Path
    roles: tuple[str, ...]
    arguments: Callable[[Path, int], list[str]]
    """The run's options for a sweep of ``size`` (given a scratch folder for inputs)."""
    planned: Callable[[int], int]
    """Samples × epochs the sweep of ``size`` plans."""
    second_script: tuple[str, Path] | None = None
    """A role answered by another script (HSII's reference), on an endpoint of its own."""


LOSONA_MAX_K = 100
"""LoSoNA's K is at most 100; a larger size runs copies of the scenarios under new ids."""


def _losona_shape(size: int) -> tuple[int, int]:
    """(copies of the two scenarios, K) for a sweep of ``size``: K = size up to 100."""
    copies = -(-size // LOSONA_MAX_K)
    return copies, -(-size // copies)


def _losona(scratch: Path, size: int) -> list[str]:
    copies, k = _losona_shape(size)
    data = FIXTURES / "losona/fixtures/scenarios.jsonl"
    if copies > 1:
        rows = [json.loads(line) for line in data.read_text().splitlines() if line.strip()]
        data = scratch / "scenarios.jsonl"
        with data.open("w") as out:
            for copy in range(copies):
                for row in rows:
                    copied = {**row, "scenario_id": f"{row['scenario_id']}-copy{copy}"}
                    out.write(json.dumps(copied) + "\n")
    return ["--data", str(data), "-c", "naive", "-c", "norm_informed", "-k", str(k)]


def _scene(scratch: Path, size: int) -> list[str]:
    return ["--data", str(FIXTURES / "scene/fixtures/scenarios.jsonl"), "--reps", str(size)]


def _hsii(scratch: Path, size: int) -> list[str]:
    """The three printed cases, each ``size`` times under new ids."""
    source = FIXTURES / "hsii/fixtures/paper_tables.jsonl"
    rows = [json.loads(line) for line in source.read_text().splitlines() if line.strip()]
    cases = scratch / "cases.jsonl"
    with cases.open("w") as out:
        for copy in range(size):
            for number, row in enumerate(rows):
                out.write(json.dumps({**row, "case_id": f"case{number}-copy{copy}"}) + "\n")
    return ["--cases", str(cases), "--epsilon", "2"]


SYSTEMS = {
    "losona": System(
        "losona",
        FIXTURES / "losona/fixtures/script.json",
        ("judge",),
        _losona,
        lambda size: 2 * 2 * math.prod(_losona_shape(size)),
    ),
    "scene": System(
        "scene",
        FIXTURES / "scene/fixtures/script.json",
        ("judge", "persona", "orchestrator", "auditor"),
        _scene,
        lambda size: 2 * size,
    ),
    "hsii": System(
        "hsii",
        FIXTURES / "hsii/fixtures/script.json",
        ("judge", "persona"),
        _hsii,
        lambda size: 3 * size,
        second_script=("reference", FIXTURES / "hsii/fixtures/reference.json"),
    ),
}


def run_arguments(
    system: System, model: str, scratch: Path, size: int, second: str | None = None
) -> list[str]:
    """``SYSTEM run`` with every role on ``model`` (the second script's role on ``second``)."""
    roles = [arg for role in system.roles for arg in ("--role", f"{role}={model}")]
    if system.second_script and second:
        roles += ["--role", f"{system.second_script[0]}={second}"]
    return [system.name, "run", "--model", model, *roles, *system.arguments(scratch, size)]


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _wait(process: subprocess.Popen[Any]) -> int:
    """Wait for ``process``; its peak resident memory in MB (what the samples in flight
    hold), from the kernel's accounting of the child."""
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    return round(usage.ru_maxrss / 1024)


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _chain(events: list[Any]) -> int:
    """The calls of one sample that ran one after another: the most of its endpoint calls
    (a cache hit takes no latency) of which none overlaps another, each from its request to
    its reply. Calls a sample makes at once overlap, so they count once, and the sample can
    still not finish sooner than this many latencies."""
    spans = sorted(
        (e.completed, e.timestamp)
        for e in events
        if not e.error and e.cache != "read" and e.completed is not None
    )
    count, free_from = 0, None
    for end, start in spans:
        if free_from is None or start >= free_from:
            count, free_from = count + 1, end
    return count


def _read_logs(folder: Path) -> dict[str, Any]:
    from normlab.core.logs import logs_in_folder, read_samples

    paths = [path for path in logs_in_folder(folder) if path.suffix == ".eval"]
    samples = read_samples(paths).samples
    depth = 0
    retries = 0
    for item in samples:
        events = [e for e in item.sample.events if e.event == "model"]
        depth = max(depth, _chain(events))
        retries += sum((e.retries or 0) + (1 if e.error else 0) for e in events)
    # The eval's span: its first sample's start to its last sample's end (the logs' own
    # start and end times are whole seconds).
    starts = [item.sample.started_at for item in samples if item.sample.started_at]
    ends = [item.sample.completed_at for item in samples if item.sample.completed_at]
    wall = (
        (max(map(_instant, ends)) - min(map(_instant, starts))).total_seconds()
        if starts and ends
        else None
    )
    return {"samples": len(samples), "depth": depth, "retries": retries, "eval_wall_s": wall}


def sweep(
    system: System,
    latency: float,
    connections: int,
    size: int,
    shards: int,
    faults: Faults,
    scratch: Path,
) -> dict[str, Any]:
    folder = scratch / system.name
    folder.mkdir(parents=True)
    logs = folder / "logs"
    with contextlib.ExitStack() as stack:
        endpoint = stack.enter_context(
            EndpointProcess(
                EndpointConfig(
                    script=system.script, latency=latency, faults=faults, timeout_hold=60
                ),
                folder,
            )
        )
        endpoints = [endpoint]
        model = "openai-api/sweep/scripted"
        env = {
            **os.environ,
            **endpoint.env("sweep"),
            "INSPECT_DISPLAY": "none",
            "INSPECT_CACHE_DIR": str(folder / "cache"),
            "NORMLAB_ATTEMPT_TIMEOUT": "2" if faults.timeout else "600",
        }
        second = None
        if system.second_script:
            role, script = system.second_script
            (folder / role).mkdir()
            other = stack.enter_context(
                EndpointProcess(
                    EndpointConfig(script=script, latency=latency, faults=faults, timeout_hold=60),
                    folder / role,
                )
            )
            endpoints.append(other)
            env.update(other.env("second"))
            second = "openai-api/second/scripted"
        command = [
            sys.executable, "-m", "normlab.cli",
            *run_arguments(system, model, folder, size, second),
            "--max-connections", str(max(1, connections // shards)),
            "--log-dir", str(logs), "--json",
        ]  # fmt: skip
        outputs = [folder / f"stderr-{i}.txt" for i in range(1, shards + 1)]
        cpu_before = _children_cpu()
        started = time.perf_counter()
        processes = []
        for i, output in enumerate(outputs, start=1):
            with output.open("w") as stderr:
                processes.append(
                    subprocess.Popen(
                        [*command, *(["--shard", f"{i}/{shards}"] if shards > 1 else [])],
                        env=env,
                        cwd=folder,
                        stdout=subprocess.DEVNULL,
                        stderr=stderr,
                    )
                )
        peak_rss = max(_wait(process) for process in processes)
        command_wall = time.perf_counter() - started
        cpu = _children_cpu() - cpu_before
        errors = [output.read_text() for output in outputs]
        failed = [e.strip().splitlines()[-1] for p, e in zip(processes, errors, strict=True)
                  if p.returncode != 0 and e.strip()]  # fmt: skip
        counts = [item.stats() for item in endpoints]
    found = _read_logs(logs)
    return {
        "system": system.name,
        "planned_samples": system.planned(size),
        "completed_samples": found["samples"],
        "failed": failed,
        "calls": sum(count["replies"] for count in counts),
        "endpoint_faults": counts[0]["faults"],
        "retries_in_logs": found["retries"],
        **_figures(found, counts, latency, connections, command_wall, cpu),
        "peak_rss_mb": peak_rss,
    }


def _figures(
    found: dict[str, Any],
    counts: list[dict[str, Any]],
    latency: float,
    connections: int,
    command_wall: float,
    cpu: float,
) -> dict[str, Any]:
    """Requests, depth, the bound and the measured times beside it (see the module docstring)."""
    requests = sum(count["requests"] for count in counts)
    bound = max(found["depth"] * latency, requests * latency / connections)
    wall = found["eval_wall_s"]
    return {
        "requests": requests,
        "rounds": round(requests / connections, 2),
        "depth": found["depth"],
        "bound_s": round(bound, 2),
        "eval_wall_s": None if wall is None else round(wall, 2),
        "command_wall_s": round(command_wall, 2),
        "bound_ratio": None if not wall else round(bound / wall, 3),
        "calls_per_s": None if not wall else round(requests / wall, 1),
        "cpu_s": round(cpu, 2),
        "cpu_ms_per_call": round(1000 * cpu / max(1, requests), 2),
        "peak_in_flight": counts[0]["peak_in_flight"],
    }


def _versus(sweep: dict[str, Any], bare: dict[str, Any]) -> float | None:
    """A sweep's bound ratio over bare Inspect's (1.0: as close to the endpoint's bound)."""
    if not sweep["bound_ratio"] or not bare["bound_ratio"]:
        return None
    return round(float(sweep["bound_ratio"]) / float(bare["bound_ratio"]), 3)


def bare(
    latency: float, connections: int, samples: int, shards: int, scratch: Path, name: str = "bare"
) -> dict[str, Any]:
    """The same shape of work (two calls per sample) as a bare Inspect task, no normlab code,
    in as many processes as the sweep's shards: the most any Inspect-based tool gets here."""
    folder = scratch / name
    folder.mkdir()
    logs = folder / "logs"
    script = FIXTURES / "losona/fixtures/script.json"
    with EndpointProcess(EndpointConfig(script=script, latency=latency), folder) as endpoint:
        env = {**os.environ, **endpoint.env("bare"), "INSPECT_DISPLAY": "none"}
        cpu_before = _children_cpu()
        started = time.perf_counter()
        each = samples // shards
        share = max(1, connections // shards)
        child = [sys.executable, "-m", "benchmarks.sweep", "--bare-child", str(each),
                 "--connections", str(share),
                 "--bare-in-flight", str(samples_in_flight(share))]  # fmt: skip
        processes = [
            subprocess.Popen(
                [*child, "--bare-first", str(i * each), "--out", str(logs / f"shard-{i}")],
                env=env,
                cwd=REPO,
            )
            for i in range(shards)
        ]
        peak_rss = max(_wait(process) for process in processes)
        if any(process.returncode != 0 for process in processes):
            raise SystemExit("the bare Inspect task failed")
        command_wall = time.perf_counter() - started
        cpu = _children_cpu() - cpu_before
        counts = [endpoint.stats()]
    found = _read_logs(logs)
    return {
        "system": "bare inspect",
        "completed_samples": found["samples"],
        **_figures(found, counts, latency, connections, command_wall, cpu),
        "peak_rss_mb": peak_rss,
    }


def _bare_child(
    first: int, samples: int, connections: int, in_flight: int | None, log_dir: Path
) -> None:
    from inspect_ai import Task, eval_set
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.scorer import Score, Scorer, Target, accuracy, scorer
    from inspect_ai.solver import TaskState, generate

    @scorer(metrics=[accuracy()])
    def judge() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            prompt = f"You are judging\nMESSAGE BEING JUDGED\n{state.output.completion}"
            await get_model(role="judge").generate(prompt)
            return Score(value=1)

        return score

    text = "There may be a repeated local pattern. Your next message: " + "word " * 300
    dataset = [Sample(id=i, input=text) for i in range(first, first + samples)]
    eval_set(
        [Task(dataset=dataset, solver=generate(), scorer=judge())],
        log_dir=str(log_dir),
        model="openai-api/bare/scripted",
        model_roles={"judge": "openai-api/bare/scripted"},
        max_connections=connections,
        max_samples=in_flight,
        log_realtime=False,
        display="none",
    )


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--systems", default="losona,scene,hsii")
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--size", type=int, default=40, help="K, reps or copies per system")
    parser.add_argument("--shards", type=int, default=1)
    parser.add_argument("--faults", action="store_true")
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--bare-each", action="store_true")
    parser.add_argument("--bare-child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--bare-first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--bare-in-flight", type=int, default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.bare_child is not None:
        _bare_child(
            arguments.bare_first,
            arguments.bare_child,
            arguments.connections,
            arguments.bare_in_flight,
            arguments.out,
        )
        return
    faults = SWEEP_FAULTS if arguments.faults else Faults()
    results: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="normlab-sweep-") as scratch:
        for name in arguments.systems.split(","):
            results.append(
                sweep(
                    SYSTEMS[name],
                    arguments.latency,
                    arguments.connections,
                    arguments.size,
                    arguments.shards,
                    faults,
                    Path(scratch),
                )
            )
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        if arguments.bare:
            samples = max(r["requests"] for r in results) // 2
            results.append(
                bare(
                    arguments.latency,
                    arguments.connections,
                    samples,
                    arguments.shards,
                    Path(scratch),
                )
            )
        for result in results if arguments.bare_each else []:
            if result["system"] not in SYSTEMS or not result["requests"]:
                continue
            same = bare(
                arguments.latency,
                arguments.connections,
                result["requests"] // 2,
                arguments.shards,
                Path(scratch),
                f"bare-{result['system']}",
            )
            result["bare_same_requests"] = {
                key: same[key] for key in ("requests", "eval_wall_s", "bound_ratio")
            }
            result["vs_bare_same"] = _versus(result, same)
        if arguments.bare:
            for result in results[:-1]:
                result["vs_bare"] = _versus(result, results[-1])
    summary = {
        "latency_s": arguments.latency,
        "connections": arguments.connections,
        "size": arguments.size,
        "shards": arguments.shards,
        "faults": arguments.faults,
        "cores": os.cpu_count(),
        "sweeps": results,
    }
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
