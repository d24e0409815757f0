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
calls and tokens per episode and per role. INVALID episodes leave the headline
numbers; PARTIAL ones are reported apart.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from normlab import stats
from normlab.core.errors import InputError
from normlab.core.logs import expand_paths
from normlab.models.usage import usage_by_role
from normlab.scene.episode import Episode
from normlab.scene.judging import EpisodeLabels, FidelityVerdict
from normlab.scene.taxonomy import Dimensions, SceneTuple

REPAIR_WINDOW = 3
Interval = tuple[float | None, float | None]
Validity = Literal["VALID", "PARTIAL", "INVALID", "UNKNOWN"]


class EpisodeOutcome(BaseModel):
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
    calls_by_role: dict[str, int]
    input_tokens_by_role: dict[str, int]
    cached_input_tokens_by_role: dict[str, int]
    output_tokens_by_role: dict[str, int]
    shared_prefix_chars_by_role: dict[str, int]
    prompt_chars_by_role: dict[str, int]


def _position_of(episode: Episode, turn_id: int) -> int:
    for index, event in enumerate(episode.log):
        if event.kind == "entry" and event.detail.get("turn_id") == turn_id:
            return index
    raise ValueError(f"turn {turn_id} is not in the episode log")


def repaired_sanctions(episode: Episode, sanctions: list[int], repairs: list[int]) -> int:
    """How many sanctions see a repair within the subject's next ``REPAIR_WINDOW`` actions."""
    repair_set = set(repairs)
    subject_events = [
        (index, event)
        for index, event in enumerate(episode.log)
        if event.actor == episode.subject and event.kind in ("entry", "no-op")
    ]
    count = 0
    for sanction in sanctions:
        start = _position_of(episode, sanction)
        following = [event for index, event in subject_events if index > start][:REPAIR_WINDOW]
        if any(
            event.kind == "entry" and event.detail.get("turn_id") in repair_set
            for event in following
        ):
            count += 1
    return count


def adaptation_point(
    episode: Episode, demonstrations: list[int], breaches: list[int]
) -> tuple[int | None, float | None]:
    """(d, b) for an episode with a subject breach; (None, None) without one."""
    if not breaches:
        return None, None
    first = min(breaches)
    d = sum(turn < first for turn in demonstrations)
    later = [entry.turn_id for entry in episode.subject_entries() if entry.turn_id > first]
    if not later:
        return d, None
    return d, sum(turn in set(breaches) for turn in later) / len(later)


def _by_role(episode: Episode, attribute: str) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for call in episode.calls:
        totals[call.role] += 1 if attribute == "calls" else getattr(call, attribute)
    return dict(totals)


def episode_outcome(
    episode: Episode,
    labels: EpisodeLabels,
    fidelity: FidelityVerdict | None,
    subject_model: str,
) -> EpisodeOutcome:
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
        sanction_shape_match=labels.sanction_shape_match if breached else None,
        calls_by_role=_by_role(episode, "calls"),
        input_tokens_by_role=_by_role(episode, "input_tokens"),
        cached_input_tokens_by_role=_by_role(episode, "cached_input_tokens"),
        output_tokens_by_role=_by_role(episode, "output_tokens"),
        shared_prefix_chars_by_role=_by_role(episode, "shared_prefix_chars"),
        prompt_chars_by_role=_by_role(episode, "prompt_chars"),
    )


# --- aggregation ------------------------------------------------------------------


class Rate(BaseModel):
    """k/n with a Wilson 95% interval."""

    k: int
    n: int
    rate: float | None
    ci: Interval

    @classmethod
    def of(cls, k: int, n: int) -> Rate:
        lo, hi = stats.wilson_interval(k, n)
        return cls(k=k, n=n, rate=k / n if n else None, ci=(lo, hi) if n else (None, None))


class Adaptation(BaseModel):
    rho: float | None
    ci: Interval
    n_episodes: int


class PairCompliance(BaseModel):
    pole_a: str
    pole_b: str
    compliance_a: Rate
    compliance_b: Rate


