"""SCENE analysis (paper §5.2–5.4, §6): per subject model, the measures of
``normlab.scene.rules`` over its episodes, both views, fidelity, prompt reuse and usage.

Per subject model (``summarize_model``): the measures of every labelled episode (the
headline, §5.4: fidelity qualifies, it does not exclude) and of VALID episodes only (B.7),
the fidelity rates, parse failures and truncations per role, and how much of each role's
prompts repeats its previous prompt. Tokens and cost come from the one usage path
(``normlab.models.usage``).

INVALID, PARTIAL and UNKNOWN episodes stay in the headline and are counted per verdict; only
the VALID-only view leaves them out (B.7 drops INVALID from the headline; the README lists
this under "Where we differ"). In ρ(d, b), b is the share of *all* the subject's actions after
its first breach that are breaches, no-ops included (§4.3: silence is an action), and the staged
precedent counts only as demonstrations for d (``normlab.scene.rules.episode_outcome``).

A norm-learning subject (``MODEL + AGENT``) is set beside the base run of its model
(``compare_agent``): repair, ρ(d, b), compliance and compliance per pole over the
scenarios both ran, with agent − base, and how often it inferred the hidden norm.

This module is the one reader of SCENE logs ([`load_run`][normlab.scene.load_run],
[`record_of`][normlab.scene.record_of]), for the command line, the report, the audit and the web
reader alike. Outcomes are recomputed from each log's episode and labels
(``normlab.scene.rules.episode_outcome``, as the scorer computes them), never read from what a
scorer stored, so logs written by earlier versions are read under today's definitions; each role's
model is read from the log's header.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from normlab.agents import INFERENCE_KEY, InferenceSummary, NormInference
from normlab.core.logs import (
    BASE_AGENT,
    LogSample,
    SampleSet,
    expand_paths,
    read_samples,
    role_model,
    role_models,
    subject_of,
)
from normlab.core.sources import data_by_run
from normlab.models import AnalysisBase, prefix_shares, usage_by_run
from normlab.scene.meta import SampleMeta
from normlab.scene.rules import (
    BehaviourView,
    EpisodeOutcome,
    Fidelity,
    behaviour,
    episode_outcome,
    episode_views,
    fidelity_rates,
)
from normlab.scene.schemas import Episode, EpisodeLabels, FidelityVerdict
from normlab.scene.taxonomy import Dimensions, load_dimensions
from normlab.stats import Estimate, Rate

SCORER = "episode_judge"
SCORING_ROLES = ("judge", "auditor")
"""The roles the scorer calls: the labeller (B.6 or §5.1) and the fidelity auditor (B.7)."""

# --- loading --------------------------------------------------------------------------


class EpisodeRecord(BaseModel):
    """What a SCENE log holds for one episode: the play, its labels, its outcome."""

    episode: Episode
    labels: EpisodeLabels
    """The labeller's labels as it gave them (the staged precedent not yet set apart)."""
    fidelity: FidelityVerdict | None
    outcome: EpisodeOutcome
    """Recomputed from the episode and labels under today's ``normlab.scene.rules``,
    never the outcome a scorer stored, so logs of every release read alike."""
    roles: dict[str, str]
    norm_inference: NormInference | None = None
    """For the norm-learning subject: whether its kept norms expressed the hidden norm."""
    episode_id: str = ""
    """The log's sample id (``scenario::repN``, plus ``#epochK`` past the first epoch): which
    episode of a scenario this is, for anything that points back into the logs."""


@dataclass
class SceneRun:
    """What a SCENE analysis reads: the logs' samples (each once) and their episode records."""

    samples: SampleSet
    records: list[EpisodeRecord]


def record_of(item: LogSample) -> EpisodeRecord | None:
    """The episode record of one SCENE sample, or None when it was never scored.

    The judge's and auditor's models come from the log's header, which names every role the
    task declares; a log written before tasks declared their default roles names only those
    given on the command line, and its scorer kept the two in score metadata, read instead.
    """
    score = (item.sample.scores or {}).get(SCORER)
    metadata = score.metadata if score is not None else None
    meta = SampleMeta.of(item.sample)
    if not metadata or "labels" not in metadata or meta is None or meta.episode is None:
        return None
    episode = meta.episode
    labels = EpisodeLabels.model_validate(metadata["labels"])
    fidelity = (
        FidelityVerdict.model_validate(metadata["fidelity"]) if metadata.get("fidelity") else None
    )
    sample = item.sample
    return EpisodeRecord(
        episode_id=str(sample.id) + (f"#epoch{sample.epoch}" if sample.epoch > 1 else ""),
        episode=episode,
        labels=labels,
        fidelity=fidelity,
        outcome=episode_outcome(episode, labels, fidelity, item.log.eval.model),
        roles={
            **{
                role: role_model(item.log, role, metadata.get(f"{role}_model"))
                for role in SCORING_ROLES
            },
            **role_models(item.log),
        },
        norm_inference=metadata.get(INFERENCE_KEY),
    )


