"""Model calls per case, by stage, of ``normlab hsii build`` on the shipped seed corpus.

    python -m benchmarks.hsii_build_calls [--limit 8] [--k 3] [--out results.json]

Two scripted models: ``clean`` answers every call validly; ``busy`` answers every Prompt-2 call
first with a dialogue in which the assistant addresses one character only, so each dialogue
needs the linter's repair round (as ``hsii generate``'s tests do). Prints, per model, the cases,
the calls per stage and the calls per case per stage (from ``build_report.json``).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from tests.hsii.test_generator import SCENE, dialogue

from benchmarks import command, emit
from normlab.hsii.bank.build import Build, BuildOptions, model_resolver
from normlab.hsii.dataset import NEWS_PATH
from normlab.hsii.prompts import PROMPTS

KEYWORDS = ["flood", "water"]


def script(folder: Path, busy: bool) -> str:
    prompt_1 = PROMPTS.load("scene_from_news").splitlines()[0][:40]
    prompt_2 = PROMPTS.load("dialogue_from_scene").splitlines()[0][:40]
    scores = {"participants": 4, "relationships": 4, "conflicts": 3, "transitions": 4}
    rules: list[dict[str, Any]] = [
        {"match": "^You screen news", "replies": [json.dumps({"toxic": False})]},
        {"match": "^You rate a scenario", "replies": [json.dumps({**scores, "realism": 5})]},
    ]
    if busy:
        rules.append(
            {
                "match": "(?s)Your reply breaks these requirements.*addresses 1 character",
                "replies": [dialogue("BARGE SKIPPER")],
            }
        )
    first = dialogue("HARBOUR OFFICER") if busy else dialogue("BARGE SKIPPER")
    rules += [
        {"match": f"^{prompt_2}", "replies": [first]},
        {"match": f"^{prompt_1}", "replies": [SCENE]},
    ]
    path = folder / f"{'busy' if busy else 'clean'}.json"
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


def measure(limit: int, k: int) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        for busy in (False, True):
            model = script(folder, busy)
            models = {"generator": model, "screener": model}
            options = BuildOptions(
                keywords=KEYWORDS, corpus=str(NEWS_PATH), top=20, limit=limit, k=k, models=models
            )
            name = "busy" if busy else "clean"
            report = Build(folder / name, options, model_resolver(models)).run()
            results[name] = {
                "cases": report.cases,
                "dialogues": report.dialogues,
                "calls": {
                    s.stage: sum(u.calls for u in s.usage.values())
                    for s in report.stages
                    if s.usage
                },
                "calls_per_case": report.calls_per_case,
            }
    return {"keywords": KEYWORDS, "limit": limit, "k": k, "models": results}


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--limit", type=int, default=8)
    parser.add_argument("--k", type=int, default=3)
    arguments = parser.parse_args()
    emit(measure(arguments.limit, arguments.k), arguments.out)


if __name__ == "__main__":
    main()
