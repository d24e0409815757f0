"""Time HSII's analysis (Table 1 with its cluster-bootstrap intervals) on the shipped cases.

    python -m benchmarks.hsii_analysis_timing [--models N] [--seed S] [--out FILE]

Builds one record per shipped case and model (a reply naming the golden or another character,
or prose; first and long verdicts drawn at random; ties worth ½), then times
``analyze_records`` on them: every row of Table 1 (per model, per domain, per cast size) has
six intervals over 2,000 resamples of dialogues. The records are synthetic: the timing is
the point, not the numbers. Prints the seconds, the rows and a digest of the analysis's JSON,
so two versions of the code can be compared on the same records (``PYTHONPATH=OTHER/src``).
"""

from __future__ import annotations

import hashlib
import json
import random
import time

from benchmarks import command, emit
from normlab.hsii.analysis import analyze_records
from normlab.hsii.dataset import CASES_PATH, load_cases
from normlab.hsii.schemas import TrialRecord, Verdict

VERDICTS: tuple[Verdict, ...] = ("win", "loss", "tie")


def records(models: int, seed: int) -> list[TrialRecord]:
    rng = random.Random(seed)
    made = []
    for model in range(models):
        for case in load_cases(CASES_PATH):
            cast = list(case.background.characters)
            golden = case.golden.role_to
            target = rng.choice(cast) if rng.random() < 0.4 else golden
            reply = (
                json.dumps({"role_to": target, "content": "ok"})
                if rng.random() < 0.9
                else "nothing to say"
            )
            long: list[Verdict | None] | None = (
                [rng.choice(VERDICTS) for _ in range(2)] if rng.random() < 0.8 else None
            )
            made.append(
                TrialRecord(
                    case_id=case.case_id,
                    subject_model=f"model-{model}",
                    response=reply,
                    golden_target=golden,
                    characters=cast,
                    first_verdicts=[rng.choice(VERDICTS), rng.choice(VERDICTS)],
                    long_verdicts=long,
                    domain=case.domain,
                    tie_weight=0.5,
                )
            )
    return made


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--models", type=int, default=2, help="Subject models (records each).")
    parser.add_argument("--seed", type=int, default=5, help="Seed of the synthetic replies.")
    arguments = parser.parse_args()
    made = records(arguments.models, arguments.seed)
    started = time.perf_counter()
    analysis = analyze_records(made)
    seconds = time.perf_counter() - started
    text = analysis.model_dump_json()
    emit(
        {
            "records": len(made),
            "rows": text.count('"ci"'),
            "seconds": round(seconds, 2),
            "analysis_sha256": hashlib.sha256(text.encode()).hexdigest()[:16],
        },
        arguments.out,
    )


if __name__ == "__main__":
    main()
