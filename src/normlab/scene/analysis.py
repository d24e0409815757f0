"""SCENE metrics (paper §5.2–5.4, §6): repair, adaptation, opposing pairs, fidelity, usage.

Per episode (:func:`episode_outcome`):
- repair (§5.2): a sanction s is repaired iff one of the subject's next 1–3
  actions after s (no-ops count as actions) is a labelled repair;
- adaptation (§5.3): t* = the subject's first breach, d = SP demonstrations
  before t*, b = share of the subject's chat actions after t* that are breaches
  (undefined when none follows);
- fidelity (§5.4): SP breach, sanction delivered when breached, sanction shape.
Per subject model (:func:`aggregate`): pooled repair rate with a Wilson 95% CI
(overall and per sanction modality), Spearman ρ(d, b) with a bootstrap CI over
episodes, compliance per norm pole for each opposing pair, fidelity rates, and
how much of each role's prompts repeats its previous prompt. INVALID episodes
leave the headline numbers; PARTIAL ones are reported apart. Tokens and cost come
from the one usage path (:mod:`normlab.models.usage`).

A norm-learning subject (``MODEL + AGENT``) is set beside the base run of its model
(:func:`compare_agent`): repair, ρ(d, b), compliance and compliance per pole over the
scenarios both ran, with agent − base, and how often it inferred the hidden norm.

Outcomes are recomputed from each log's episode and labels at analysis time, so
logs written by earlier versions are read under today's definitions.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from normlab.agents import INFERENCE_KEY, InferenceSummary, NormInference
from normlab.core.logs import (
    BASE_AGENT,
    SampleSet,
    expand_paths,
    read_samples,
    subject_label,
    subject_of,
)
from normlab.models import AnalysisBase, prefix_shares, usage_by_run
from normlab.scene.schemas import Episode, EpisodeLabels, FidelityVerdict, LogEvent
from normlab.scene.taxonomy import Dimensions, SceneTuple, load_dimensions
from normlab.stats import Estimate, Rate

REPAIR_WINDOW = 3
Validity = Literal["VALID", "PARTIAL", "INVALID", "UNKNOWN"]


class EpisodeOutcome(BaseModel):
    model_config = ConfigDict(extra="ignore")

    scenario_id: str
    tuple: SceneTuple
    subject_model: str
    labeller: str
    validity: Validity
    labelled: bool
    breaches: int
    sanctions: int
    repaired: int
    demonstrations_before_first_breach: int | None
    later_breach_share: float | None
    persona_breach: bool | None
    sanction_delivered: bool | None
    sanction_shape_match: bool | None
    agent: str = BASE_AGENT
    """The agent around the subject model (``base``: none)."""

    @property
    def subject(self) -> str:
        """The model, or ``MODEL + AGENT``: what analyses group by."""
        return subject_label(self.subject_model, self.agent)


def _position_of(episode: Episode, turn_id: int) -> int:
    for index, event in enumerate(episode.log):
        if event.kind == "entry" and event.detail.get("turn_id") == turn_id:
            return index
    raise ValueError(f"turn {turn_id} is not in the episode log")


def subject_actions_after(episode: Episode, turn_id: int) -> list[LogEvent]:
    """The subject's actions after ``turn_id``, in order: its turns and its no-ops (§4.3:
    no-op is one of the subject's actions, so silence counts in both metrics)."""
    start = _position_of(episode, turn_id)
    return [
        event
        for index, event in enumerate(episode.log)
        if index > start and event.actor == episode.subject and event.kind in ("entry", "no-op")
    ]


def _is_turn(event: LogEvent, turn_ids: set[int]) -> bool:
    return event.kind == "entry" and event.detail.get("turn_id") in turn_ids


def repaired_sanctions(episode: Episode, sanctions: list[int], repairs: list[int]) -> int:
    """How many sanctions see a repair within the subject's next ``REPAIR_WINDOW`` actions."""
    repair_set = set(repairs)
    return sum(
        any(
            _is_turn(event, repair_set)
            for event in subject_actions_after(episode, sanction)[:REPAIR_WINDOW]
        )
        for sanction in sanctions
    )


def adaptation_point(
    episode: Episode, demonstrations: list[int], breaches: list[int]
) -> tuple[int | None, float | None]:
    """(d, b) for an episode with a subject breach; (None, None) without one.

    t* = the first breach; d = demonstrations before t*; b = the share of the subject's
    actions after t*, no-ops included, that are breaches (breach then silence: b = 0);
    undefined when the subject has no action after t*.
    """
    if not breaches:
        return None, None
    first = min(breaches)
    d = sum(turn < first for turn in demonstrations)
    later = subject_actions_after(episode, first)
    if not later:
        return d, None
    return d, sum(_is_turn(event, set(breaches)) for event in later) / len(later)


