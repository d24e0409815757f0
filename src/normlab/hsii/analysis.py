"""HSII analysis (Definition 1, Eq. 1, Table 1): r1–r4 and the HSII score, with intervals.

Input is one [`TrialRecord`][normlab.hsii.TrialRecord] per case and model, read
from ``.eval`` logs (each sample once) or imported as JSONL. The raw reply is
re-parsed and its target re-matched here, so imported records and logs are
scored by the same rules, and a verdict pair is re-scored under any tie weight.

- r1 = n1 / n: replies from which a target and a statement were recovered;
- r2 = n2 / n1: of those, the target was the golden one;
- r3 = n3 / n2: of those, the first statement beat the golden (both orders, ToolEval);
- r4 = n4 / n2: of those, the decision-round statement beat the reference's.

The HSII score, both forms: ``table`` (every row of Table 1: ι = r1 (1 + α β r2 (r3
+ γ r4)), e.g. GPT-4 .701, .732, .67, .69 → 1.399) and ``printed`` (Eq. 1 as
printed: ι = r1 (1 + α r2 (1 + β (r3 + γ r4))), which no row of Table 1 follows).
Intervals: percentile bootstrap over cases (each case's four stage values
resampled together), so the score's interval carries the stages' correlation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from pydantic import BaseModel, Field

from normlab import stats
from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.jsonio import read_jsonl_rows
from normlab.core.logs import (
    LogSample,
    SampleSet,
    expand_paths,
    is_log,
    read_samples,
    role_model,
)
from normlab.core.sources import data_by_run
from normlab.hsii.cot import CotResult, cot_results
from normlab.hsii.meta import SampleMeta
from normlab.hsii.parse import Cast, parse_statement, target_correct
from normlab.hsii.rules import (
    OUTCOMES,
    STAGES,
    Formula,
    Outcome,
    outcome_of,
    score_of_rates,
    stage_rates,
    stage_values,
)
from normlab.hsii.schemas import ComparisonRecord, TrialRecord, Verdict
from normlab.models import AnalysisBase, usage_by_run

# --- loading --------------------------------------------------------------------------


SCORER = "hsii_stages"
Stage = Literal["first", "long"]


def comparisons_of(item: LogSample) -> dict[Stage, ComparisonRecord]:
    """The judge's comparisons of one HSII sample (r3's ``first``, r4's ``long``), those it
    made: only a right target reaches the judge (Definition 1)."""
    score = (item.sample.scores or {}).get(SCORER)
    details = (score.metadata if score is not None else None) or {}
    stages: tuple[Stage, ...] = ("first", "long")
    return {
        stage: ComparisonRecord.model_validate(details[stage])
        for stage in stages
        if isinstance(details.get(stage), dict)
    }


def record_of(item: LogSample) -> TrialRecord | None:
    """The trial record of one HSII sample (None when it was never scored).

    The judge is named for the cases it judged: the log header's ``judge`` role, or for a log
    written before tasks declared their default roles, the model its scorer kept beside the
    verdicts."""
    score = (item.sample.scores or {}).get(SCORER)
    meta = SampleMeta.of(item.sample)
    if score is None or meta is None:
        return None
    case = meta.case
    details = score.metadata or {}
    comparisons = comparisons_of(item)

    def verdicts(stage: Stage) -> list[Verdict | None] | None:
        comparison = comparisons.get(stage)
        return None if comparison is None else comparison.verdicts

    return TrialRecord.model_validate(
        {
            "case_id": case.case_id,
            "subject_model": item.log.eval.model,
            "response": str(score.answer or ""),
            "golden_target": case.golden.role_to,
            "characters": case.characters,
            "aliases": case.aliases,
            "first_verdicts": verdicts("first"),
            "long_verdicts": verdicts("long"),
            "domain": case.domain,
            "judge_model": role_model(item.log, "judge", details.get("judge_model"))
            if comparisons
            else "",
            "tie_weight": details.get("tie_weight"),
            "dialogue_id": case.dialogue_id,
        }
    )


@dataclass
class HsiiRun:
    samples: SampleSet
    records: list[TrialRecord]
    files: list[Path]


def load_run(paths: Iterable[Path]) -> HsiiRun:
    """Records from HSII ``.eval`` logs and/or JSONL trial records, each (model, case) once."""
    files = expand_paths(paths)
    samples = read_samples([path for path in files if is_log(path)])
    records = [record for item in samples.samples if (record := record_of(item)) is not None]
    for path in files:
        if not is_log(path):
            records += [
                validate_known(TrialRecord, row, path, line) for line, row in read_jsonl_rows(path)
            ]
    unique: dict[tuple[str, str], TrialRecord] = {}
    for record in records:
        unique.setdefault((record.subject_model, record.case_id), record)
    if len(unique) < len(records):
        samples.skipped.append(f"{len(records) - len(unique)} repeated trial record(s)")
    return HsiiRun(samples, list(unique.values()), files)


def load_analyzable(paths: list[Path]) -> HsiiRun:
    """[`load_run`][normlab.hsii.load_run], or an [`InputError`][normlab.core.InputError] when the
    paths hold nothing to analyze: neither scored cases nor ``hsii cot`` samples (Table 2 alone is a
    result, as ``hsii cot`` tells its user to add its logs to the report)."""
    run = load_run(paths)
    if not run.records and not cot_results(run.samples):
        raise InputError(
            ", ".join(str(path) for path in paths),
            "no hsii cases found (no scored samples or COT samples in logs, no record rows)",
        )
    return run


# --- results --------------------------------------------------------------------------


def target_of(record: TrialRecord) -> tuple[bool, bool]:
    """(r1, r2) of one record: was a target and statement recovered, was it the golden one."""
    characters = record.characters or [record.golden_target]
    statement = parse_statement(record.response, Cast.of(characters, record.aliases))
    if statement is None:
        return False, False
    return True, target_correct(statement, record.golden_target, characters, record.aliases)


def stage_row(record: TrialRecord, tie_weight: float) -> tuple[float, float, float, float]:
    """(r1, r2, r3, r4) of one case (parsed, target right, first win, long win); NaN where
    not counted."""
    parsed, right = target_of(record)
    return stage_values(parsed, right, record.first_verdicts, record.long_verdicts, tie_weight)


def stages_of(record: TrialRecord) -> dict[str, float]:
    """Each stage's value for one record (``normlab.hsii.rules.STAGES``), under the tie
    weight its run scored with (none recorded: ToolEval's 0): what the analysis counts."""
    return dict(zip(STAGES, stage_row(record, record.tie_weight or 0.0), strict=True))


class StageResult(BaseModel):
    n: int
    n1: int
    n2: int
    n3: float
    n4: float
    r1: float | None
    r2: float | None
    r3: float | None
    r4: float | None
    hsii: float | None
    hsii_printed: float | None
    ci: dict[str, stats.Interval] = Field(default_factory=dict)
    """95% percentile bootstrap intervals for r1–r4 and both scores, resampling dialogues
    (each with all its cases: cases cut from one dialogue share its history)."""
    dialogues: int = 0
    """Dialogues the cases come from: the units the intervals resample."""
    first_outcomes: dict[Outcome, int] = Field(default_factory=dict)
    """r3's comparisons among the n2 right-target cases: wins, losses, ties, unresolved
    (a verdict unusable after its repair) and missing; only wins (and ties at the tie
    weight) count in n3."""
    long_outcomes: dict[Outcome, int] = Field(default_factory=dict)
    """r4's, as r3's: a long run that never ran or was never judged is ``missing``."""


class ModelResult(StageResult):
    formula: Formula
    alpha: float
    beta: float
    gamma: float
    tie_weight: float
    unresolved_verdicts: int
    judge_models: list[str]
    by_domain: dict[str, StageResult] = Field(default_factory=dict)
    by_characters: dict[str, StageResult] = Field(default_factory=dict)


class HsiiAnalysis(AnalysisBase):
    """Table 1 per subject model (r1 to r4 and the HSII score, by domain and by cast size),
    and Table 2 when the logs hold COT runs; what ``hsii analyze --json`` prints."""

    models: dict[str, ModelResult]
    """Subject model → its stages, scores and intervals."""
    formula: Formula = "table"
    """The headline score's form: ``table`` (the one every row of Table 1 follows) or
    ``printed`` (Eq. 1 as printed)."""
    cot: dict[str, CotResult] = Field(default_factory=dict)
    """Table 2 per model, when the logs include COT-complexity runs (``hsii cot``)."""


@dataclass(frozen=True)
class Weights:
    alpha: float = 1.0
    beta: float = 1.0
    gamma: float = 1.0
    tie_weight: float | None = None
    """What a tie is worth in r3 and r4; ``None``: what the run scored it with (0, ToolEval's
    rule, for records that do not say), so the analysis of a log repeats its own numbers."""
    formula: Formula = "table"


def tie_weight_of(records: Sequence[TrialRecord], weights: Weights) -> float:
    """The tie weight to score ``records`` with: the one asked for, else the one their run
    used; records scored with different weights cannot be read as one without choosing."""
    if weights.tie_weight is not None:
        return weights.tie_weight
    used = sorted({0.0 if r.tie_weight is None else r.tie_weight for r in records})
    if len(used) > 1:
        raise InputError(
            "--tie-weight",
            f"the runs scored ties at {', '.join(f'{w:g}' for w in used)}: choose one",
            field="tie_weight",
        )
    return used[0] if used else 0.0


def _score(rates: Sequence[float], weights: Weights, formula: Formula) -> float:
    return score_of_rates(
        rates, alpha=weights.alpha, beta=weights.beta, gamma=weights.gamma, formula=formula
    )


RATES = ("r1", "r2", "r3", "r4")
"""The stage rates, one per stage of ``STAGES``, in its order."""
INTERVALS = (*RATES, "hsii", "hsii_printed")
"""What a row's intervals are of: the four stage rates and both readings of the score."""
STAGE_RESAMPLES = 2000
"""Cluster-bootstrap resamples behind each row's intervals."""


def _stage_intervals(
    rows: NDArray[np.float64], clusters: list[str], weights: Weights
) -> dict[str, stats.Interval]:
    """95% percentile intervals of r1–r4 and both scores, on one set of cluster resamples
    (dialogues with all their cases): each resample's four rates as ``stage_rates`` computes them,
    all resamples at once."""
    resampled = stats.cluster_column_means(rows, clusters, n_resamples=STAGE_RESAMPLES)
    estimates = {
        **dict(zip(RATES, resampled.T, strict=True)),
        "hsii": np.array([_score(rates, weights, "table") for rates in resampled]),
        "hsii_printed": np.array([_score(rates, weights, "printed") for rates in resampled]),
    }
    return {
        name: stats.json_interval(stats.percentile_interval(values, 0.95))
        for name, values in estimates.items()
    }


def stage_result(records: Sequence[TrialRecord], weights: Weights) -> StageResult:
    tie_weight = tie_weight_of(records, weights)
    rows = np.array([stage_row(record, tie_weight) for record in records], dtype=float)
    if rows.size == 0:
        rows = rows.reshape(0, 4)
    rates = stage_rates(rows)
    clusters = [record.cluster for record in records]
    ci: dict[str, stats.Interval] = (
        _stage_intervals(rows, clusters, weights)
        if len(records) > 1
        else dict.fromkeys(INTERVALS, (None, None))
    )
    right = [record for record, row in zip(records, rows, strict=True) if row[1] == 1.0]

    def outcomes(stage: str) -> dict[Outcome, int]:
        found = [
            outcome_of(record.first_verdicts if stage == "first" else record.long_verdicts)
            for record in right
        ]
        return {outcome: found.count(outcome) for outcome in OUTCOMES}

    defined = [None if math.isnan(rate) else rate for rate in rates]
    return StageResult(
        n=len(records),
        n1=int(np.nansum(rows[:, 0])) if len(records) else 0,
        n2=int(np.nansum(rows[:, 1])) if len(records) else 0,
        n3=float(np.nansum(rows[:, 2])) if len(records) else 0.0,
        n4=float(np.nansum(rows[:, 3])) if len(records) else 0.0,
        r1=defined[0],
        r2=defined[1],
        r3=defined[2],
        r4=defined[3],
        hsii=_score(rates, weights, "table") if records else None,
        hsii_printed=_score(rates, weights, "printed") if records else None,
        ci=ci,
        dialogues=len(set(clusters)),
        first_outcomes=outcomes("first"),
        long_outcomes=outcomes("long"),
    )


def analyze_records(records: Sequence[TrialRecord], weights: Weights = Weights()) -> HsiiAnalysis:
    """Table 1 of ``records`` (cases scored by any run, or rescored), per subject model: the
    stages over all its cases, by domain and by the number of characters in the scene."""
    by_model: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in records:
        by_model[record.subject_model].append(record)
    models = {}
    for model, group in sorted(by_model.items()):
        by_domain: dict[str, list[TrialRecord]] = defaultdict(list)
        by_characters: dict[str, list[TrialRecord]] = defaultdict(list)
        for record in group:
            by_domain[record.domain or "unknown"].append(record)
            by_characters[str(len(record.characters))].append(record)
        overall = stage_result(group, weights)
        models[model] = ModelResult(
            **overall.model_dump(),
            formula=weights.formula,
            alpha=weights.alpha,
            beta=weights.beta,
            gamma=weights.gamma,
            tie_weight=tie_weight_of(group, weights),
            unresolved_verdicts=sum(
                v is None
                for r in group
                for v in [*(r.first_verdicts or []), *(r.long_verdicts or [])]
            ),
            judge_models=sorted({r.judge_model for r in group if r.judge_model}),
            by_domain={k: stage_result(v, weights) for k, v in sorted(by_domain.items())},
            by_characters={k: stage_result(v, weights) for k, v in sorted(by_characters.items())},
        )
    return HsiiAnalysis(models=models, formula=weights.formula)


def analyze(run: HsiiRun, weights: Weights = Weights()) -> HsiiAnalysis:
    """A loaded run's analysis: Table 1 of its cases, Table 2 of its COT samples, and the
    usage and data each subject's logs recorded."""
    analysis = analyze_records(run.records, weights)
    analysis.cot = cot_results(run.samples)
    analysis.usage = usage_by_run(run.samples)
    analysis.data = data_by_run(run.samples)
    return analysis


def headline(result: StageResult, formula: Formula) -> float | None:
    """The score in the form the analysis names."""
    return result.hsii if formula == "table" else result.hsii_printed
