"""Judge validation by re-judging (paper §7): another judge model relabels a finished run.

For ``.eval`` logs this is Inspect's own re-scoring: ``inspect_ai.score(log,
norm_judge(J2), action="append")`` adds the second judge's score beside the
first, and the rescored log is written to the output folder (so ``inspect view``
shows both verdicts side by side); a rerun skips logs already rescored. Only the
new judge is built: the original models need not be installed, keyed or reachable. Trial
records imported as JSONL (runs made outside normlab) have no log to append to:
they are re-judged directly, each row appended to a progress file as it lands,
so an interrupted rescore resumes where it stopped.

Either way the re-judged trials are written as trial records
(``rescored_trials.jsonl``, which ``normlab losona analyze`` reads) and compared
with the originals: agreement with its Wilson interval, Cohen's κ, the 2 × 2
table and the rows where the judges disagree.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from pathlib import Path

from inspect_ai.model import get_model
from pydantic import BaseModel

from normlab.core.batch import run_batch
from normlab.core.errors import InputError
from normlab.core.jsonio import append_jsonl, read_models, write_jsonl
from normlab.core.logs import LogSample, expand_paths, is_log, read_log, read_samples
from normlab.core.outputs import replace_file, slug
from normlab.losona.analysis import JUDGE_SCORER, load_run, record_of, records_from_jsonl
from normlab.losona.dataset import load_scenarios
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.losona.scorer import JUDGE_TEMPERATURE, judge_response, norm_judge
from normlab.runs.rescore import RESCORED_SUFFIX, score_again
from normlab.stats import Agreement

RESCORED_FILE = "rescored_trials.jsonl"
"""The trials a second judge labelled, written in the rescore folder (``losona rescore --out``)."""
PROGRESS_FILE = "rescore_progress.jsonl"


def trial_key(record: TrialRecord) -> tuple[str, str, str, int]:
    return (record.subject, record.scenario_id, record.condition, record.trial)


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
    agreement: Agreement
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
    return JudgeAgreement(
        original_judges=sorted({record.judge_model for record in original}),
        rescoring_judge=judge,
        n_rows=len(pairs),
        agreement=Agreement.of(
            [bool(a.complies) for a, _ in compared], [bool(b.complies) for _, b in compared]
        ),
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


def _appended_scorer(item: LogSample, judge: str, addenda: str) -> str | None:
    """The key of the score this judge appended to a sample (``norm_judge1``…), if any."""
    for key, score in (item.sample.scores or {}).items():
        metadata = score.metadata or {}
        appended = key != JUDGE_SCORER and key.startswith(JUDGE_SCORER)
        if appended and (metadata.get("judge_model"), metadata.get("judge_addenda")) == (
            judge,
            addenda,
        ):
            return key
    return None


def rescore_log(path: Path, judge: str, out_dir: Path, addenda: str = "default") -> Path:
    """Append ``judge``'s scores to a copy of the log in ``out_dir`` (once; reruns reuse it)."""
    from inspect_ai.log import write_eval_log

    target = out_dir / f"{path.stem}.{slug(judge)}-{addenda}{RESCORED_SUFFIX}"
    if target.exists():
        existing = read_samples([target])
        if existing.samples and all(_appended_scorer(i, judge, addenda) for i in existing.samples):
            return target
    original = read_log(path)
    rescored = score_again(original, norm_judge(addenda=addenda), judge, {"judge": judge}, "append")
    write_eval_log(rescored, str(target))
    return target


def records_from_rescored_logs(
    paths: list[Path], judge: str, addenda: str
) -> tuple[list[TrialRecord], list[TrialRecord]]:
    """(original, rescored) trial records of rescored logs."""
    original: list[TrialRecord] = []
    rescored: list[TrialRecord] = []
    for item in read_samples(paths).samples:
        key = _appended_scorer(item, judge, addenda)
        first = record_of(item)
        if first is None or key is None:
            continue
        second = record_of(item, key)
        if second is not None:
            original.append(first)
            rescored.append(second)
    return original, rescored


async def rejudge_records(
    records: list[TrialRecord],
    scenarios: dict[str, Scenario],
    judge: str,
    progress: Path,
    addenda: str = "default",
) -> list[TrialRecord]:
    """Re-judge every record not yet in ``progress``; return all re-judged records."""
    missing = sorted({r.scenario_id for r in records if r.scenario_id not in scenarios})
    if missing:
        raise InputError(
            "--data",
            f"no scenario for {missing[0]!r}: pass the scenarios file the run used (--data)",
            field="scenario_id",
        )
    finished = read_models(progress, TrialRecord)
    finished_keys = {trial_key(record) for record in finished}
    todo = [record for record in records if trial_key(record) not in finished_keys]
    model = get_model(judge)

    async def work(record: TrialRecord) -> TrialRecord:
        result = await judge_response(
            model, scenarios[record.scenario_id], record.response, addenda
        )
        verdict = result.value
        return record.model_copy(
            update={
                "judge_model": judge,
                "complies": None if verdict is None else verdict.complies,
                "judge_reasoning": verdict.reasoning
                if verdict
                else f"parse failure: {result.error}",
                # the new judge's prompt and reply, not the original's: the analysis tells
                # judges apart by model and prompt (a judge prompt is a judge too)
                "judge_addenda": addenda,
                "judge_temperature": f"{JUDGE_TEMPERATURE:g}",
                "judge_truncated": result.truncated,
            }
        )

    new = await run_batch(
        todo,
        work,
        concurrency=model.api.max_connections(),
        description=f"re-judging with {judge}",
        on_result=lambda _, record: append_jsonl(progress, record),
    )
    order = {trial_key(record): index for index, record in enumerate(records)}
    return sorted(finished + new, key=lambda record: order.get(trial_key(record), len(order)))


def records_and_scenarios(
    paths: Iterable[Path], data: Path | None
) -> tuple[list[TrialRecord], dict[str, Scenario]]:
    """Trial records of logs or JSONL files, with the scenarios they ran (logs carry them)."""
    run = load_run(paths)
    scenarios = dict(run.scenarios)
    if data is not None:
        scenarios.update({s.scenario_id: s for s in load_scenarios(data)})
    return run.records, scenarios


def rescore(
    paths: Iterable[Path],
    judge: str,
    out_dir: Path,
    data: Path | None,
    addenda: str = "default",
) -> JudgeAgreement:
    """Judge every trial of the logs or trial files at ``paths`` again with ``judge``, and
    compare the two judges (agreement, Cohen's kappa, the disagreement table): the check of a
    judge that §7 leaves to people. The rescored trials and ``judge_agreement.json`` go to
    ``out_dir``; a trial file's scenarios come from ``data``."""
    files = expand_paths(paths)
    out_dir.mkdir(parents=True, exist_ok=True)
    rescored_logs = [rescore_log(path, judge, out_dir, addenda) for path in files if is_log(path)]
    original, rescored = (
        records_from_rescored_logs(rescored_logs, judge, addenda) if rescored_logs else ([], [])
    )
    imported = [record for path in files if not is_log(path) for record in records_from_jsonl(path)]
    if imported:
        scenarios = {s.scenario_id: s for s in load_scenarios(data)} if data is not None else {}
        original += imported
        rescored += asyncio.run(
            rejudge_records(imported, scenarios, judge, out_dir / PROGRESS_FILE, addenda)
        )
    write_jsonl(out_dir / RESCORED_FILE, rescored)
    agreement = compare_judges(original, rescored, judge)
    replace_file(out_dir / "judge_agreement.json", agreement.model_dump_json(indent=2))
    return agreement
