"""LoSoNA analysis (paper §5.3, §6): from trial records to accuracy-at-K, deltas and tables.

Input is a list of [`TrialRecord`][normlab.losona.TrialRecord] — the paper's
§4.2 log record — read either from Inspect ``.eval`` logs or from JSONL files of
records, so runs made outside normlab can be imported and re-scored. Every log
is read once and every trial counted once
([`normlab.core.logs.read_samples`][normlab.core.read_samples]; a row repeating a trial with the
same label is dropped too, one with another label is an error naming both rows). Everything numeric
is computed by ``normlab.stats``; this module only groups.

Unit of analysis: the scenario. Results are per subject (model, or ``MODEL + AGENT``)
and judge (model and prompt): two judges' labels of one trial are two measurements,
never K = 6 trials of one. For each (subject, judge, condition, scenario) the K trial
labels reduce to majority (accuracy-at-K), compliance and consistency, K being the
trials the run planned (a log's epochs; for imported records, the condition's largest
trial count), so a trial that is absent counts as a missing label
(``normlab.losona.rules``). The scenarios a condition counts are those with a record
and, for logs, every scenario × condition the log's header planned (its dataset's sample
ids): one with no trial read at all is K missing labels, not a scenario left out of the
mean. Benchmark numbers are means over scenarios, with
bootstrap intervals over scenarios. Paired deltas compare a condition with ``naive``
on the scenarios both have, and the norm-learning subject with its model alone under
the same judge, condition by condition, by the same paired machinery.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from normlab import stats
from normlab.agents import INFERENCE_KEY, InferenceSummary
from normlab.core.errors import InputError
from normlab.core.fields import validate_known
from normlab.core.jsonio import read_jsonl_rows
from normlab.core.logs import (
    BASE_AGENT,
    LogSample,
    SampleSet,
    agent_of,
    expand_paths,
    is_log,
    read_samples,
    role_model,
    run_key,
    subject_of,
)
from normlab.core.sources import data_by_run
from normlab.losona.dataset import parse_sample_id
from normlab.losona.meta import UNKNOWN, SampleMeta
from normlab.losona.prompts import CONDITIONS, DEVELOPMENT_CONDITIONS, JUDGE_ADDENDA
from normlab.losona.results import (
    AgentComparison,
    ConditionResult,
    LosonaAnalysis,
    ModelResult,
    PairedResult,
    ScenarioOutcome,
)
from normlab.losona.rules import label_of, with_absent
from normlab.losona.schemas import Scenario, TrialRecord
from normlab.models import usage_by_run
from normlab.stats import Estimate, Rate

BASELINE_CONDITION = "naive"
JUDGE_SCORER = "norm_judge"

Group = tuple[str, str, str]
"""What results are grouped by: (subject, judge model, judge addenda)."""

# --- loading --------------------------------------------------------------------------


def record_of(item: LogSample, scorer: str = JUDGE_SCORER) -> TrialRecord | None:
    """The trial record of one LoSoNA sample (one epoch), or None if it has no judge score."""
    sample, meta = item.sample, SampleMeta.of(item.sample)
    score = (sample.scores or {}).get(scorer)
    if score is None or meta is None:
        return None
    score_metadata = score.metadata or {}
    return TrialRecord(
        scenario_id=meta.scenario_id,
        event_type=meta.event_id,
        norm_id=meta.norm_id,
        condition=meta.condition,
        trial=sample.epoch,
        subject_model=item.log.eval.model,
        judge_model=str(score_metadata.get("judge_model", "unknown")),
        response=str(score.answer or ""),
        complies=label_of(score.value),
        judge_reasoning=str(score.explanation or ""),
        judge_truncated=bool(score_metadata.get("judge_truncated")),
        subject_truncated=meta.subject_truncated,
        subject_temperature=meta.subject_temperature,
        judge_temperature=str(score_metadata.get("judge_temperature", "unknown")),
        judge_addenda=str(score_metadata.get("judge_addenda", "unknown")),
        agent=agent_of(item.log),
        norm_inference=score_metadata.get(INFERENCE_KEY),
        planned_trials=item.log.eval.config.epochs,
    )


def scenarios_of(samples: SampleSet) -> dict[str, Scenario]:
    """The scenarios the logs ran, from sample metadata (each log carries its own)."""
    scenarios: dict[str, Scenario] = {}
    for item in samples.samples:
        meta = SampleMeta.of(item.sample)
        if meta is not None:
            scenarios.setdefault(meta.scenario.scenario_id, meta.scenario)
    return scenarios


def jsonl_records(path: Path) -> Iterator[tuple[int, TrialRecord]]:
    """A trial-records file's rows with their line numbers: a field the record does not know is
    kept as metadata, a near miss of one it knows (``Complies``, ``trials``) is an
    ``InputError`` naming file, line and field (``normlab.core.fields``)."""
    for line, row in read_jsonl_rows(path):
        yield line, validate_known(TrialRecord, row, path, line)


def records_from_jsonl(path: Path) -> list[TrialRecord]:
    return [record for _, record in jsonl_records(path)]


@dataclass(frozen=True)
class Origin:
    """Where a trial record was read: a JSONL file's line, or a log's sample and epoch."""

    path: Path
    line: int | None = None
    sample: str | None = None

    def __str__(self) -> str:
        if self.line is not None:
            return f"{self.path}:{self.line}"
        return f"{self.path}, {self.sample}" if self.sample else str(self.path)


def _label(complies: bool | None) -> str:
    return "no label" if complies is None else "complies" if complies else "breach"


def count_once(rows: Iterable[tuple[TrialRecord, Origin]]) -> tuple[list[TrialRecord], int]:
    """Each trial once, with how many repeats were dropped. A repeat with the same label (the
    same file named twice, a resumed run's rows) is one trial; a repeat with another label
    is an [`InputError`][normlab.core.InputError] naming both rows: which one is right is not ours
    to guess."""
    first: dict[tuple[str, str, str, str, str, int], tuple[TrialRecord, Origin]] = {}
    repeats = 0
    for record, origin in rows:
        seen = first.setdefault(record.key(), (record, origin))
        if seen[0] is record:
            continue
        if seen[0].complies != record.complies:
            # Both places go in the error's location, which is never shortened (a problem's
            # long words are): a log's path is rarely under 80 characters.
            raise InputError(
                f"{seen[1]} and {origin}",
                f"one trial labelled two ways, trial {record.trial} of {record.scenario_id!r} "
                f"({record.condition}, subject {record.subject}, judge {record.judge_model}): "
                f"{_label(seen[0].complies)} in the first, {_label(record.complies)} in the "
                "second",
                field="complies",
            )
        repeats += 1
    return [record for record, _ in first.values()], repeats


@dataclass(frozen=True)
class PlannedUnit:
    """A scenario × condition that a log's header planned (its dataset's sample ids), with K
    (its epochs), for one subject and judge; the scenario's event and norm, where known."""

    group: Group
    scenario_id: str
    condition: str
    k: int
    event_type: str = UNKNOWN
    norm_id: str = UNKNOWN


