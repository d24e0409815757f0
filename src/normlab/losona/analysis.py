"""LoSoNA analysis (paper §5.3, §6): from trial records to accuracy-at-K, deltas and tables.

Input is a list of :class:`~normlab.losona.schemas.TrialRecord` — the paper's
§4.2 log record — read either from Inspect ``.eval`` logs or from JSONL files of
records, so runs made outside normlab can be imported and re-scored. Every log
is read once and every trial counted once (:func:`normlab.core.logs.read_samples`;
repeated JSONL rows are dropped too). Everything numeric is computed by
:mod:`normlab.stats`; this module only groups.

Unit of analysis: the scenario. For each (model, condition, scenario) the K
trial labels reduce to majority (accuracy-at-K), compliance and consistency;
benchmark numbers are means over scenarios, with bootstrap intervals over
scenarios. Paired deltas compare a condition with ``naive`` on the scenarios
both have, and the norm-learning subject (``MODEL + AGENT``) with its model alone,
condition by condition, by the same paired machinery.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from normlab import stats
from normlab.agents import INFERENCE_KEY, InferenceSummary
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.core.logs import (
    BASE_AGENT,
    LogSample,
    SampleSet,
    agent_of,
    expand_paths,
    is_log,
    read_samples,
)
from normlab.losona.prompts import CONDITIONS, DEVELOPMENT_CONDITIONS
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.models import AnalysisBase, usage_by_run
from normlab.stats import Estimate, Rate

BASELINE_CONDITION = "naive"
JUDGE_SCORER = "norm_judge"

# --- loading --------------------------------------------------------------------------


def record_of(item: LogSample, scorer: str = JUDGE_SCORER) -> TrialRecord | None:
    """The trial record of one LoSoNA sample (one epoch), or None if it has no judge score."""
    from normlab.losona.scorer import label_of

    sample, metadata = item.sample, item.sample.metadata or {}
    score = (sample.scores or {}).get(scorer)
    if score is None or "scenario_id" not in metadata:
        return None
    score_metadata = score.metadata or {}
    return TrialRecord(
        scenario_id=metadata["scenario_id"],
        event_type=metadata["event_id"],
        norm_id=metadata["norm_id"],
        condition=metadata["condition"],
        trial=sample.epoch,
        subject_model=item.log.eval.model,
        judge_model=str(score_metadata.get("judge_model", "unknown")),
        response=str(score.answer or ""),
        complies=label_of(score.value),
        judge_reasoning=str(score.explanation or ""),
        judge_truncated=bool(score_metadata.get("judge_truncated")),
        subject_truncated=bool(metadata.get("subject_truncated")),
        subject_temperature=str(metadata.get("subject_temperature", "unknown")),
        judge_temperature=str(score_metadata.get("judge_temperature", "unknown")),
        judge_addenda=str(score_metadata.get("judge_addenda", "unknown")),
        agent=agent_of(item.log),
        norm_inference=score_metadata.get(INFERENCE_KEY),
    )


def scenarios_of(samples: SampleSet) -> dict[str, Scenario]:
    """The scenarios the logs ran, from sample metadata (each log carries its own)."""
    scenarios: dict[str, Scenario] = {}
    for item in samples.samples:
        data = (item.sample.metadata or {}).get("scenario")
        if data is not None and data["scenario_id"] not in scenarios:
            scenarios[data["scenario_id"]] = Scenario.model_validate(data)
    return scenarios


def records_from_jsonl(path: Path) -> list[TrialRecord]:
    return [validate_row(TrialRecord, row, path, line) for line, row in read_jsonl_rows(path)]


@dataclass
class LosonaRun:
    """What a LoSoNA analysis reads: logs' samples (each once), trial records, scenarios."""

    samples: SampleSet
    records: list[TrialRecord]
    files: list[Path]
    scenarios: dict[str, Scenario] = field(default_factory=dict)