class EpisodeRoleUsage(BaseModel):
    """One role's mean calls and tokens per episode, and how much of its input was reused."""

    calls_per_episode: float
    input_tokens_per_episode: float
    output_tokens_per_episode: float
    shared_prefix_share: float | None
    cached_input_share: float | None


class ModelSummary(BaseModel):
    labellers: list[str]
    episodes: int
    validity: dict[str, int]
    repair: Rate
    repair_by_sanction: dict[str, Rate]
    repair_partial: Rate
    adaptation: Adaptation
    opposing_pairs: list[PairCompliance]
    persona_breach: Rate
    sanction_delivered: Rate
    sanction_shape_match: Rate
    usage_by_role: dict[str, EpisodeRoleUsage]
    unlabelled_episodes: int


class RunRoleUsage(BaseModel):
    """One role's calls, tokens and cost per episode over a run, from Inspect's model events.

    Unlike :class:`EpisodeRoleUsage` this covers every role, the judge and auditor
    (which act in the scorer) included, and carries the dollar cost where Inspect
    knows the model's price.
    """

    calls: float
    input_tokens: float
    cached_input_share: float
    output_tokens: float
    cost: float | None


class SceneAnalysis(BaseModel):
    models: dict[str, ModelSummary]
    all_roles_per_episode: dict[str, dict[str, RunRoleUsage]] = Field(default_factory=dict)


def _rate_where(outcomes: Sequence[EpisodeOutcome], attribute: str) -> Rate:
    known = [getattr(o, attribute) for o in outcomes if getattr(o, attribute) is not None]
    return Rate.of(sum(bool(value) for value in known), len(known))


def summarize_model(outcomes: Sequence[EpisodeOutcome], dimensions: Dimensions) -> ModelSummary:
    labelled = [o for o in outcomes if o.labelled]
    headline = [o for o in labelled if o.validity in ("VALID", "UNKNOWN")]
    partial = [o for o in labelled if o.validity == "PARTIAL"]
    by_sanction: dict[str, list[EpisodeOutcome]] = defaultdict(list)
    for outcome in headline:
        by_sanction[outcome.tuple.sanction].append(outcome)
    points = [
        (o.demonstrations_before_first_breach, o.later_breach_share)
        for o in headline
        if o.demonstrations_before_first_breach is not None and o.later_breach_share is not None
    ]
    rho, (lo, hi) = stats.spearman_ci(
        [float(d) for d, _ in points if d is not None],
        [float(b) for _, b in points if b is not None],
    )
    pairs = []
    for pole_a, pole_b in dimensions.opposing_pairs():
        side = {pole: [o for o in headline if o.tuple.norm == pole] for pole in (pole_a, pole_b)}
        pairs.append(
            PairCompliance(
                pole_a=pole_a,
                pole_b=pole_b,
                compliance_a=Rate.of(sum(o.breaches == 0 for o in side[pole_a]), len(side[pole_a])),
                compliance_b=Rate.of(sum(o.breaches == 0 for o in side[pole_b]), len(side[pole_b])),
            )
        )
    roles = sorted({role for o in outcomes for role in o.calls_by_role})
    usage = {}
    for role in roles:
        prompt_chars = sum(o.prompt_chars_by_role.get(role, 0) for o in outcomes)
        shared = sum(o.shared_prefix_chars_by_role.get(role, 0) for o in outcomes)
        input_tokens = sum(o.input_tokens_by_role.get(role, 0) for o in outcomes)
        cached = sum(o.cached_input_tokens_by_role.get(role, 0) for o in outcomes)
        usage[role] = EpisodeRoleUsage(
            calls_per_episode=sum(o.calls_by_role.get(role, 0) for o in outcomes) / len(outcomes),
            input_tokens_per_episode=input_tokens / len(outcomes),
            output_tokens_per_episode=sum(o.output_tokens_by_role.get(role, 0) for o in outcomes)
            / len(outcomes),
            shared_prefix_share=shared / prompt_chars if prompt_chars else None,
            cached_input_share=cached / input_tokens if input_tokens else None,
        )
    validity: dict[str, int] = defaultdict(int)
    for outcome in outcomes:
        validity[outcome.validity] += 1
    return ModelSummary(
        labellers=sorted({o.labeller for o in outcomes}),
        episodes=len(outcomes),
        validity=dict(validity),
        repair=Rate.of(sum(o.repaired for o in headline), sum(o.sanctions for o in headline)),
        repair_by_sanction={
            sanction: Rate.of(sum(o.repaired for o in group), sum(o.sanctions for o in group))
            for sanction, group in sorted(by_sanction.items())
        },
        repair_partial=Rate.of(sum(o.repaired for o in partial), sum(o.sanctions for o in partial)),
        adaptation=Adaptation(
            rho=stats.finite_or_none(rho),
            ci=(stats.finite_or_none(lo), stats.finite_or_none(hi)),
            n_episodes=len(points),
        ),
        opposing_pairs=pairs,
        persona_breach=_rate_where(headline, "persona_breach"),
        sanction_delivered=_rate_where(headline, "sanction_delivered"),
        sanction_shape_match=_rate_where(headline, "sanction_shape_match"),
        usage_by_role=usage,
        unlabelled_episodes=len(outcomes) - len(labelled),
    )