def load_run(paths: Iterable[Path]) -> SceneRun:
    """Every scored episode in SCENE ``.eval`` logs (folders are searched), each once."""
    samples = read_samples(expand_paths(paths))
    records = [record for item in samples.samples if (record := record_of(item)) is not None]
    return SceneRun(samples, records)


def load_episode_records(paths: Iterable[Path]) -> list[EpisodeRecord]:
    """The scored episodes of the logs at ``paths`` (folders searched), each once."""
    return load_run(paths).records


# --- results --------------------------------------------------------------------------


class CallFailures(BaseModel):
    parse_failures: int = 0
    truncations: int = 0


class ModelResult(BaseModel):
    labellers: list[str]
    episodes: int
    validity: dict[str, int]
    """Episodes per fidelity verdict; UNKNOWN: the auditor's reply could not be used."""
    unlabelled_episodes: int
    all_episodes: BehaviourView
    """The headline (§5.4, §6): every labelled episode, whatever its fidelity verdict."""
    valid_only: BehaviourView
    """B.7's view: VALID episodes only (PARTIAL, INVALID and UNKNOWN left out, and counted)."""
    fidelity: Fidelity
    call_failures: dict[str, CallFailures]
    """Per role: replies that never parsed and replies cut off at their cap (after retries)."""
    prompt_reuse: dict[str, float | None]
    """Per role: share of prompt characters repeating that caller's previous prompt."""
    sweep: dict[str, str]
    """How the episodes were chosen: sampler, repetitions, tuples (from the task's arguments)."""


class Shift(BaseModel):
    """One measure of the base model and of the agent around it, side by side, and agent − base."""

    base: Estimate
    agent: Estimate
    delta: Estimate
    """Paired over scenarios (bootstrap CI) where the measure allows it; else a point
    difference with no interval."""


class RateShift(Shift):
    base: Rate
    agent: Rate


class PoleShift(RateShift):
    pole: str


class AgentComparison(BaseModel):
    """The norm-learning subject against its model alone, over the scenarios both ran
    (every labelled episode, the headline view)."""

    model: str
    agent: str
    scenarios: int
    """Scenarios both runs have labelled episodes of (what the comparison covers)."""
    episodes: tuple[int, int]
    """(base, agent) labelled episodes of those scenarios."""
    repair: RateShift
    """Repair rate; Δ with a paired bootstrap over scenarios of the pooled rates."""
    adaptation: Shift
    """Spearman ρ(d, b); Δ a point difference (the two ρ are over different episodes)."""
    compliance: RateShift
    """Share of episodes without a subject breach; Δ paired over scenarios."""
    poles: list[PoleShift]
    """Compliance per norm pole of the opposing pairs (point differences)."""
    inference: InferenceSummary
    """Whether the agent's kept norms expressed the hidden norm, and from which reply on."""


class SceneAnalysis(AnalysisBase):
    """SCENE's numbers per subject (norm inference, sanction recognition, repair, adaptation,
    with fidelity over all episodes), in both views, and each agent's comparison with its base
    model; what ``scene analyze --json`` prints."""

    models: dict[str, ModelResult]
    """Per subject: the model, or ``MODEL + AGENT`` for an agent run."""
    headline_view: str = "all_episodes"
    """The view the headline numbers come from: all episodes (the VALID-only view, the
    episodes the fidelity auditor labelled VALID, is reported beside it)."""
    agents: dict[str, AgentComparison] = Field(default_factory=dict)
    """Per agent subject: its comparison with the base run of its model."""


def summarize_model(
    outcomes: Sequence[EpisodeOutcome],
    dimensions: Dimensions,
    records: Sequence[EpisodeRecord] = (),
    sweep: dict[str, str] | None = None,
) -> ModelResult:
    labelled = [o for o in outcomes if o.labelled]
    validity: dict[str, int] = defaultdict(int)
    for outcome in outcomes:
        validity[outcome.validity] += 1
    calls = [call for record in records for call in record.episode.calls]
    return ModelResult(
        labellers=sorted({o.labeller for o in outcomes}),
        episodes=len(outcomes),
        validity=dict(sorted(validity.items())),
        unlabelled_episodes=len(outcomes) - len(labelled),
        **{view: behaviour(group, dimensions) for view, group in episode_views(labelled).items()},
        fidelity=fidelity_rates(labelled),
        call_failures=call_failures(records),
        prompt_reuse=prefix_shares(calls),
        sweep=sweep or {},
    )


def call_failures(records: Sequence[EpisodeRecord]) -> dict[str, CallFailures]:
    """Parse failures and truncations per role: the episode's own calls, the labeller's and
    the auditor's (a missing fidelity verdict)."""
    failures: dict[str, CallFailures] = defaultdict(CallFailures)
    for record in records:
        for call in record.episode.calls:
            failures[call.role].parse_failures += call.parse_failed and not call.truncated
            failures[call.role].truncations += call.truncated
        failures["judge"].parse_failures += record.labels.parse_failures
        failures["judge"].truncations += record.labels.truncations
        failures["auditor"].parse_failures += record.fidelity is None
    return dict(sorted(failures.items()))


