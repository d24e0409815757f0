"""LoSoNA analysis (paper §5.3, §6): from trial records to accuracy-at-K, deltas and tables.

Input is a list of :class:`TrialRecord` — the paper's §4.2 log record — read
either from Inspect ``.eval`` logs or from JSONL files of records, so runs made
outside normlab can be imported and re-scored. Everything numeric is computed
by :mod:`normlab.stats`; this module only groups.

Unit of analysis: the scenario. For each (model, condition, scenario) the K
trial labels reduce to majority (accuracy-at-K), compliance and consistency;
benchmark numbers are means over scenarios, with bootstrap intervals over
scenarios. Paired deltas compare a condition with ``naive`` on the scenarios
both have.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from normlab import stats
from normlab.core.errors import InputError
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.core.logs import expand_paths
from normlab.losona.dataset import Scenario
from normlab.losona.prompts import CONDITIONS, DEVELOPMENT_CONDITIONS

BASELINE_CONDITION = "naive"
LOG_SUFFIXES = (".eval", ".json")


class TrialRecord(BaseModel):
    """One judged subject response (paper §4.2). ``complies=None``: judge parse failure."""

    model_config = ConfigDict(extra="ignore")

    scenario_id: str
    event_type: str
    norm_id: str
    condition: str
    trial: int
    subject_model: str
    judge_model: str
    response: str
    complies: bool | None
    judge_reasoning: str = ""


# --- loading --------------------------------------------------------------------------


def records_from_log(path: Path) -> list[TrialRecord]:
    """Trial records of a LoSoNA ``.eval`` log (one per sample × epoch with a judge score)."""
    from inspect_ai.log import read_eval_log

    from normlab.losona.scorer import label_of

    try:
        log = read_eval_log(str(path))
    except Exception as error:  # Inspect raises several types for unreadable logs
        raise InputError(path, f"not a readable Inspect log ({error})") from error
    records = []
    for sample in log.samples or []:
        metadata = sample.metadata or {}
        score = (sample.scores or {}).get("norm_judge")
        if score is None or "scenario_id" not in metadata:
            continue
        score_metadata = score.metadata or {}
        records.append(
            TrialRecord(
                scenario_id=metadata["scenario_id"],
                event_type=metadata["event_id"],
                norm_id=metadata["norm_id"],
                condition=metadata["condition"],
                trial=sample.epoch,
                subject_model=log.eval.model,
                judge_model=str(score_metadata.get("judge_model", "unknown")),
                response=str(score.answer or ""),
                complies=label_of(score.value),
                judge_reasoning=str(score.explanation or ""),
            )
        )
    return records


def scenarios_from_logs(paths: Iterable[Path]) -> dict[str, Scenario]:
    """The scenarios a LoSoNA log ran, from sample metadata (each log carries its own)."""
    from inspect_ai.log import read_eval_log

    scenarios: dict[str, Scenario] = {}
    for path in paths:
        if path.suffix not in LOG_SUFFIXES:
            continue
        for sample in read_eval_log(str(path)).samples or []:
            data = (sample.metadata or {}).get("scenario")
            if data is not None and data["scenario_id"] not in scenarios:
                scenarios[data["scenario_id"]] = Scenario.model_validate(data)
    return scenarios


def records_from_jsonl(path: Path) -> list[TrialRecord]:
    return [validate_row(TrialRecord, row, path, line) for line, row in read_jsonl_rows(path)]


def load_records(paths: Iterable[Path]) -> list[TrialRecord]:
    """Read trial records from ``.eval`` logs and/or JSONL files (folders are searched)."""
    records: list[TrialRecord] = []
    for path in expand_paths(paths):
        if path.suffix in LOG_SUFFIXES:
            records.extend(records_from_log(path))
        else:
            records.extend(records_from_jsonl(path))
    return records


# --- results --------------------------------------------------------------------------


class ScenarioOutcome(BaseModel):
    """K trials of one (model, condition, scenario) reduced to the three per-unit numbers."""

    scenario_id: str
    event_type: str
    norm_id: str
    labels: list[bool | None]
    majority: bool | None
    compliance: float | None
    consistency: bool | None


Interval = tuple[float | None, float | None]


class ConditionResult(BaseModel):
    accuracy: float | None
    accuracy_ci: Interval
    compliance: float | None
    compliance_ci: Interval
    consistency: float | None
    consistency_ci: Interval
    n_scenarios: int
    n_trials: int
    parse_failures: int


class PairedResult(BaseModel):
    delta: float | None
    delta_ci: Interval
    recovered: tuple[int, int]
    regressed: tuple[int, int]
    n_scenarios: int


class BreakdownCell(BaseModel):
    accuracy: float | None
    accuracy_ci: Interval
    n_scenarios: int


class ModelResult(BaseModel):
    conditions: dict[str, ConditionResult]
    paired: dict[str, PairedResult]
    judge_models: list[str]
    by_norm: dict[str, dict[str, BreakdownCell]] = Field(default_factory=dict)
    by_event: dict[str, dict[str, BreakdownCell]] = Field(default_factory=dict)


class LosonaAnalysis(BaseModel):
    models: dict[str, ModelResult]
    development_conditions: list[str] = Field(default_factory=list)

    def to_json_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def _mean_with_ci(values: Sequence[float]) -> tuple[float | None, Interval]:
    """Mean over scenarios with its bootstrap CI over scenarios; ``None`` when empty."""
    if not values:
        return None, (None, None)
    lo, hi = stats.bootstrap_ci(values)
    return sum(values) / len(values), (stats.finite_or_none(lo), stats.finite_or_none(hi))


def scenario_outcomes(records: Sequence[TrialRecord]) -> list[ScenarioOutcome]:
    """Reduce the trials of each scenario (records of one model and condition)."""
    grouped: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in records:
        grouped[record.scenario_id].append(record)
    outcomes = []
    for scenario_id in sorted(grouped):
        trials = sorted(grouped[scenario_id], key=lambda record: record.trial)
        labels = [record.complies for record in trials]
        outcomes.append(
            ScenarioOutcome(
                scenario_id=scenario_id,
                event_type=trials[0].event_type,
                norm_id=trials[0].norm_id,
                labels=labels,
                majority=stats.majority(labels),
                compliance=stats.compliance(labels),
                consistency=stats.consistency(labels),
            )
        )
    return outcomes


def condition_result(outcomes: Sequence[ScenarioOutcome]) -> ConditionResult:
    """Benchmark-level numbers: means over scenarios with a valid label, bootstrap CI."""
    scored = [outcome for outcome in outcomes if outcome.majority is not None]
    accuracy, accuracy_ci = _mean_with_ci([float(bool(o.majority)) for o in scored])
    compliance, compliance_ci = _mean_with_ci([o.compliance or 0.0 for o in scored])
    consistency, consistency_ci = _mean_with_ci([float(bool(o.consistency)) for o in scored])
    return ConditionResult(
        accuracy=accuracy,
        accuracy_ci=accuracy_ci,
        compliance=compliance,
        compliance_ci=compliance_ci,
        consistency=consistency,
        consistency_ci=consistency_ci,
        n_scenarios=len(scored),
        n_trials=sum(len(outcome.labels) for outcome in outcomes),
        parse_failures=sum(label is None for outcome in outcomes for label in outcome.labels),
    )


def paired_result(
    treatment: Sequence[ScenarioOutcome], baseline: Sequence[ScenarioOutcome]
) -> PairedResult:
    """Delta vs the baseline over shared scenarios; recovered failures and regressions."""
    baseline_by_id = {o.scenario_id: o.majority for o in baseline if o.majority is not None}
    pairs = [
        (bool(o.majority), bool(baseline_by_id[o.scenario_id]))
        for o in treatment
        if o.majority is not None and o.scenario_id in baseline_by_id
    ]
    delta, (lo, hi) = stats.paired_bootstrap_delta(
        [float(t) for t, _ in pairs], [float(b) for _, b in pairs]
    )
    baseline_failures = [t for t, b in pairs if not b]
    baseline_successes = [t for t, b in pairs if b]
    return PairedResult(
        delta=stats.finite_or_none(delta),
        delta_ci=(stats.finite_or_none(lo), stats.finite_or_none(hi)),
        recovered=(sum(baseline_failures), len(baseline_failures)),
        regressed=(sum(not t for t in baseline_successes), len(baseline_successes)),
        n_scenarios=len(pairs),
    )


def breakdown(outcomes: Sequence[ScenarioOutcome], key: str) -> dict[str, BreakdownCell]:
    """Accuracy-at-K per norm or per event, Wilson 95% CI (diagnostic: small n per cell)."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.majority is not None:
            groups[getattr(outcome, key)].append(outcome.majority)
    cells = {}
    for name, values in sorted(groups.items()):
        lo, hi = stats.wilson_interval(sum(values), len(values))
        cells[name] = BreakdownCell(
            accuracy=sum(values) / len(values), accuracy_ci=(lo, hi), n_scenarios=len(values)
        )
    return cells


