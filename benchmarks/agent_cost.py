"""Calls and tokens per reply of the norm-learning subject against its model alone (LoSoNA).

    python -m benchmarks.agent_cost [--model M] [--limit 1] [--epochs 1] [--out F]

Runs LoSoNA twice on the same scenarios (the first ``--limit`` shipped ones, the naive
condition, K = ``--epochs``; every role on ``--model``, by default the embedded model):
the model alone (``base``) and ``--agent norm-memory``, each in its own folder under a
temporary directory, timing both. Then reads each run's usage back from its logs (the one
usage path the reports use) and prints, per reply (one trial), calls and input/output
tokens by role, the subject's side (every role but the judge, which measures rather than
answers) of both, and the agent's as a multiple of the base's. The judge's extra calls for
the agent (does a kept norm express the hidden norm?) are shown apart.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from normlab.core.evalrun import run_task
from normlab.losona.analysis import analyze, load_run
from normlab.losona.task import losona
from normlab.models import DEFAULT_MODEL, RoleUsage

JUDGE = "judge"


def per_reply(usage: RoleUsage, replies: int) -> dict[str, float]:
    """Per reply, as a run without Inspect's cache pays: calls answered from the cache (the
    agent's run repeats the base run's judge verdicts at temperature 0) counted as calls."""
    return {
        "calls": round((usage.calls + usage.cache_hits) / replies, 2),
        "input_tokens": round((usage.input_tokens + usage.cache_hit_input_tokens) / replies, 1),
        "output_tokens": round((usage.output_tokens + usage.cache_hit_output_tokens) / replies, 1),
    }


def run_subject(model: str, agent: str, limit: int, epochs: int, folder: Path) -> dict[str, Any]:
    task = losona(conditions="naive", limit_scenarios=limit, epochs=epochs, agent=agent)
    started = time.perf_counter()
    logs = run_task(task, folder, model, {JUDGE: model}, display="none")
    seconds = time.perf_counter() - started
    (usage,) = analyze(load_run(logs)).usage.values()
    subject_side = sum((u for role, u in usage.roles.items() if role != JUDGE), RoleUsage())
    return {
        "seconds": round(seconds, 1),
        "replies": usage.units,
        "per_reply_by_role": {
            role: per_reply(item, usage.units) for role, item in usage.roles.items()
        },
        "per_reply_subject_side": per_reply(subject_side, usage.units),
    }


def measure(model: str, limit: int, epochs: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="normlab-agent-cost-") as scratch:
        runs = {
            agent: run_subject(model, agent, limit, epochs, Path(scratch) / agent)
            for agent in ("base", "norm-memory")
        }
    base, agent = (runs[name]["per_reply_subject_side"] for name in ("base", "norm-memory"))
    return {
        "model": model,
        "benchmark": "losona, naive condition",
        "scenarios": limit,
        "epochs": epochs,
        "runs": runs,
        "agent_over_base_subject_side": {
            key: round(agent[key] / base[key], 2) if base[key] else None for key in base
        },
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    parser.add_argument("--limit", type=int, default=1)
    parser.add_argument("--epochs", type=int, default=1)
    args = parser.parse_args()
    emit(measure(args.model, args.limit, args.epochs), args.out)


if __name__ == "__main__":
    main()