def _per_scenario(outcomes: Iterable[EpisodeOutcome]) -> dict[str, list[EpisodeOutcome]]:
    grouped: dict[str, list[EpisodeOutcome]] = defaultdict(list)
    for outcome in outcomes:
        grouped[outcome.scenario_id].append(outcome)
    return grouped


def _compliance(outcomes: Sequence[EpisodeOutcome]) -> float:
    return sum(o.breaches == 0 for o in outcomes) / len(outcomes)


def compare_agent(
    base: Sequence[EpisodeOutcome],
    treated: Sequence[EpisodeOutcome],
    dimensions: Dimensions,
    inference: InferenceSummary,
) -> AgentComparison:
    """The agent's labelled episodes against the base model's, on the scenarios both ran."""
    base_by, treated_by = (_per_scenario(o for o in side if o.labelled) for side in (base, treated))
    shared = sorted(set(base_by) & set(treated_by))
    base_view = behaviour([o for s in shared for o in base_by[s]], dimensions)
    treated_view = behaviour([o for s in shared for o in treated_by[s]], dimensions)

    def counts(group: list[EpisodeOutcome]) -> tuple[int, int]:
        return sum(o.repaired for o in group), sum(o.sanctions for o in group)

    poles = []
    for base_pair, treated_pair in zip(
        base_view.opposing_pairs, treated_view.opposing_pairs, strict=True
    ):
        for pole, base_rate, treated_rate in (
            (base_pair.pole_a, base_pair.compliance_a, treated_pair.compliance_a),
            (base_pair.pole_b, base_pair.compliance_b, treated_pair.compliance_b),
        ):
            if base_rate.n or treated_rate.n:
                poles.append(
                    PoleShift(
                        pole=pole,
                        base=base_rate,
                        agent=treated_rate,
                        delta=Estimate.difference(treated_rate, base_rate),
                    )
                )
    first = treated[0]
    return AgentComparison(
        model=first.subject_model,
        agent=first.agent,
        scenarios=len(shared),
        episodes=(base_view.episodes, treated_view.episodes),
        repair=RateShift(
            base=base_view.repair,
            agent=treated_view.repair,
            delta=Estimate.paired_rate_delta(
                [counts(treated_by[s]) for s in shared], [counts(base_by[s]) for s in shared]
            ),
        ),
        adaptation=Shift(
            base=base_view.adaptation,
            agent=treated_view.adaptation,
            delta=Estimate.difference(treated_view.adaptation, base_view.adaptation),
        ),
        compliance=RateShift(
            base=Rate.where([o.breaches == 0 for s in shared for o in base_by[s]]),
            agent=Rate.where([o.breaches == 0 for s in shared for o in treated_by[s]]),
            delta=Estimate.paired_delta(
                [_compliance(treated_by[s]) for s in shared],
                [_compliance(base_by[s]) for s in shared],
            ),
        ),
        poles=poles,
        inference=inference,
    )


def analyze_outcomes(
    outcomes: Sequence[EpisodeOutcome],
    dimensions: Dimensions,
    records: Sequence[EpisodeRecord] = (),
    sweeps: dict[str, dict[str, str]] | None = None,
) -> SceneAnalysis:
    by_model: dict[str, list[EpisodeOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_model[outcome.subject].append(outcome)
    agents = {}
    for subject, group in sorted(by_model.items()):
        first = group[0]
        if first.agent == BASE_AGENT:
            continue
        inference = InferenceSummary.of(
            [r.norm_inference for r in records if r.outcome.subject == subject]
        )
        agents[subject] = compare_agent(
            by_model.get(first.subject_model, []), group, dimensions, inference
        )
    return SceneAnalysis(
        models={
            model: summarize_model(
                group,
                dimensions,
                [r for r in records if r.outcome.subject == model],
                (sweeps or {}).get(model),
            )
            for model, group in sorted(by_model.items())
        },
        agents=agents,
    )


SWEEP_SETTINGS = ("sampler", "reps", "max_turns", "labeller")


def sweep_settings(samples: SampleSet) -> dict[str, dict[str, str]]:
    """Per subject model, how its episodes were chosen and shaped (from each log's task)."""
    settings: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for log in samples.logs:
        metadata = log.eval.metadata or {}
        subject = subject_of(log)
        for name in SWEEP_SETTINGS:
            settings[subject][name].add(str(metadata.get(name, "unknown")))
        tuples = (log.eval.task_args or {}).get("tuples")
        settings[subject]["tuples"].add("all" if tuples is None else str(tuples))
    return {
        model: {name: ", ".join(sorted(values)) for name, values in by_name.items()}
        for model, by_name in settings.items()
    }


def analyze(run: SceneRun) -> SceneAnalysis:
    """A loaded run's analysis against the shipped dimensions, with the sweep's settings and
    the usage and data each subject's logs recorded."""
    analysis = analyze_outcomes(
        [r.outcome for r in run.records],
        load_dimensions(),
        run.records,
        sweep_settings(run.samples),
    )
    analysis.usage = usage_by_run(run.samples)
    analysis.data = data_by_run(run.samples)
    return analysis