@dataclass
class LosonaRun:
    """What a LoSoNA analysis reads: logs' samples (each once), trial records, scenarios, and
    the scenario × condition units the logs planned."""

    samples: SampleSet
    records: list[TrialRecord]
    files: list[Path]
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    planned: list[PlannedUnit] = field(default_factory=list)


def group_of(record: TrialRecord) -> Group:
    return (record.subject, *record.judge)


def planned_units(
    samples: SampleSet,
    groups_by_log: dict[int, set[Group]],
    identities: dict[str, tuple[str, str]],
) -> list[PlannedUnit]:
    """Every scenario × condition the logs' headers planned (``EvalSpec.dataset.sample_ids``,
    after ``--limit`` and sharding), for the subject and judge whose records the log holds
    (``groups_by_log``, keyed by ``id(log)``); a log with none (killed before its first score)
    takes those of its run's other logs, else its header's subject, judge and addenda. K is
    the largest epochs of the logs that planned a unit. A log older than the header's sample
    ids plans nothing beyond its records."""
    by_run: dict[tuple[str, str, str], set[Group]] = defaultdict(set)
    for log in samples.logs:
        by_run[run_key(log)] |= groups_by_log.get(id(log), set())
    planned: dict[tuple[Group, str, str], int] = {}
    for log in samples.logs:
        header = (
            subject_of(log),
            role_model(log, "judge") or UNKNOWN,
            str((log.eval.metadata or {}).get("judge_addenda", UNKNOWN)),
        )
        groups = groups_by_log.get(id(log)) or by_run[run_key(log)] or {header}
        k = log.eval.config.epochs or 1
        for ident in log.eval.dataset.sample_ids or []:
            parsed = parse_sample_id(str(ident))
            if parsed is None:
                continue
            for group in groups:
                key = (group, *parsed)
                planned[key] = max(planned.get(key, 0), k)
    return [
        PlannedUnit(group, scenario_id, condition, k, *identities.get(scenario_id, (UNKNOWN,) * 2))
        for (group, scenario_id, condition), k in sorted(planned.items())
    ]


