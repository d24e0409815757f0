"""Whether llama.cpp's idle threads should spin or sleep, and how many there should be: the
same requests at poll 0 and 50, on 1 thread and on one per core.

    python -m benchmarks.embedded_polling [--poll 0 50] [--threads 1 2] [--busy 0 4]
        [--requests 6] [--out FILE]

For each (busy loops, threads, polling level) it starts a fresh process that sends
``--requests`` chat requests through the embedded provider (``-M poll=P -M n_threads=T``;
~1,500 prompt
tokens sharing a prefix, 120-token replies at temperature 0 with a fixed seed) while
``--busy N`` other processes spin on the cores, and reports wall and CPU seconds. llama.cpp's
default (poll 50) lets worker threads spin while they wait for work, which competes with
everything else when the cores are oversubscribed; normlab sets 0 (``embedded.POLL``).
Measured numbers are quoted in issue 34's closing note.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
from typing import Any

from benchmarks import command, emit
from benchmarks.embedded_slots import PREFIX, answered
from benchmarks.quickstart_timing import busy_loops


async def measure(poll: int, threads: int, requests: int) -> dict[str, Any]:
    prompts = [
        f"{PREFIX}\n\nQuestion {k}: summarize what happened in {k + 1} sentences."
        for k in range(requests)
    ]
    outputs, seconds = await answered(prompts, 120, {"poll": poll, "n_threads": threads})
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "poll": poll,
        "threads": threads,
        "seconds": round(seconds, 1),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
        "output_tokens": sum(o.usage.output_tokens for o in outputs if o.usage is not None),
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--poll", type=int, nargs="+", default=[0, 50])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, os.cpu_count() or 2])
    parser.add_argument("--busy", type=int, nargs="+", default=[0, 4])
    parser.add_argument("--requests", type=int, default=6)
    parser.add_argument("--child", type=int, nargs=2, default=None, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.child is not None:  # one measurement, in a process of its own
        poll, threads = arguments.child
        print(json.dumps(asyncio.run(measure(poll, threads, arguments.requests))))
        return
    runs = []
    settings = [(poll, threads) for threads in arguments.threads for poll in arguments.poll]
    for busy in arguments.busy:
        for poll, threads in settings:
            with busy_loops(busy):
                child = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "benchmarks.embedded_polling",
                        "--child",
                        str(poll),
                        str(threads),
                        "--requests",
                        str(arguments.requests),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                )
            runs.append({"busy_loops": busy, **json.loads(child.stdout.strip().splitlines()[-1])})
    emit({"runs": runs, "cpu_count": os.cpu_count()}, arguments.out)


if __name__ == "__main__":
    main()
