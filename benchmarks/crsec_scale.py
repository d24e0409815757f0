"""CRSEC at 10 to 100 agents against the model endpoint: calls, wall time and memory per tick.

    python -m benchmarks.crsec_scale [--agents 10,25,50,100] [--hours 9-10] [--days 1]
        [--latency 0.5] [--jitter fixed] [--max-connections 64] [--faithful] [--out F]

For each size, Hobbs Cafe grown to that many agents
(:func:`normlab.crsec.sim.society.scaled_society`: the ten agents, then copies under new surnames)
is simulated in a child process against ``benchmarks/endpoint.py`` as ``openai-api/…`` (the
provider path of any OpenAI-compatible URL), through the client ``normlab crsec run
--max-connections`` builds. The endpoint answers from the "busy" script of
:mod:`benchmarks.crsec_calls`, the upper bound: every observation conflicts, every observer talks,
conversations run to their cap. The default is one simulated
hour (12 ticks) per size; ``--hours 8-16`` is the society's whole day. Per size:

* ``calls_per_tick``: model calls per tick (mean); ``requests`` counts retried ones too;
* ``wall_per_tick_s``: wall time per tick, from the start of the tick to its checkpoint;
* ``peak_rss_mb``: the child's peak resident memory (``ru_maxrss``); ``rss_growth_mb`` is what
  the simulation added to what the process held before its first tick;
* ``cpu_s``: the child's CPU time in the simulation (``process_cpu_s`` adds start-up and
  imports); ``cpu_ms_per_request``: the former per request;
* ``depth``: the longest chain of requests that must run one after another. Phases are
  barriers (a tick's conversations start once every detection is done), and within a phase
  the units (an agent's calls; a conversation's utterances, identification and evaluations)
  run at once, each calling the model one call at a time except where it branches (the
  categories of a synthesis, ``--faithful``'s observations). So depth = Σ over ticks and
  phases of the longest unit's chain, read from ``events.jsonl``: each call event names its
  phase (``reflect``, a branch ``reflect/1``) and agent; in the talk phase the conversation
  event that follows a conversation's calls closes its unit. A request is an attempt or a
  retry of one;
* ``bound_s``: max(depth × latency, requests × latency / connections), the physical bound the
  issue names; ``phase_bound_s`` takes the same max per tick and phase and sums it (the
  phases are barriers, so this one is reachable); ``bound_ratio`` = bound / wall and
  ``phase_bound_ratio`` = phase bound / wall (1.0 = as fast as the endpoint allows);
* ``chain_plus_cpu_s``: depth × latency + ``cpu_s``. The simulation is one event loop: the
  units of a phase advance in lockstep (every conversation's next turn waits for the replies
  of this one), so each step's CPU adds to the latency instead of hiding behind it, and the
  wall time comes out near this sum once the CPU per tick is a fair share of it.

``growth`` gives each measure's exponent: the slope of log(measure) on log(agents), least squares.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.crsec_calls import busy_script, paper_config
from benchmarks.endpoint import EndpointConfig, EndpointProcess
from normlab.crsec.runner import model_client
from normlab.crsec.sim.events import Event
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import HourMetrics, WorldState
from normlab.crsec.sim.society import load_society, scaled_society
from normlab.models import ModelClient
from normlab.norms.records import CallData

REPO = Path(__file__).resolve().parents[1]
SERVICE = "crsecscale"
MODEL = f"openai-api/{SERVICE}/scripted"
TIMING = "timing.json"


class TimedRunDir(RunDir):
    """A run directory that notes when each tick's checkpoint was written, and how long the
    writing took."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.saved: list[tuple[float, float]] = []

    def save(self, state: WorldState, events: list[Event], metrics: list[HourMetrics]) -> None:
        started = time.perf_counter()
        super().save(state, events, metrics)
        ended = time.perf_counter()
        self.saved.append((ended, ended - started))


