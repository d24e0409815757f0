"""A norm refused in a first conversation and accepted in a second (Figure 3's path).

    python -m benchmarks.crsec_second_chat [--keep DIR] [--out results.json]

The paper's case study (Figure 3) is a smoker told twice: after the first talk he smokes again,
after the second "such information passed the immediate evaluation". That needs a refused
norm to be evaluated again when it is heard again in the same words, since the paper checks
duplication against the qualified norms only (§2.3.1); normlab used to skip any words already
in the database, refused ones included, so the second talk could never persuade (issue 31).

This runs the scripted converge society (``tests/crsec/fixtures/converge.json``: Bob Johnson,
the entrepreneur, holds "No smoking indoors."; Carlos Gomez and Tamara Rodriguez smoke at
their tables until someone who holds the norm talks to them; hours 9–12, 5-minute ticks,
seed 0) with a variant of its script, in the default mode and in ``--faithful``:

- Carlos answers Bob back ("It's my table, Bob…") and his evaluation of that talk refuses
  the norm (the consistency check fails); his evaluation of a talk with anyone else passes;
- an agent who holds the norm and does not smoke (Bob, Tamara) drinks coffee at a table all
  hour; Carlos, once he holds it, smokes outside.

So Bob talks to Tamara at 9:00 (she accepts), Bob to Carlos at 10:00 (refused), and Tamara,
who now holds the norm, to Carlos at 11:00 (Bob may not: the pair buffer keeps him away for
130 minutes): the same words, accepted. The benchmark prints Carlos's path about the norm
from each run's events (``normlab crsec trace``'s timeline) and whether it went refuse →
accept. Everything is scripted and seeded: the output is the same on every run.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.crsec_calls import paper_config
from normlab.crsec.analysis.trace import TraceEntry, trace
from normlab.crsec.runner import model_client
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.society import HOBBS_CAFE

CONVERGE = Path(__file__).resolve().parents[1] / "tests" / "crsec" / "fixtures" / "converge.json"
AGENTS = "Bob Johnson,Carlos Gomez,Tamara Rodriguez"
LISTENER = "Carlos Gomez"
NORM_ID = "no_smoking_indoors"
HOURS = "9-12"
PATH_KINDS = ("conversation", "identified", "rejected", "qualified", "evaluation")
"""The trace's lines that make up a norm's way into (or past) a database."""

PASS = {"consistent": True, "duplicate": False, "is_norm": True, "type_correct": True,
        "conflict": False, "utility": 80, "reason": "fits"}  # fmt: skip
REFUSE = {**PASS, "consistent": False, "reason": "Carlos turned Bob down: nothing in the talk"
          " makes it a shared rule"}  # fmt: skip
COFFEE = {"action": "drinking coffee at a table", "minutes": 60, "place": "Hobbs Cafe"}
SMOKE_OUTSIDE = [
    {"action": "drinking coffee at a table", "minutes": 30, "place": "Hobbs Cafe"},
    {"action": "smoking outside by the door", "minutes": 30, "place": "outside Hobbs Cafe"},
]
VARIANT_RULES: list[tuple[str, dict[str, Any]]] = [
    # Carlos's first talk, with Bob: he answers back, and his evaluation refuses the norm
    ("You are Carlos Gomez[\\s\\S]*talking with Bob Johnson[\\s\\S]*Say your next line",
     {"utterance": "(keeps smoking) It's my table, Bob. I'll smoke where I like.", "end": True}),
    ("You are Carlos Gomez[\\s\\S]*Run the four checks[\\s\\S]*RELATED CHAT_THOUGHT: Bob Johnson:",
     REFUSE),
    ("You are Carlos Gomez[\\s\\S]*\\[Fact Consistency Check\\][\\s\\S]*"
     "RELATED CHAT_THOUGHT: Bob Johnson:", {"consistent": False}),
    # otherwise every check passes: the merged call (whose prompt names the four checks too),
    # then --faithful's four checks and its utility
    ("Run the four checks", PASS),
    ("\\[Fact Consistency Check\\]", {"consistent": True}),
    ("\\[Duplicate Check\\]", {"duplicate": False}),
    ("\\[Type Accuracy Check\\]", {"is_norm": True, "type_correct": True}),
    ("TASK: Check for conflicts", {"conflict": False}),
    ("How much does following", {"utility": 80}),
    # Norm holders: Carlos (a smoker) smokes outside, the others (non-smokers) drink coffee
    ("You are Carlos Gomez[\\s\\S]*YOUR QUALIFIED PERSONAL NORMS:\\n1\\.[\\s\\S]*"
     "describe actions in 5 min increments", {"subtasks": SMOKE_OUTSIDE}),
    ("YOUR QUALIFIED PERSONAL NORMS:\\n1\\.[\\s\\S]*describe actions in 5 min increments",
     {"subtasks": [COFFEE]}),
]  # fmt: skip


def second_chat_script() -> dict[str, Any]:
    """The converge script with :data:`VARIANT_RULES` first (the first matching rule answers)."""
    converge: dict[str, Any] = json.loads(CONVERGE.read_text())
    rules = [{"match": match, "replies": [json.dumps(reply)]} for match, reply in VARIANT_RULES]
    return {**converge, "rules": rules + converge["rules"]}


def create(folder: Path, model: str, faithful: bool, hours: str = HOURS) -> RunDir:
    """The variant society's run folder (created unless it exists)."""
    run = RunDir(folder)
    if not run.exists():
        run.create(
            paper_config(
                HOBBS_CAFE, model, {"hours": hours, "agents": AGENTS, "faithful": faithful}
            )
        )
    return run


