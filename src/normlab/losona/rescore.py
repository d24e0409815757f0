"""Judge validation by re-judging (paper §7): another judge model relabels a finished run.

Every trial's response is judged again by ``--judge``; the new labels are written
as trial records (so ``normlab losona analyze`` can recompute every number under
the new judge) and compared with the original labels: row-level agreement,
Cohen's κ and the 2 × 2 disagreement table. Re-judged rows are appended to the
output file as they finish, so an interrupted rescore resumes where it stopped.
"""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

from inspect_ai.model import get_model
from pydantic import BaseModel

from normlab import stats
from normlab.core.batch import run_batch
from normlab.core.errors import InputError
from normlab.core.jsonio import append_jsonl, read_jsonl_rows, validate_row
from normlab.losona.analysis import TrialRecord
from normlab.losona.dataset import Scenario
from normlab.losona.scorer import judge_response

RESCORED_FILE = "rescored_trials.jsonl"


def trial_key(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.subject_model, record.scenario_id, record.condition, record.trial)


class Disagreement(BaseModel):
    scenario_id: str
    condition: str
    trial: int
    response: str
    original: bool
    rescored: bool
    rescored_reasoning: str


class JudgeAgreement(BaseModel):
    """Two judges on the same rows; rows where either label is missing are counted apart."""

    original_judges: list[str]
    rescoring_judge: str
    n_rows: int
    n_compared: int
    agreement: float | None
    agreement_ci: tuple[float | None, float | None]
    cohen_kappa: float | None
    table: dict[str, int]
    parse_failures: dict[str, int]
    disagreements: list[Disagreement]


def compare_judges(
    original: list[TrialRecord], rescored: list[TrialRecord], judge: str
) -> JudgeAgreement:
    """Row-level agreement, Wilson CI, κ and the disagreement table."""
    new_by_key = {trial_key(record): record for record in rescored}
    pairs = [
        (record, new_by_key[trial_key(record)])
        for record in original
        if trial_key(record) in new_by_key
    ]
    compared = [(a, b) for a, b in pairs if a.complies is not None and b.complies is not None]
    first = [bool(a.complies) for a, _ in compared]
    second = [bool(b.complies) for _, b in compared]
    agreeing = sum(x == y for x, y in zip(first, second, strict=True))
    lo, hi = stats.wilson_interval(agreeing, len(compared))
    kappa = stats.cohen_kappa(first, second) if compared else float("nan")
    return JudgeAgreement(
        original_judges=sorted({record.judge_model for record in original}),
        rescoring_judge=judge,
        n_rows=len(pairs),
        n_compared=len(compared),
        agreement=agreeing / len(compared) if compared else None,
        agreement_ci=(None, None) if not compared else (lo, hi),
        cohen_kappa=None if math.isnan(kappa) else kappa,
        table={
            "both_comply": sum(x and y for x, y in zip(first, second, strict=True)),
            "both_breach": sum(not x and not y for x, y in zip(first, second, strict=True)),
            "original_comply_rescored_breach": sum(
                x and not y for x, y in zip(first, second, strict=True)
            ),
            "original_breach_rescored_comply": sum(
                not x and y for x, y in zip(first, second, strict=True)
            ),
        },
        parse_failures={
            "original": sum(a.complies is None for a, _ in pairs),
            "rescored": sum(b.complies is None for _, b in pairs),
        },
        disagreements=[
            Disagreement(
                scenario_id=a.scenario_id,
                condition=a.condition,
                trial=a.trial,
                response=a.response,
                original=bool(a.complies),
                rescored=bool(b.complies),
                rescored_reasoning=b.judge_reasoning,
            )
            for a, b in compared
            if a.complies != b.complies
        ],
    )


def _done(path: Path) -> list[TrialRecord]:
    if not path.exists():
        return []
    return [validate_row(TrialRecord, row, path, line) for line, row in read_jsonl_rows(path)]


async def rejudge(
    records: list[TrialRecord],
    scenarios: dict[str, Scenario],
    judge: str,
    out_file: Path,
) -> list[TrialRecord]:
    """Re-judge every record not yet in ``out_file``; return all re-judged records."""
    missing = sorted({r.scenario_id for r in records if r.scenario_id not in scenarios})
    if missing:
        raise InputError(
            "--data",
            f"no scenario for {missing[0]!r}: pass the scenarios file the run used (--data)",
            field="scenario_id",
        )
    finished = _done(out_file)
    finished_keys = {trial_key(record) for record in finished}
    todo = [record for record in records if trial_key(record) not in finished_keys]
    model = get_model(judge)

    async def work(record: TrialRecord) -> TrialRecord:
        result = await judge_response(model, scenarios[record.scenario_id], record.response)
        verdict = result.value
        return record.model_copy(
            update={
                "judge_model": judge,
                "complies": None if verdict is None else verdict.complies,
                "judge_reasoning": verdict.reasoning
                if verdict
                else f"parse failure: {result.error}",
            }
        )

    new = await run_batch(
        todo,
        work,
        concurrency=model.api.max_connections(),
        description=f"re-judging with {judge}",
        on_result=lambda _, record: append_jsonl(out_file, record),
    )
    return finished + new


def rescore(
    records: list[TrialRecord], scenarios: dict[str, Scenario], judge: str, out_dir: Path
) -> JudgeAgreement:
    out_dir.mkdir(parents=True, exist_ok=True)
    rescored = asyncio.run(rejudge(records, scenarios, judge, out_dir / RESCORED_FILE))
    agreement = compare_judges(records, rescored, judge)
    (out_dir / "judge_agreement.json").write_text(agreement.model_dump_json(indent=2))
    return agreement