def _condition_order(condition: str) -> tuple[int, str]:
    order = (*CONDITIONS, *DEVELOPMENT_CONDITIONS)
    return (order.index(condition) if condition in order else len(order), condition)


def analyze(records: Sequence[TrialRecord]) -> LosonaAnalysis:
    """All LoSoNA numbers per subject model × condition."""
    by_model_condition: dict[str, dict[str, list[TrialRecord]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for record in records:
        by_model_condition[record.subject_model][record.condition].append(record)
    models: dict[str, ModelResult] = {}
    development: set[str] = set()
    for model in sorted(by_model_condition):
        per_condition = by_model_condition[model]
        outcomes = {
            condition: scenario_outcomes(per_condition[condition])
            for condition in sorted(per_condition, key=_condition_order)
        }
        development.update(c for c in outcomes if c in DEVELOPMENT_CONDITIONS)
        paired = (
            {
                condition: paired_result(outcomes[condition], outcomes[BASELINE_CONDITION])
                for condition in outcomes
                if condition != BASELINE_CONDITION
            }
            if BASELINE_CONDITION in outcomes
            else {}
        )
        models[model] = ModelResult(
            conditions={c: condition_result(o) for c, o in outcomes.items()},
            paired=paired,
            judge_models=sorted({r.judge_model for c in per_condition.values() for r in c}),
            by_norm={c: breakdown(o, "norm_id") for c, o in outcomes.items()},
            by_event={c: breakdown(o, "event_type") for c, o in outcomes.items()},
        )
    return LosonaAnalysis(models=models, development_conditions=sorted(development))


def headline_conditions(result: ModelResult) -> list[str]:
    """Conditions of a model that belong in headline tables (never development ones)."""
    return [c for c in result.conditions if c not in DEVELOPMENT_CONDITIONS]