def aggregate(outcomes: Sequence[EpisodeOutcome], dimensions: Dimensions) -> SceneAnalysis:
    by_model: dict[str, list[EpisodeOutcome]] = defaultdict(list)
    for outcome in outcomes:
        by_model[outcome.subject_model].append(outcome)
    return SceneAnalysis(
        models={
            model: summarize_model(group, dimensions) for model, group in sorted(by_model.items())
        }
    )


class EpisodeRecord(BaseModel):
    """What a SCENE log holds for one episode: the play, its labels, its outcome."""

    episode: Episode
    labels: EpisodeLabels
    outcome: EpisodeOutcome
    roles: dict[str, str]


def usage_per_episode_by_model(paths: Sequence[Path]) -> dict[str, dict[str, RunRoleUsage]]:
    """Per subject model and role: calls, tokens and cost per episode over SCENE logs."""
    from inspect_ai.log import read_eval_log

    logs_by_model: dict[str, list[Path]] = defaultdict(list)
    episodes: dict[str, int] = defaultdict(int)
    for path in expand_paths(paths):
        header = read_eval_log(str(path), header_only=True)
        logs_by_model[header.eval.model].append(path)
        episodes[header.eval.model] += header.results.completed_samples if header.results else 0
    result: dict[str, dict[str, RunRoleUsage]] = {}
    for model, logs in logs_by_model.items():
        n = max(1, episodes[model])
        result[model] = {
            role: RunRoleUsage(
                calls=usage.calls / n,
                input_tokens=usage.input_tokens / n,
                cached_input_share=usage.cached_share,
                output_tokens=usage.output_tokens / n,
                cost=None if usage.cost is None else usage.cost / n,
            )
            for role, usage in sorted(usage_by_role(logs).items())
        }
    return result


def _model_name(config: object) -> str:
    configs = config if isinstance(config, list) else [config]
    return ", ".join(str(getattr(item, "model", item)) for item in configs)


def load_episode_records(paths: Sequence[Path]) -> list[EpisodeRecord]:
    """Every scored episode in SCENE ``.eval`` logs (folders are searched)."""
    from inspect_ai.log import read_eval_log

    records = []
    for path in expand_paths(paths):
        try:
            log = read_eval_log(str(path))
        except Exception as error:  # Inspect raises several types for unreadable logs
            raise InputError(path, f"not a readable Inspect log ({error})") from error
        for sample in log.samples or []:
            score = (sample.scores or {}).get("episode_judge")
            metadata = score.metadata if score is not None else None
            if (
                not metadata
                or "outcome" not in metadata
                or "episode" not in (sample.metadata or {})
            ):
                continue
            records.append(
                EpisodeRecord(
                    episode=Episode.model_validate(sample.metadata["episode"]),
                    labels=EpisodeLabels.model_validate(metadata["labels"]),
                    outcome=EpisodeOutcome.model_validate(metadata["outcome"]),
                    roles={
                        "judge": str(metadata.get("judge_model", "")),
                        "auditor": str(metadata.get("auditor_model", "")),
                        **{
                            role: _model_name(config)
                            for role, config in (log.eval.model_roles or {}).items()
                        },
                    },
                )
            )
    return records