def load_run(paths: Iterable[Path]) -> LosonaRun:
    """Read ``.eval`` logs and/or trial-record JSONL files (folders are searched), and the
    scenario × condition units the logs' headers planned."""
    files = expand_paths(paths)
    samples = read_samples([path for path in files if is_log(path)])
    rows: list[tuple[TrialRecord, Origin]] = []
    groups_by_log: dict[int, set[Group]] = defaultdict(set)
    for item in samples.samples:
        record = record_of(item)
        if record is None:
            continue
        groups_by_log[id(item.log)].add(group_of(record))
        origin = Origin(item.path, sample=f"sample {item.sample.id} epoch {item.sample.epoch}")
        rows.append((record, origin))
    for path in files:
        if not is_log(path):
            rows.extend((record, Origin(path, line)) for line, record in jsonl_records(path))
    records, repeats = count_once(rows)
    if repeats:
        samples.skipped.append(f"{repeats} repeated trial record(s)")
    scenarios = scenarios_of(samples)
    identities = {r.scenario_id: (r.event_type, r.norm_id) for r in records}
    identities.update((i, (s.event_id, s.norm_id)) for i, s in scenarios.items())
    planned = planned_units(samples, groups_by_log, identities)
    return LosonaRun(samples, records, files, scenarios, planned)


def load_records(paths: Iterable[Path]) -> list[TrialRecord]:
    """Trial records from logs and/or JSONL files, each trial once."""
    return load_run(paths).records


# --- results (``normlab.losona.results``) ---------------------------------------------


def result_keys(groups: Iterable[Group]) -> dict[Group, str]:
    """How results are named: the subject alone when one judge labelled it (so a run read
    alone reads as it always did), else ``SUBJECT (judge JUDGE)``, with ``, addenda A`` for
    the prompts other than the default when one judge model ran with several."""
    by_subject: dict[str, list[Group]] = defaultdict(list)
    for group in groups:
        by_subject[group[0]].append(group)
    keys: dict[Group, str] = {}
    for subject, judged in by_subject.items():
        if len(judged) == 1:
            keys[judged[0]] = subject
            continue
        prompts = Counter(judge for _, judge, _ in judged)
        for group in judged:
            _, judge, addenda = group
            named = prompts[judge] > 1 and addenda != JUDGE_ADDENDA[0]
            keys[group] = f"{subject} (judge {judge}{f', addenda {addenda}' if named else ''})"
    return keys


def planned_k(records: Sequence[TrialRecord]) -> int:
    """K for the records of one subject, judge and condition: the epochs their runs planned
    (the largest, if runs differ), and never fewer than the most trials any scenario has
    (imported records do not say what was planned)."""
    counts = Counter(record.scenario_id for record in records)
    planned = [record.planned_trials for record in records if record.planned_trials]
    return max([*planned, *counts.values()], default=0)


def scenario_outcomes(
    records: Sequence[TrialRecord],
    k: int | None = None,
    planned: Sequence[PlannedUnit] = (),
) -> list[ScenarioOutcome]:
    """Reduce the trials of each scenario (records of one subject, judge and condition) over
    K trials (default ``planned_k``, or the planned units' K if larger), each absent trial
    a missing label; a ``planned`` scenario with no record at all is K absent trials."""
    if k is None:
        k = max([planned_k(records), *(unit.k for unit in planned)])
    grouped: dict[str, list[TrialRecord]] = defaultdict(list)
    for record in records:
        grouped[record.scenario_id].append(record)
    identity = {unit.scenario_id: (unit.event_type, unit.norm_id) for unit in planned}
    identity.update((r.scenario_id, (r.event_type, r.norm_id)) for r in records)
    outcomes = []
    for scenario_id in sorted(identity):
        trials = sorted(grouped[scenario_id], key=lambda record: record.trial)
        read = [record.complies for record in trials]
        labels = with_absent(read, k)
        event_type, norm_id = identity[scenario_id]
        outcomes.append(
            ScenarioOutcome(
                scenario_id=scenario_id,
                event_type=event_type,
                norm_id=norm_id,
                labels=labels,
                majority=stats.majority(labels),
                compliance=stats.compliance(labels),
                consistency=stats.consistency(labels),
                judge_truncations=sum(record.judge_truncated for record in trials),
                subject_truncations=sum(record.subject_truncated for record in trials),
                absent_trials=len(labels) - len(read),
            )
        )
    return outcomes