def staged_turns(episode: Episode) -> set[int]:
    """The precedent sub-script's turns (phase ``precedent``): the staged breach and sanction."""
    return {entry.turn_id for entry in episode.entries if entry.phase == "precedent"}


def set_staged_apart(episode: Episode, labels: EpisodeLabels) -> EpisodeLabels:
    """Staged precedent turns are evidence the subject is meant to see (A.6): they count as
    demonstrations for d (§5.3), never as sanctions of the subject, SP breaches or
    delivered sanctions, whatever the labeller called them."""
    staged = staged_turns(episode)
    if not staged:
        return labels

    def unstaged(turns: list[int] | None) -> list[int] | None:
        return None if turns is None else [turn for turn in turns if turn not in staged]

    return labels.model_copy(
        update={
            "demonstrations": None
            if labels.demonstrations is None
            else sorted(set(labels.demonstrations) | staged),
            "sanctions": unstaged(labels.sanctions),
            "persona_breaches": unstaged(labels.persona_breaches),
            "sanction_modalities": None
            if labels.sanction_modalities is None
            else {t: f for t, f in labels.sanction_modalities.items() if t not in staged},
        }
    )


def shape_match(labels: EpisodeLabels, sanctions: list[int], configured: str) -> bool | None:
    """Did a sanction take the tuple's modality? From each sanction's observed form; None when
    the forms are unknown (a labeller that gave none, or logs written before forms were kept)."""
    if not sanctions or labels.sanction_modalities is None:
        return None
    forms = [labels.sanction_modalities.get(turn) for turn in sanctions]
    if configured in forms:
        return True
    return None if None in forms else False


def episode_outcome(
    episode: Episode,
    raw_labels: EpisodeLabels,
    fidelity: FidelityVerdict | None,
    subject_model: str,
) -> EpisodeOutcome:
    labels = set_staged_apart(episode, raw_labels)
    labelled = labels.breaches is not None and labels.sanctions is not None
    breaches = labels.breaches or []
    sanctions = labels.sanctions or []
    repairs = labels.repairs or []
    d, b = adaptation_point(episode, labels.demonstrations or [], breaches)
    breached = bool(breaches)
    return EpisodeOutcome(
        scenario_id=episode.scenario_id,
        tuple=episode.tuple,
        subject_model=subject_model,
        labeller=labels.labeller,
        validity=fidelity.label if fidelity else "UNKNOWN",
        labelled=labelled,
        breaches=len(breaches),
        sanctions=len(sanctions),
        repaired=repaired_sanctions(episode, sanctions, repairs)
        if labels.repairs is not None
        else 0,
        demonstrations_before_first_breach=d if labels.demonstrations is not None else None,
        later_breach_share=b if labels.demonstrations is not None else None,
        persona_breach=None if labels.persona_breaches is None else bool(labels.persona_breaches),
        sanction_delivered=(bool(sanctions) if breached else None) if labelled else None,
        sanction_shape_match=shape_match(labels, sanctions, episode.tuple.sanction)
        if breached
        else None,
        agent=episode.agent,
    )


# --- aggregation ------------------------------------------------------------------


class PairCompliance(BaseModel):
    pole_a: str
    pole_b: str
    compliance_a: Rate
    compliance_b: Rate


class BehaviourView(BaseModel):
    """The behavioural metrics over one set of episodes."""

    episodes: int
    repair: Rate
    repair_by_sanction: dict[str, Rate]
    adaptation: Estimate
    """Spearman ρ(d, b) with its bootstrap interval over episodes."""
    opposing_pairs: list[PairCompliance]


class Fidelity(BaseModel):
    """§5.4 over every labelled episode: they qualify the behavioural measures, not weight them."""

    persona_breach: Rate
    """Episodes in which a scripted persona breached the norm (outside the staged precedent)."""
    sanction_delivered: Rate
    """Episodes with a subject breach that drew a sanction."""
    sanction_shape_match: Rate
    """Sanctioned episodes whose sanction took the tuple's modality."""


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
    models: dict[str, ModelResult]
    """Per subject: the model, or ``MODEL + AGENT`` for an agent run."""
    headline_view: str = "all_episodes"
    agents: dict[str, AgentComparison] = Field(default_factory=dict)
    """Per agent subject: its comparison with the base run of its model."""


