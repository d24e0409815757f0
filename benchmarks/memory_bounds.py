"""Peak memory of HSII's readers against the size of their input (issue 32, item 4).

    python -m benchmarks.memory_bounds [--news-mb 20] [--src OTHER/src] [--out results.json]

Each command runs in a fresh interpreter that first imports everything the command will
(normlab's CLI, numpy, scikit-learn, the stemmer), notes its peak resident memory
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), runs the command as ``normlab`` would, and
notes the peak again: the growth is what the command itself took, printed beside the size
of its input and as a multiple of it. ``--src`` runs another checkout's ``src`` (the code
before a change) on the same inputs; its interpreter is capped at ``--cap-gb`` of address
space, so a command that would take tens of gigabytes stops with a MemoryError (reported
as the cap) instead of taking the machine.

The inputs, written to a temporary folder:

- ``one-dialogue-200k``: the issue's file, one native dialogue of 200,000 turns (a 9 MB CSV),
  imported with ``hsii import-dialogues`` (it reached 21 GB);
- ``dialogues-500x40``: forty dialogues of 500 turns each (the longest allowed), each turn a
  forum post of about 140 characters, imported (its cases.jsonl is ~0.5 GB: each case holds
  its history, as the bank's format has it);
- ``news-search``: a news JSONL of ``--news-mb`` megabytes searched by ``hsii news search``
  (a 200 MB one took 2.8 GB).
"""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks import command, emit

CHILD = """
import json, resource, sys
import click
cap = int(sys.argv[3])
if cap:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
import numpy, snowballstemmer, sklearn.feature_extraction.text  # what some commands import
import normlab.hsii.cli, normlab.hsii.bank.native, normlab.hsii.bank.news, normlab.hsii.dataset
from normlab.cli import app

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024

base = peak()
try:
    app(json.loads(sys.argv[2]), standalone_mode=False)
    outcome = "ok"
except MemoryError:
    outcome = "memory error (over the cap)"
except SystemExit as done:
    outcome = f"exit {done.code}"
except click.exceptions.Exit as done:
    outcome = f"exit {done.exit_code}"
except Exception as error:
    outcome = f"{type(error).__name__}: {str(error)[:200]}"
with open(sys.argv[1], "w") as handle:
    json.dump({"base": base, "peak": peak(), "outcome": outcome}, handle)
"""


def one_dialogue(path: Path, turns: int) -> Path:
    """One forum thread of ``turns`` turns: two users and a moderator, who answers each user in
    turn (so about a third of the turns are the assistant's, each a case)."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["dialogue_id", "turn", "speaker", "addressee", "text"])
        for turn in range(1, turns + 1):
            kind = turn % 3
            speaker, addressee = [("mod", "ann" if turn % 2 else "bo"), ("ann", "mod"),
                                  ("bo", "ann")][kind]  # fmt: skip
            writer.writerow(["thread", turn, speaker, addressee, f"Point {turn} about the bins."])
    return path


POST = (
    "The bins on our street were not collected this week again, and the new rota the council "
    "posted does not say which day the recycling goes out."
)
"""A forum post's length (about 140 characters), for the dialogues of ordinary length."""


def many_dialogues(path: Path, dialogues: int, turns: int) -> Path:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["dialogue_id", "turn", "speaker", "addressee", "text"])
        for dialogue in range(dialogues):
            for turn in range(1, turns + 1):
                kind = turn % 3
                speaker, addressee = [("mod", "ann" if turn % 2 else "bo"), ("ann", "mod"),
                                      ("bo", "ann")][kind]  # fmt: skip
                writer.writerow([f"t{dialogue}", turn, speaker, addressee, f"{turn}: {POST}"])
    return path


def news_corpus(path: Path, megabytes: float) -> Path:
    """Items of 200 words drawn from a 20,000-word vocabulary, "flood" in every tenth title."""
    rng = random.Random(0)
    vocabulary = [f"{rng.choice('bcdfglmnprst')}{word:x}ing" for word in range(20_000)]
    size, number = 0, 0
    with path.open("w", encoding="utf-8") as handle:
        while size < megabytes * 1e6:
            words = " ".join(rng.choice(vocabulary) for _ in range(200))
            title = f"Flood report {number}" if number % 10 == 0 else f"Report {number}"
            row = json.dumps({"id": f"n{number}", "title": title, "text": f"{words}."})
            handle.write(row + "\n")
            size += len(row) + 1
            number += 1
    return path


def measure(args: list[str], input_path: Path, src: Path | None, cap_gb: float) -> dict[str, Any]:
    """Run ``normlab ARGS`` in a fresh interpreter; its peak memory growth against the input."""
    with tempfile.TemporaryDirectory() as scratch:
        result = Path(scratch) / "result.json"
        environment = dict(os.environ)
        if src is not None:
            environment["PYTHONPATH"] = f"{src}{os.pathsep}{environment.get('PYTHONPATH', '')}"
        cap = int(cap_gb * (1 << 30)) if src is not None else 0
        child = subprocess.run(
            [sys.executable, "-c", CHILD, str(result), json.dumps(args), str(cap)],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        # A child that runs out of its capped memory inside native code (pydantic's) aborts
        # rather than raising a MemoryError, and writes nothing.
        size = input_path.stat().st_size
        if not result.exists():
            died = f"died at the {cap_gb:g} GiB cap (exit {child.returncode})"
            return {"input_mb": round(size / 1e6, 1), "growth_mb": None, "outcome": died}
        found = json.loads(result.read_text())
    growth = int(found["peak"]) - int(found["base"])
    return {
        "input_mb": round(size / 1e6, 1),
        "growth_mb": round(growth / 1e6, 1),
        "growth_over_input": round(growth / size, 2),
        "outcome": found["outcome"],
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--news-mb", type=float, default=20.0)
    parser.add_argument("--src", type=Path, default=None, help="Another checkout's src folder.")
    parser.add_argument("--cap-gb", type=float, default=4.0)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        thread = one_dialogue(root / "thread.csv", 200_000)
        forty = many_dialogues(root / "forty.csv", 40, 500)
        corpus = news_corpus(root / "news.jsonl", arguments.news_mb)
        runs = {
            "one-dialogue-200k": (
                [
                    "hsii",
                    "import-dialogues",
                    str(thread),
                    "--out",
                    str(root / "a"),
                    "--assistant",
                    "mod",
                ],
                thread,
            ),
            "dialogues-500x40": (
                [
                    "hsii",
                    "import-dialogues",
                    str(forty),
                    "--out",
                    str(root / "b"),
                    "--assistant",
                    "mod",
                ],
                forty,
            ),
            "news-search": (
                ["hsii", "news", "search", "--corpus", str(corpus), "--keywords", "flood"],
                corpus,
            ),
        }
        summary = {
            "src": str(arguments.src or "this checkout"),
            **{
                name: measure(args, path, arguments.src, arguments.cap_gb)
                for name, (args, path) in runs.items()
            },
        }
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