def condition_result(outcomes: Sequence[ScenarioOutcome]) -> ConditionResult:
    """Benchmark-level numbers: means over scenarios, bootstrap CI over scenarios.

    Every scenario counts (a missing label, an absent trial's included, is not a pass, §5.3);
    consistency is over the scenarios where the judge gave at least one label.
    """
    scored = [outcome for outcome in outcomes if outcome.majority is not None]
    missing = sum(label is None for outcome in outcomes for label in outcome.labels)
    judge_truncations = sum(outcome.judge_truncations for outcome in outcomes)
    absent = sum(outcome.absent_trials for outcome in outcomes)
    return ConditionResult(
        accuracy=Estimate.mean_of([float(bool(o.majority)) for o in scored]),
        compliance=Estimate.mean_of([o.compliance or 0.0 for o in scored]),
        consistency=Estimate.mean_of(
            [float(o.consistency) for o in scored if o.consistency is not None]
        ),
        n_scenarios=len(scored),
        n_trials=sum(len(outcome.labels) for outcome in outcomes) - absent,
        parse_failures=missing - absent - judge_truncations,
        judge_truncations=judge_truncations,
        subject_truncations=sum(outcome.subject_truncations for outcome in outcomes),
        scenarios_with_missing_label=sum(None in outcome.labels for outcome in outcomes),
        k=max((len(outcome.labels) for outcome in outcomes), default=0),
        absent_trials=absent,
        absent_scenarios=[outcome.scenario_id for outcome in outcomes if outcome.absent],
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
    groups: dict[Group, dict[str, list[TrialRecord]]],
    outcomes: dict[Group, dict[str, list[ScenarioOutcome]]],
    keys: dict[Group, str],
) -> dict[str, AgentComparison]:
    """Each agent subject against the base run of its model under the same judge, condition
    by condition: the paired accuracy-at-K delta (the machinery of the prompt-condition
    contrasts), and what the agent inferred."""
    comparisons: dict[str, AgentComparison] = {}
    for group, per_condition in groups.items():
        first = next((record for trials in per_condition.values() for record in trials), None)
        if first is None or first.agent == BASE_AGENT:
            continue  # a run with no record at all has nothing to compare
        base_group = (first.subject_model, *group[1:])
        base = outcomes.get(base_group, {})
        comparisons[keys[group]] = AgentComparison(
            model=keys.get(base_group, first.subject_model),
            agent=first.agent,
            paired={
                condition: paired_result(treated, base[condition])
                for condition, treated in outcomes[group].items()
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


def analyze_records(
    records: Sequence[TrialRecord], planned: Sequence[PlannedUnit] = ()
) -> LosonaAnalysis:
    """All LoSoNA numbers per subject (model, or model + agent) × judge × condition, over the
    scenarios with records and the ``planned`` ones (``planned_units``) without."""
    groups: dict[Group, dict[str, list[TrialRecord]]] = defaultdict(lambda: defaultdict(list))
    for record in records:
        groups[group_of(record)][record.condition].append(record)
    units: dict[Group, dict[str, list[PlannedUnit]]] = defaultdict(lambda: defaultdict(list))
    for unit in planned:
        units[unit.group][unit.condition].append(unit)
        groups[unit.group].setdefault(unit.condition, [])  # planned, perhaps with no record
    keys = result_keys(groups)
    models: dict[str, ModelResult] = {}
    all_outcomes: dict[Group, dict[str, list[ScenarioOutcome]]] = {}
    development: set[str] = set()
    for group in sorted(groups, key=keys.__getitem__):
        per_condition = groups[group]
        group_records = [record for trials in per_condition.values() for record in trials]
        outcomes = {
            condition: scenario_outcomes(per_condition[condition], planned=units[group][condition])
            for condition in sorted(per_condition, key=_condition_order)
        }
        all_outcomes[group] = outcomes
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
        subject, judge, addenda = group
        models[keys[group]] = ModelResult(
            subject=subject,
            judge=judge,
            judge_addenda=addenda,
            conditions={c: condition_result(o) for c, o in outcomes.items()},
            paired=paired,
            temperatures={
                "subject": sorted({r.subject_temperature for r in group_records}),
                "judge": sorted({r.judge_temperature for r in group_records}),
            },
            by_norm={c: breakdown(o, "norm_id") for c, o in outcomes.items()},
            by_event={c: breakdown(o, "event_type") for c, o in outcomes.items()},
        )
    return LosonaAnalysis(
        models=models,
        development_conditions=sorted(development),
        agents=agent_comparisons(groups, all_outcomes, keys),
    )


def analyze(run: LosonaRun) -> LosonaAnalysis:
    """A loaded run's analysis: its records and planned trials (an absent trial is a missing
    label), with the usage and data each subject's logs recorded."""
    analysis = analyze_records(run.records, run.planned)
    analysis.usage = usage_by_run(run.samples)
    analysis.data = data_by_run(run.samples)
    return analysis


def headline_conditions(result: ModelResult) -> list[str]:
    """Conditions of a model that belong in headline tables (never development ones)."""
    return [c for c in result.conditions if c not in DEVELOPMENT_CONDITIONS]