def load_run(paths: Iterable[Path]) -> LosonaRun:
    """Read ``.eval`` logs and/or trial-record JSONL files (folders are searched)."""
    files = expand_paths(paths)
    samples = read_samples([path for path in files if is_log(path)])
    records = [record for item in samples.samples if (record := record_of(item)) is not None]
    for path in files:
        if not is_log(path):
            records.extend(records_from_jsonl(path))
    unique: dict[tuple[str, str, str, str, int], TrialRecord] = {}
    for record in records:
        unique.setdefault(record.key(), record)
    duplicates = len(records) - len(unique)
    if duplicates:
        samples.skipped.append(f"{duplicates} repeated trial record(s)")
    return LosonaRun(samples, list(unique.values()), files, scenarios_of(samples))


def load_records(paths: Iterable[Path]) -> list[TrialRecord]:
    """Trial records from logs and/or JSONL files, each trial once."""
    return load_run(paths).records


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
    judge_truncations: int = 0
    subject_truncations: int = 0


class ConditionResult(BaseModel):
    accuracy: Estimate
    compliance: Estimate
    consistency: Estimate
    n_scenarios: int
    n_trials: int
    parse_failures: int
    """Trials whose judge reply could not be parsed, even re-judged (counted as not a pass)."""
    judge_truncations: int = 0
    """Trials whose judge reply was cut off at its cap (also a missing label, counted apart)."""
    subject_truncations: int = 0
    """Trials whose subject reply was still cut off after the larger-cap retry."""
    scenarios_with_missing_label: int = 0


class PairedResult(BaseModel):
    delta: Estimate
    recovered: tuple[int, int]
    regressed: tuple[int, int]
    n_scenarios: int


class ModelResult(BaseModel):
    conditions: dict[str, ConditionResult]
    paired: dict[str, PairedResult]
    judge_models: list[str]
    temperatures: dict[str, list[str]] = Field(default_factory=dict)
    """The temperatures each model ran at: ``{"subject": [...], "judge": [...]}``."""
    judge_addenda: list[str] = Field(default_factory=list)
    by_norm: dict[str, dict[str, Rate]] = Field(default_factory=dict)
    by_event: dict[str, dict[str, Rate]] = Field(default_factory=dict)


class AgentComparison(BaseModel):
    """The norm-learning subject against its own model alone (the base run), per condition."""

    model: str
    """The base subject: the same model with no agent."""
    agent: str
    paired: dict[str, PairedResult] = Field(default_factory=dict)
    """Accuracy-at-K, agent − base, over the scenarios both ran (empty without a base run)."""
    inference: dict[str, InferenceSummary] = Field(default_factory=dict)
    """Whether the agent's kept norms expressed the hidden norm (per trial)."""


class LosonaAnalysis(AnalysisBase):
    models: dict[str, ModelResult]
    """Per subject: the model, or ``MODEL + AGENT`` for an agent run."""
    development_conditions: list[str] = Field(default_factory=list)
    agents: dict[str, AgentComparison] = Field(default_factory=dict)
    """Per agent subject (``MODEL + AGENT``): its comparison with the base model."""


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
                judge_truncations=sum(record.judge_truncated for record in trials),
                subject_truncations=sum(record.subject_truncated for record in trials),
            )
        )
    return outcomes