class TimedSimulation(Simulation):
    """A simulation that notes when each tick starts."""

    def __init__(self, run: TimedRunDir, client: ModelClient) -> None:
        super().__init__(run, client)
        self.started: list[float] = []

    async def step(self, tick: int) -> None:
        self.started.append(time.perf_counter())
        await super().step(tick)


def _rss_mb() -> float:
    """Resident memory now (Linux: /proc/self/statm's second field, in pages)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def child(folder: Path, connections: int) -> None:
    """Simulate the run in ``folder``; write its tick timings and memory to ``timing.json``."""
    run = TimedRunDir(folder)
    simulation = TimedSimulation(run, model_client(run.config().models, connections))
    baseline = _rss_mb()
    started, cpu = time.perf_counter(), time.process_time()
    outcome = asyncio.run(simulation.run())
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    ticks = [
        {"wall_s": ended - start, "save_s": save}
        for start, (ended, save) in zip(simulation.started, run.saved, strict=True)
    ]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    summary = {"outcome": outcome, "wall_s": wall, "cpu_s": cpu, "ticks": ticks,
               "baseline_rss_mb": baseline, "peak_rss_mb": peak}  # fmt: skip
    (folder / TIMING).write_text(json.dumps(summary))


def _requests(call: CallData) -> int:
    return call.attempts + call.retries


def _depth(requests: dict[tuple[str, ...], int], path: tuple[str, ...] = ()) -> int:
    """The requests on the longest chain under ``path``: its own calls one after another, then
    the longest of its branches (calls a caller made at once: ``phase/0``, ``phase/1``…)."""
    branches = {key[: len(path) + 1] for key in requests if len(key) > len(path)}
    return requests.get(path, 0) + max((_depth(requests, branch) for branch in branches), default=0)


def chains(events: list[Event]) -> dict[tuple[int, str], dict[str, int]]:
    """Per (tick, phase): its requests and its depth (the longest chain of one unit)."""
    units: dict[tuple[int, str], dict[str, dict[tuple[str, ...], int]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(int))
    )
    talks: dict[int, int] = defaultdict(int)
    for event in events:
        if event.kind == "conversation":
            talks[event.tick] += 1  # the talk-phase calls before it were this conversation's
        if event.kind != "call":
            continue
        phase, *branch = event.data.phase.split("/")
        unit = f"talk {talks[event.tick]}" if phase == "talk" else event.agent
        units[(event.tick, phase)][unit][tuple(branch)] += _requests(event.data)
    return {
        key: {
            "requests": sum(sum(unit.values()) for unit in found.values()),
            "depth": max(_depth(unit) for unit in found.values()),
        }
        for key, found in units.items()
    }


def measure(
    endpoint: EndpointProcess, scratch: Path, agents: int, arguments: argparse.Namespace
) -> dict[str, Any]:
    folder = scratch / f"agents-{agents}"
    society_file = scratch / f"society-{agents}.json"
    society = scaled_society(load_society(), agents)
    society_file.write_text(society.model_dump_json())
    varied = {"days": arguments.days, "hours": arguments.hours, "faithful": arguments.faithful}
    config = paper_config(society_file, MODEL, varied)
    RunDir(folder).create(config)
    endpoint.reset()
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.crsec_scale", "--child", str(folder),
         "--max-connections", str(arguments.max_connections)],
        cwd=REPO,
        env={**os.environ, **endpoint.env(SERVICE), "INSPECT_DISPLAY": "none"},
    )  # fmt: skip
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"the {agents}-agent run failed (exit {process.returncode})")
    timing = json.loads((folder / TIMING).read_text())
    events = list(RunDir(folder).events())
    calls = [event.data for event in events if event.kind == "call"]
    requests = sum(_requests(call) for call in calls)
    per_phase = chains(events)
    depth = sum(item["depth"] for item in per_phase.values())
    latency, connections = arguments.latency, arguments.max_connections
    phase_bound = sum(
        max(item["depth"] * latency, item["requests"] * latency / connections)
        for item in per_phase.values()
    )
    bound = max(depth * latency, requests * latency / connections)
    ticks = timing["ticks"]
    walls = sorted(item["wall_s"] for item in ticks)
    wall = timing["wall_s"]
    process_cpu = usage.ru_utime + usage.ru_stime
    cpu = timing["cpu_s"]
    metrics = RunDir(folder).metrics()
    return {
        "agents": agents,
        "ticks": len(ticks),
        "calls": len(calls),
        "requests": requests,
        "endpoint_requests": endpoint.stats()["requests"],
        "conversations": sum(m.chats for m in metrics),
        "calls_per_tick": round(len(calls) / len(ticks), 1),
        "wall_s": round(wall, 1),
        "wall_per_tick_s": round(wall / len(ticks), 2),
        "wall_per_tick_median_s": round(walls[len(walls) // 2], 2),
        "save_per_tick_s": round(sum(item["save_s"] for item in ticks) / len(ticks), 3),
        "depth": depth,
        "depth_per_tick": round(depth / len(ticks), 1),
        "bound_s": round(bound, 1),
        "bound_ratio": round(bound / wall, 3),
        "phase_bound_s": round(phase_bound, 1),
        "phase_bound_ratio": round(phase_bound / wall, 3),
        "chain_plus_cpu_s": round(depth * latency + cpu, 1),
        "peak_rss_mb": round(timing["peak_rss_mb"], 1),
        "rss_growth_mb": round(timing["peak_rss_mb"] - timing["baseline_rss_mb"], 1),
        "cpu_s": round(cpu, 1),
        "process_cpu_s": round(process_cpu, 1),
        "cpu_ms_per_request": round(1000 * cpu / max(1, requests), 2),
        "events_mb": round((folder / "events.jsonl").stat().st_size / 2**20, 1),
    }


def exponent(points: list[tuple[float, float]]) -> float | None:
    """The least-squares slope of log y on log x: y grows as x to this power."""
    pairs = [(math.log(x), math.log(y)) for x, y in points if x > 0 and y > 0]
    if len(pairs) < 2:
        return None
    mean_x = sum(x for x, _ in pairs) / len(pairs)
    mean_y = sum(y for _, y in pairs) / len(pairs)
    spread = sum((x - mean_x) ** 2 for x, _ in pairs)
    if not spread:
        return None
    return round(sum((x - mean_x) * (y - mean_y) for x, y in pairs) / spread, 2)


GROWTH = ("calls_per_tick", "wall_per_tick_s", "depth_per_tick", "peak_rss_mb", "rss_growth_mb",
          "cpu_ms_per_request")  # fmt: skip


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--agents", default="10,25,50,100", help="Sizes, comma-separated.")
    parser.add_argument("--hours", default="9-10", help="Active hours START-END.")
    parser.add_argument("--days", type=int, default=1)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--jitter", choices=("fixed", "exp", "uniform"), default="fixed")
    parser.add_argument("--max-connections", type=int, default=64)
    parser.add_argument("--faithful", action="store_true")
    parser.add_argument("--child", type=Path, default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:
        child(arguments.child, arguments.max_connections)
        return
    sizes = [int(size) for size in arguments.agents.split(",")]
    with tempfile.TemporaryDirectory(prefix="crsec-scale-") as name:
        scratch = Path(name)
        script = scratch / "busy.json"
        script.write_text(json.dumps(busy_script()))
        config = EndpointConfig(script=script, latency=arguments.latency, jitter=arguments.jitter)
        with EndpointProcess(config, scratch) as endpoint:
            runs = []
            for size in sizes:
                runs.append(measure(endpoint, scratch, size, arguments))
                print(json.dumps(runs[-1]), file=sys.stderr, flush=True)
    summary = {
        "latency_s": arguments.latency,
        "jitter": arguments.jitter,
        "max_connections": arguments.max_connections,
        "hours": arguments.hours,
        "days": arguments.days,
        "faithful": arguments.faithful,
        "runs": runs,
        "growth": {
            measure: exponent([(run["agents"], run[measure]) for run in runs]) for measure in GROWTH
        },
    }
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