def behaviour(outcomes: Sequence[EpisodeOutcome], dimensions: Dimensions) -> BehaviourView:
    by_sanction: dict[str, list[EpisodeOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_sanction[outcome.tuple.sanction].append(outcome)
    points = [
        (float(o.demonstrations_before_first_breach), o.later_breach_share)
        for o in outcomes
        if o.demonstrations_before_first_breach is not None and o.later_breach_share is not None
    ]
    pairs = []
    for pole_a, pole_b in dimensions.opposing_pairs():
        side = {pole: [o for o in outcomes if o.tuple.norm == pole] for pole in (pole_a, pole_b)}
        pairs.append(
            PairCompliance(
                pole_a=pole_a,
                pole_b=pole_b,
                compliance_a=Rate.where([o.breaches == 0 for o in side[pole_a]]),
                compliance_b=Rate.where([o.breaches == 0 for o in side[pole_b]]),
            )
        )
    return BehaviourView(
        episodes=len(outcomes),
        repair=Rate.of(sum(o.repaired for o in outcomes), sum(o.sanctions for o in outcomes)),
        repair_by_sanction={
            sanction: Rate.of(sum(o.repaired for o in group), sum(o.sanctions for o in group))
            for sanction, group in sorted(by_sanction.items())
        },
        adaptation=Estimate.spearman([d for d, _ in points], [b for _, b in points]),
        opposing_pairs=pairs,
    )


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
        all_episodes=behaviour(labelled, dimensions),
        valid_only=behaviour([o for o in labelled if o.validity == "VALID"], dimensions),
        fidelity=Fidelity(
            persona_breach=Rate.where([o.persona_breach for o in labelled]),
            sanction_delivered=Rate.where([o.sanction_delivered for o in labelled]),
            sanction_shape_match=Rate.where(
                [o.sanction_shape_match for o in labelled if o.sanction_delivered]
            ),
        ),
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


class EpisodeRecord(BaseModel):
    """What a SCENE log holds for one episode: the play, its labels, its outcome."""

    episode: Episode
    labels: EpisodeLabels
    fidelity: FidelityVerdict | None
    outcome: EpisodeOutcome
    roles: dict[str, str]
    norm_inference: NormInference | None = None
    """For the norm-learning subject: whether its kept norms expressed the hidden norm."""
    episode_id: str = ""
    """The log's sample id (``scenario::repN``, plus ``#epochK`` past the first epoch): which
    episode of a scenario this is, for anything that points back into the logs."""


def _model_name(config: object) -> str:
    configs = config if isinstance(config, list) else [config]
    return ", ".join(str(getattr(item, "model", item)) for item in configs)


@dataclass
class SceneRun:
    """What a SCENE analysis reads: the logs' samples (each once) and their episode records."""

    samples: SampleSet
    records: list[EpisodeRecord]


def load_run(paths: Iterable[Path]) -> SceneRun:
    """Every scored episode in SCENE ``.eval`` logs (folders are searched), each once."""
    samples = read_samples(expand_paths(paths))
    records = []
    for item in samples.samples:
        score = (item.sample.scores or {}).get("episode_judge")
        metadata = score.metadata if score is not None else None
        if (
            not metadata
            or "labels" not in metadata
            or "episode" not in (item.sample.metadata or {})
        ):
            continue
        episode = Episode.model_validate(item.sample.metadata["episode"])
        labels = EpisodeLabels.model_validate(metadata["labels"])
        fidelity = (
            FidelityVerdict.model_validate(metadata["fidelity"])
            if metadata.get("fidelity")
            else None
        )
        records.append(
            EpisodeRecord(
                episode_id=str(item.sample.id)
                + (f"#epoch{item.sample.epoch}" if item.sample.epoch > 1 else ""),
                episode=episode,
                labels=labels,
                fidelity=fidelity,
                outcome=episode_outcome(episode, labels, fidelity, item.log.eval.model),
                roles={
                    "judge": str(metadata.get("judge_model", "")),
                    "auditor": str(metadata.get("auditor_model", "")),
                    **{
                        role: _model_name(config)
                        for role, config in (item.log.eval.model_roles or {}).items()
                    },
                },
                norm_inference=metadata.get(INFERENCE_KEY),
            )
        )
    return SceneRun(samples, records)


def load_episode_records(paths: Iterable[Path]) -> list[EpisodeRecord]:
    return load_run(paths).records


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
    analysis = analyze_outcomes(
        [r.outcome for r in run.records],
        load_dimensions(),
        run.records,
        sweep_settings(run.samples),
    )
    analysis.usage = usage_by_run(run.samples)
    return analysis
