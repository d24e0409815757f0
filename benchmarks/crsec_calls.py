"""Count CRSEC's model calls for 10 agents × 2 simulated days, by operation, and the prefix reuse.

    python -m benchmarks.crsec_calls [--out results.json]

Runs Hobbs Cafe on a scripted "busy" model, the upper bound the issue asks for: every
observation conflicts and every observer decides to talk, conversations never end before
their cap, every conversation and every thought yields new normative information (drawn
from 60 distinct norms, so few items are exact duplicates), and every check passes. It
runs the default mode and ``--faithful`` (one call per operation as the paper describes),
and reports calls by operation and the share of each agent's prompt characters that
repeat its previous prompt (what a prompt cache can reuse). No model is downloaded.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai.model import get_model

from benchmarks import command, emit
from normlab.crsec.analysis.figure2 import prompt_prefix_shares
from normlab.crsec.sim.events import CallEvent
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import RunConfig
from normlab.crsec.sim.society import load_society
from normlab.models import ModelClient

TOPICS = ["smoking", "noise", "tipping", "litter", "queueing", "phones"]
PLACES = ["inside the cafe", "at the counter", "near the stage", "in shared spaces",
          "after meals", "during performances", "in the mornings", "around children",
          "at the tables", "by the door"]  # fmt: skip


def paper_config(society: Path, model: str | dict[str, str], runs: dict[str, Any]) -> RunConfig:
    """A run's config as the CRSEC benchmarks set it: the paper's setting (no ablation,
    synthesis on the paper's trigger, no classification hint, seed 0, one day) with ``runs``
    overriding ``configure``'s other arguments; ``model`` every role's, or the roles'."""
    from normlab.crsec.runner import configure

    models = {"agent": model, "judge": model} if isinstance(model, str) else model
    setting: dict[str, Any] = {
        "seed": 0, "days": 1, "hours": None, "agents": None, "tick_minutes": None,
        "faithful": False, "ablations": [], "synthesis_trigger": "paper",
        "max_utterances": None, "classify_hint": False,
    }  # fmt: skip
    return configure(society, models, **{**setting, **runs})


def busy_script() -> dict[str, Any]:
    norms = [f"No {topic} {place}." for topic in TOPICS for place in PLACES]

    def reply(value: Any) -> str:
        return json.dumps(value)

    hours = [{"hour": hour, "activity": "spend the hour at Hobbs Cafe"} for hour in range(24)]
    subtasks = [
        {"action": f"smoking and talking loudly ({minute})", "minutes": 5, "place": "Hobbs Cafe"}
        for minute in range(12)
    ]  # a new visible action every tick: every co-located agent is observed every tick
    rules = [
        ("TASK: generate 5 norms", [reply({"norms": [
            {"type": "injunctive", "content": norm, "utility": 90} for norm in norms[:5]]})]),
        ("plan today align", [reply({"plan": hours})]),
        ("in 5 min increments", [reply({"subtasks": subtasks})]),
        ("This is a two-stage task", [reply({"findings": [
            {"observation": i, "conflict": True, "talk": True, "topic": "smoking"}
            for i in range(1, 10)]})]),
        ("Say your next line", [reply({"utterance": "(frowns) Please stop that.", "end": False})]),
        ("following the PRINCIPLE\\.", [reply({"normative": True, "norms": [
            {"content": norm, "type": "injunctive"}]}) for norm in norms]),
        ("following the PRINCIPLES\\.", [reply({"normative": True, "norms": [
            {"content": a, "type": "injunctive", "source": 1},
            {"content": b, "type": "injunctive", "source": 2}]})
            for a, b in zip(norms, reversed(norms), strict=True)]),
        ("What do you think", [reply({"thoughts": ["That was rude.", "People should care."]})]),
        ("Run the four checks", [reply({"consistent": True, "duplicate": False, "is_norm": True,
                                        "type_correct": True, "conflict": False, "utility": 60})]),
        ("\\[Fact Consistency Check\\]", [reply({"consistent": True})]),
        ("\\[Duplicate Check\\]", [reply({"duplicate": False})]),
        ("\\[Type Accuracy Check\\]", [reply({"is_norm": True, "type_correct": True})]),
        ("TASK: Check for conflicts", [reply({"conflict": False})]),
        ("How much does following", [reply({"utility": 60})]),
        ("Categorize QUALIFIED", [reply({"categories": [
            {"theme": "Pair", "members": [1, 2]}, {"theme": "Pair", "members": [3, 4]}]})]),
        ("\\[Synthesis\\]", [reply({"theme": "Pair", "abstract": f"Be considerate {place}.",
                                   "weights": [0.5, 0.5]}) for place in PLACES]),
    ]  # fmt: skip
    return {"rules": [{"match": match, "replies": replies} for match, replies in rules]}


def measure(folder: Path, model: str, faithful: bool) -> dict[str, Any]:
    society = load_society()
    config = RunConfig(
        society=society,
        society_file="hobbs_cafe.json",
        models={"agent": model, "judge": model},
        faithful=faithful,
        max_utterances=10 if faithful else 6,
    )
    run = RunDir(folder)
    run.create(config)
    started = time.perf_counter()
    asyncio.run(Simulation(run, ModelClient({"agent": get_model(model)})).run())
    seconds = time.perf_counter() - started
    calls = [event for event in run.events() if isinstance(event, CallEvent)]
    share, _ = prompt_prefix_shares(calls)
    metrics = run.metrics()
    return {
        "mode": "faithful" if faithful else "default",
        "agents": len(society.agents),
        "days": society.days,
        "calls": len(calls),
        "by_operation": dict(Counter(call.data.operation for call in calls).most_common()),
        "conversations": sum(m.chats for m in metrics),
        "conflicts": sum(m.conflicts for m in metrics),
        "prefix_reuse_share": None if share is None else round(share, 3),
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = command(__doc__)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crsec-calls-") as scratch:
        script = Path(scratch) / "busy.json"
        script.write_text(json.dumps(busy_script()))
        model = f"scripted/{script}"
        summary = {
            "default": measure(Path(scratch) / "default", model, faithful=False),
            "faithful": measure(Path(scratch) / "faithful", model, faithful=True),
        }
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
