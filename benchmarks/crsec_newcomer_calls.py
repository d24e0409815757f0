"""Count the model calls per simulated hour after a newcomer joins a CRSEC society.

    python -m benchmarks.crsec_newcomer_calls [--out results.json]
    python -m benchmarks.crsec_newcomer_calls --model embedded   # a real (0.5B) model, small

For each setting it runs a society to its end, then ``normlab crsec newcomer``'s runs (the
base model, the norm-memory agent and the newcomer-free control, seed 0) for ``--hours``
simulated hours, and counts from their event logs the calls per newcomer hour: every agent's
(the society's and the newcomer's), the newcomer's own, and the newcomer's by operation (its
re-plans after a conversation among them, under ``plan`` and ``actions``). The judge is not
run (its verdicts are the analysis's, counted apart).

- ``tests``: the tests' scripted society (3 agents of Hobbs Cafe, 9–11, 15-minute ticks) and
  newcomer, which smokes inside, is sanctioned in its first hour and then smokes outside;
- ``busy``: Hobbs Cafe's 10 agents (9–11, 5-minute ticks) on ``benchmarks.crsec_calls``'s busy
  script (every observation conflicts, every observer talks, conversations run to their cap),
  society and newcomer alike: the upper bound at the paper's size;
- with ``--model M``: two agents (Bob Johnson, Carlos Gomez) and the newcomer on M, one hour
  of 60-minute ticks before the arrival and one after, 2-utterance chats (the demo's
  setting; on the embedded model a plumbing check of about ten minutes on 2 CPU cores).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.crsec_calls import busy_script, paper_config
from normlab.crsec.newcomer.measure import newcomer_hours
from normlab.crsec.newcomer.setup import Newcomers, newcomer_setup, plan
from normlab.crsec.runner import simulate as simulate_society
from normlab.crsec.runner import simulate_runs
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.events import CallEvent
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.society import HOBBS_CAFE
from normlab.models import DEFAULT_MODEL

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "crsec" / "fixtures"


def society_run(
    folder: Path,
    model: str,
    agents: str | None,
    hours: str,
    tick_minutes: int,
    max_utterances: int | None = None,
) -> float:
    """The society, simulated to its end (one day); seconds taken."""
    config = paper_config(
        HOBBS_CAFE,
        model,
        {
            "hours": hours,
            "agents": agents,
            "tick_minutes": tick_minutes,
            "max_utterances": max_utterances,
        },
    )
    RunDir(folder).create(config)
    started = time.perf_counter()
    simulate_society([folder], None, None, report=False)
    return time.perf_counter() - started


def newcomer_calls(source: Path, out: Path, subject: str, hours: int) -> dict[str, Any]:
    """Per arm: calls per newcomer hour (all, the newcomer's, by operation)."""
    folders = plan(Newcomers(source, out, subject, ["base", "norm-memory"], [0], hours))
    started = time.perf_counter()
    simulate_runs(folders, None, None)
    seconds = time.perf_counter() - started
    result: dict[str, Any] = {"seconds (the three arms)": round(seconds, 1)}
    for folder in folders:
        setup = newcomer_setup(folder)
        run = RunDir(folder)
        counted = newcomer_hours(run.events(), setup, clock_of(run.config()))
        own = Counter(
            event.data.operation
            for event in run.events()
            if isinstance(event, CallEvent)
            and event.tick >= setup.start_tick
            and event.agent == setup.name
        )
        result[setup.agent] = {
            "hours": len(counted),
            "calls per hour": round(sum(h.calls for h in counted) / len(counted), 1),
            "newcomer calls per hour": round(
                sum(h.newcomer_calls for h in counted) / len(counted), 1
            ),
            "newcomer calls by operation": dict(own.most_common()),
            "conflicts per hour": [h.conflicts for h in counted],
            "sanctions per hour": [h.sanctions for h in counted],
        }
    return result


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--hours", type=int, default=2, help="newcomer hours (scripted)")
    parser.add_argument("--model", default=None, help="also measure on this model "
                        "('embedded': the embedded default), small and with --hours 1")  # fmt: skip
    arguments = parser.parse_args()
    summary: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="crsec-newcomer-") as scratch:
        root = Path(scratch)
        society = f"scripted/{FIXTURES / 'newcomer_society.json'}"
        society_run(root / "tests", society, "Bob Johnson,Isabella Rodriguez,Carlos Gomez",
                    "9-11", 15)  # fmt: skip
        summary["tests"] = newcomer_calls(
            root / "tests", root / "tests-newcomer",
            f"scripted/{FIXTURES / 'newcomer_subject.json'}", arguments.hours,
        )  # fmt: skip
        busy = root / "busy.json"
        busy.write_text(json.dumps(busy_script()))
        society_run(root / "busy", f"scripted/{busy}", None, "9-11", 5)
        summary["busy"] = newcomer_calls(
            root / "busy", root / "busy-newcomer", f"scripted/{busy}", arguments.hours
        )
        if arguments.model:
            model = DEFAULT_MODEL if arguments.model == "embedded" else arguments.model
            seconds = society_run(root / "real", model, "Bob Johnson,Carlos Gomez", "9-10", 60, 2)
            summary["model"] = {
                "model": model,
                "society seconds": round(seconds, 1),
                **newcomer_calls(root / "real", root / "real-newcomer", model, 1),
            }
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
