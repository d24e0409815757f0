"""Measure a small SCENE sweep on the embedded model from a fresh clone.

    python -m benchmarks.scene_sweep_timing [--tuples 2] [--reps 1] [--max-turns 4] [--out F]

Clones HEAD into a temporary folder, runs ``make setup``, then
``normlab scene run --tuples N --reps R --max-turns T`` (every role on the
embedded model) and ``normlab scene report``, timing each. Reads the logs back
for calls and tokens per episode by role, the share of each caller's prompt
that repeats its previous prompt, and the share of input tokens llama.cpp
served from its prompt cache. Prints a JSON summary.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.quickstart_timing import timed
from normlab.scene.analysis import analyze, load_run


def measure(repo: Path, tuples: int, reps: int, max_turns: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="normlab-scene-") as scratch:
        clone = Path(scratch) / "normlab"
        subprocess.run(["git", "clone", "--quiet", str(repo), str(clone)], check=True)
        env = {**os.environ, "NORMLAB_CACHE_DIR": str(Path(scratch) / "cache")}
        env.pop("VIRTUAL_ENV", None)
        setup_s, _ = timed(["make", "setup"], clone, env)
        logs = clone / "runs" / "scene-sweep"
        command = [
            ".venv/bin/normlab", "scene", "run", "--tuples", str(tuples), "--reps", str(reps),
            "--max-turns", str(max_turns), "--log-dir", str(logs),
            "--report-dir", str(clone / "report"),
        ]  # fmt: skip
        run_s, _ = timed(command, clone, env)
        run = load_run([logs])
        records = run.records
        summary = analyze(run)
        (model,) = summary.models.values()
        (usage,) = summary.usage.values()
        return {
            "setup_seconds": round(setup_s, 1),
            "sweep_seconds": round(run_s, 1),
            "setup_plus_sweep_seconds": round(setup_s + run_s, 1),
            "episodes": len(records),
            "max_turns": max_turns,
            "rounds_played": [r.episode.rounds for r in records],
            "terminations": [r.episode.termination for r in records],
            "report_written": (clone / "report" / "report.html").is_file(),
            "prompt_reuse_by_role": model.prompt_reuse,
            "per_episode_by_role": {
                role: {
                    "calls": item.calls / usage.units,
                    "input_tokens": item.input_tokens / usage.units,
                    "cached_share": item.cached_share,
                    "output_tokens": item.output_tokens / usage.units,
                }
                for role, item in usage.roles.items()
            },
            "judge_labelled_episodes": model.episodes - model.unlabelled_episodes,
            "validity": model.validity,
        }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--tuples", type=int, default=2)
    parser.add_argument("--reps", type=int, default=1)
    parser.add_argument("--max-turns", type=int, default=4)
    arguments = parser.parse_args()
    summary = measure(arguments.repo, arguments.tuples, arguments.reps, arguments.max_turns)
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