def simulate(folder: Path, model: str, faithful: bool) -> None:
    """One run of the variant society (created, or resumed where it stopped)."""
    run = create(folder, model, faithful)
    state = run.checkpoint()
    if state is not None and state.finished:
        return
    outcome = asyncio.run(Simulation(run, model_client(run.config().models)).run())
    if outcome != "finished":
        raise RuntimeError(f"{folder}: the run stopped ({outcome})")


def write_script(folder: Path) -> str:
    """The variant script in ``folder``; the scripted model that answers from it."""
    script = folder / "second_chat.json"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(json.dumps(second_chat_script(), indent=1))
    return f"scripted/{script}"


def norm_path(folder: Path) -> list[TraceEntry]:
    """The listener's conversations, identified items and their verdicts about the norm."""
    return [entry for entry in trace(folder, LISTENER, NORM_ID) if entry.kind in PATH_KINDS]


def refused_then_accepted(path: list[TraceEntry]) -> tuple[str, str] | None:
    """(when refused, when accepted) if the path refuses an item and later qualifies one with
    the same words; None otherwise."""
    for index, entry in enumerate(path):
        if entry.kind != "rejected":
            continue
        words = entry.text.split("'")[1]
        for later in path[index + 1 :]:
            if later.kind == "qualified" and f"'{words}'" in later.text:
                return entry.time, later.time
    return None


def measure(root: Path) -> dict[str, Any]:
    """Both modes' runs under ``root``; each mode's path and its refuse → accept times."""
    model = write_script(root)
    summary: dict[str, Any] = {"society": AGENTS, "hours": HOURS, "listener": LISTENER}
    for mode in ("default", "faithful"):
        folder = root / mode
        simulate(folder, model, faithful=mode == "faithful")
        path = norm_path(folder)
        found = refused_then_accepted(path)
        summary[mode] = {
            "path": [f"{entry.time}  {entry.kind:<12} {entry.text}" for entry in path],
            "refused": found[0] if found else None,
            "accepted": found[1] if found else None,
        }
    return summary


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--keep", type=Path, default=None, help="keep the runs here")
    arguments = parser.parse_args()
    if arguments.keep is not None:
        summary = measure(arguments.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="crsec-second-chat-") as scratch:
            summary = measure(Path(scratch))
    for mode in ("default", "faithful"):
        print(f"{LISTENER}, {NORM_ID} ({mode}):")
        for line in summary[mode]["path"]:
            print(f"  {line}")
        refused, accepted = summary[mode]["refused"], summary[mode]["accepted"]
        verdict = f"refused {refused}, accepted {accepted}" if accepted else "never accepted"
        print(f"  → {verdict}\n")
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