def condition_result(outcomes: Sequence[ScenarioOutcome]) -> ConditionResult:
    """Benchmark-level numbers: means over scenarios, bootstrap CI over scenarios.

    Every scenario counts (a missing label is not a pass, §5.3); consistency is over the
    scenarios where the judge gave at least one label.
    """
    scored = [outcome for outcome in outcomes if outcome.majority is not None]
    missing = sum(label is None for outcome in outcomes for label in outcome.labels)
    judge_truncations = sum(outcome.judge_truncations for outcome in outcomes)
    return ConditionResult(
        accuracy=Estimate.mean_of([float(bool(o.majority)) for o in scored]),
        compliance=Estimate.mean_of([o.compliance or 0.0 for o in scored]),
        consistency=Estimate.mean_of(
            [float(o.consistency) for o in scored if o.consistency is not None]
        ),
        n_scenarios=len(scored),
        n_trials=sum(len(outcome.labels) for outcome in outcomes),
        parse_failures=missing - judge_truncations,
        judge_truncations=judge_truncations,
        subject_truncations=sum(outcome.subject_truncations for outcome in outcomes),
        scenarios_with_missing_label=sum(None in outcome.labels for outcome in outcomes),
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
    baseline_failures = [t for t, b in pairs if not b]
    baseline_successes = [t for t, b in pairs if b]
    return PairedResult(
        delta=Estimate.paired_delta([float(t) for t, _ in pairs], [float(b) for _, b in pairs]),
        recovered=(sum(baseline_failures), len(baseline_failures)),
        regressed=(sum(not t for t in baseline_successes), len(baseline_successes)),
        n_scenarios=len(pairs),
    )


def breakdown(outcomes: Sequence[ScenarioOutcome], key: str) -> dict[str, Rate]:
    """Accuracy-at-K per norm or per event, Wilson 95% CI (diagnostic: small n per cell)."""
    groups: dict[str, list[bool | None]] = defaultdict(list)
    for outcome in outcomes:
        if outcome.majority is not None:
            groups[getattr(outcome, key)].append(outcome.majority)
    return {name: Rate.where(values) for name, values in sorted(groups.items())}


def _condition_order(condition: str) -> tuple[int, str]:
    order = (*CONDITIONS, *DEVELOPMENT_CONDITIONS)
    return (order.index(condition) if condition in order else len(order), condition)


def agent_comparisons(
    by_subject: dict[str, dict[str, list[TrialRecord]]],
    outcomes: dict[str, dict[str, list[ScenarioOutcome]]],
) -> dict[str, AgentComparison]:
    """Each agent subject against the base run of its model, condition by condition: the
    paired accuracy-at-K delta (the machinery of the prompt-condition contrasts), and what
    the agent inferred."""
    comparisons: dict[str, AgentComparison] = {}
    for subject, per_condition in by_subject.items():
        first = next(record for trials in per_condition.values() for record in trials)
        if first.agent == BASE_AGENT:
            continue
        base = outcomes.get(first.subject_model, {})
        comparisons[subject] = AgentComparison(
            model=first.subject_model,
            agent=first.agent,
            paired={
                condition: paired_result(treated, base[condition])
                for condition, treated in outcomes[subject].items()
                if condition in base
            },
            inference={
                condition: InferenceSummary.of([r.norm_inference for r in trials])
                for condition, trials in sorted(
                    per_condition.items(), key=lambda item: _condition_order(item[0])
                )
            },
        )
    return comparisons


def analyze_records(records: Sequence[TrialRecord]) -> LosonaAnalysis:
    """All LoSoNA numbers per subject (model, or model + agent) × condition."""
    by_model_condition: dict[str, dict[str, list[TrialRecord]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for record in records:
        by_model_condition[record.subject][record.condition].append(record)
    models: dict[str, ModelResult] = {}
    all_outcomes: dict[str, dict[str, list[ScenarioOutcome]]] = {}
    development: set[str] = set()
    for model in sorted(by_model_condition):
        per_condition = by_model_condition[model]
        model_records = [record for trials in per_condition.values() for record in trials]
        outcomes = {
            condition: scenario_outcomes(per_condition[condition])
            for condition in sorted(per_condition, key=_condition_order)
        }
        all_outcomes[model] = outcomes
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
            temperatures={
                "subject": sorted({r.subject_temperature for r in model_records}),
                "judge": sorted({r.judge_temperature for r in model_records}),
            },
            judge_addenda=sorted({r.judge_addenda for r in model_records}),
            by_norm={c: breakdown(o, "norm_id") for c, o in outcomes.items()},
            by_event={c: breakdown(o, "event_type") for c, o in outcomes.items()},
        )
    return LosonaAnalysis(
        models=models,
        development_conditions=sorted(development),
        agents=agent_comparisons(by_model_condition, all_outcomes),
    )


def analyze(run: LosonaRun) -> LosonaAnalysis:
    analysis = analyze_records(run.records)
    analysis.usage = usage_by_run(run.samples)
    return analysis


def headline_conditions(result: ModelResult) -> list[str]:
    """Conditions of a model that belong in headline tables (never development ones)."""
    return [c for c in result.conditions if c not in DEVELOPMENT_CONDITIONS]
