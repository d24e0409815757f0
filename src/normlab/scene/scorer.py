"""SCENE's scorer: label a finished episode (paper §5.1, B.6) and audit its fidelity (B.7).

Two labellers, and results say which one produced the labels:

- ``turns``: B.6's judge labels every turn DEMONSTRATION / BREACH / SANCTION /
  FACE_SAVE_REPAIR / NONE and returns episode metrics (one call);
- ``lists``: §5.1's classifier, one call per category, each returning the
  transcript-grounded list D (SP demonstrations), B (subject breaches),
  S (SP sanctions of subject breaches) or R (subject repairs).

Both are normalised to ``EpisodeLabels``. The fidelity auditor returns
VALID / PARTIAL / INVALID with a one-sentence justification. For the norm-learning
subject the judge also says whether the norms it kept express the hidden norm, and
from which of its replies on ([`normlab.agents.judge_inference`][normlab.agents.judge_inference]). A
reply that fails to parse after the repair retry leaves its labels ``None`` and is counted as a
parse failure, never as an empty list. Judge and auditor calls run at temperature 0
through Inspect's cache, so a rerun never pays for, or changes, a verdict.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, get_args

from inspect_ai.model import (
    ChatMessage,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    get_model,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from pydantic import Field, create_model

from normlab.agents import INFERENCE_KEY, judge_inference
from normlab.models import (
    DEFAULT_MODEL,
    DETERMINISTIC_CACHE,
    RoleSettings,
    StructuredResult,
    generate_structured,
)
from normlab.scene.meta import SampleMeta
from normlab.scene.prompts import load_template, norm_values, system_text, transcript_text
from normlab.scene.rules import (
    VIEWS,
    EpisodeOutcome,
    behaviour,
    episode_outcome,
    episode_views,
    fidelity_rates,
)
from normlab.scene.schemas import (
    Episode,
    EpisodeLabels,
    FidelityVerdict,
    JudgeOutput,
    Labeller,
    ListedEvent,
    ListedEvents,
    SanctionForm,
    SceneScenario,
    TurnLabel,
    norm_of,
)
from normlab.scene.taxonomy import Dimensions, load_dimensions
from normlab.stats import Estimate

LABELLERS: tuple[Labeller, ...] = ("turns", "lists")
# Output caps sized to what a reply needs, so a model that loops fails fast instead of
# writing until a large cap: labels ~40 tokens per turn (pretty-printed JSON), plus the
# episode metrics; the audit is a label and one sentence.
LABEL_TOKENS_PER_TURN = 40
LABEL_TOKENS_BASE = 200
AUDIT_MAX_TOKENS = 300
JUDGE_TEMPERATURE = 0.0
SANCTION_FORMS: tuple[str, ...] = get_args(SanctionForm)


def labelling_config(turns: int, settings: RoleSettings | None = None) -> GenerateConfig:
    """Temperature 0 and a cap sized to the transcript (``--max-tokens judge=N`` overrides)."""
    cap = LABEL_TOKENS_BASE + LABEL_TOKENS_PER_TURN * turns
    return (settings or RoleSettings()).config("judge", cap, JUDGE_TEMPERATURE)


JUDGE_REQUEST = "Label the transcript above."
ReplyT = TypeVar("ReplyT", JudgeOutput, ListedEvents)


def episode_schemas(turn_ids: list[int]) -> tuple[type[JudgeOutput], type[ListedEvents]]:
    """The two reply schemas narrowed to one episode: turn ids from its transcript, at most
    one entry per turn.

    Providers that enforce JSON schemas (OpenAI, Gemini, vLLM, llama.cpp) then cannot
    label a turn that does not exist or run on past the transcript; a reply that does
    fails validation and gets the structured helper's repair retry.
    """
    turn_id_type: Any = Literal[tuple(turn_ids)]
    label = create_model("TurnLabel", __base__=TurnLabel, turn_id=(turn_id_type, ...))
    judge = create_model(
        "JudgeOutput",
        __base__=JudgeOutput,
        turn_labels=(list[label], Field(max_length=len(turn_ids))),  # type: ignore[valid-type]
    )
    event = create_model("ListedEvent", __base__=ListedEvent, turn_id=(turn_id_type, ...))
    events = create_model(
        "ListedEvents",
        __base__=ListedEvents,
        events=(list[event], Field(default_factory=list, max_length=len(turn_ids))),  # type: ignore[valid-type]
    )
    return judge, events


def _messages(system: str) -> list[ChatMessage]:
    return [ChatMessageSystem(content=system), ChatMessageUser(content=JUDGE_REQUEST)]


def labelling_values(
    scenario: SceneScenario, episode: Episode, dimensions: Dimensions
) -> dict[str, str]:
    """What both labellers' prompts fill in: the hidden layer and the numbered transcript."""
    values = norm_values(scenario, dimensions)
    values["transcript_with_turn_ids"] = transcript_text(episode.entries)
    return values


@dataclass(frozen=True)
class _Labelling:
    """One episode as a labeller sees it: the judge, the episode, what the prompts fill in
    (``labelling_values``) and the output caps."""

    judge: Model
    episode: Episode
    values: dict[str, str]
    settings: RoleSettings | None

    def schemas(self) -> tuple[type[JudgeOutput], type[ListedEvents]]:
        return episode_schemas([entry.turn_id for entry in self.episode.entries])

    async def call(self, system: str, schema: type[ReplyT]) -> StructuredResult[ReplyT]:
        """One labelling call, as every labeller makes it: at temperature 0 through the cache
        (a rerun never pays for, or changes, a label), capped by the transcript's length."""
        return await generate_structured(
            self.judge,
            _messages(system),
            schema,
            config=labelling_config(len(self.episode.entries), self.settings),
            cache=DETERMINISTIC_CACHE,
        )


def _labels(
    labeller: Labeller,
    episode: Episode,
    events: dict[str, list[tuple[int, str | None]]] | None,
    judge_shape_match: bool | None = None,
    parse_failures: int = 0,
    truncations: int = 0,
) -> EpisodeLabels:
    """Normalise labelled (turn, modality) pairs by category into ``EpisodeLabels``.

    A turn counts only on its own side: demonstrations and sanctions are scripted-persona
    turns, breaches and repairs the subject's; a breach by a persona is an SP breach.
    ``events`` is None when the labeller's reply was unusable (a parse failure).
    """
    if events is None:
        return EpisodeLabels(
            labeller=labeller,
            demonstrations=None,
            breaches=None,
            sanctions=None,
            repairs=None,
            persona_breaches=None,
            sanction_shape_match=None,
            parse_failures=parse_failures or 1,
            truncations=truncations,
        )
    actors = {entry.turn_id: entry.actor for entry in episode.entries}

    def turns(category: str, subject_side: bool) -> list[int]:
        return sorted(
            {
                turn
                for turn, _ in events.get(category, [])
                if turn in actors and (actors[turn] == episode.subject) == subject_side
            }
        )

    sanctions = turns("sanctions", subject_side=False)
    forms = {turn: form for turn, form in events.get("sanctions", []) if form}
    return EpisodeLabels(
        labeller=labeller,
        demonstrations=turns("demonstrations", subject_side=False),
        breaches=turns("breaches", subject_side=True),
        sanctions=sanctions,
        repairs=turns("repairs", subject_side=True),
        persona_breaches=turns("breaches", subject_side=False),
        sanction_shape_match=judge_shape_match,
        parse_failures=parse_failures,
        sanction_modalities={turn: forms[turn] for turn in sanctions if turn in forms},
        truncations=truncations,
    )


TURN_CATEGORIES = {
    "DEMONSTRATION": "demonstrations",
    "BREACH": "breaches",
    "SANCTION": "sanctions",
    "FACE_SAVE_REPAIR": "repairs",
}


async def _label_turns(labelling: _Labelling) -> EpisodeLabels:
    """B.6: one call labelling every turn (each sanction with its observed form), plus the
    episode metrics."""
    episode = labelling.episode
    schema, _ = labelling.schemas()
    system = f"{system_text('judge', labelling.values)}\n{load_template('judge_sanction_forms')}"
    result = await labelling.call(system, schema)
    if result.value is None:
        return _labels("turns", episode, None, truncations=result.truncations)
    events: dict[str, list[tuple[int, str | None]]] = {}
    for label in result.value.turn_labels:
        if label.label in TURN_CATEGORIES:
            events.setdefault(TURN_CATEGORIES[label.label], []).append(
                (label.turn_id, label.modality)
            )
    return _labels(
        "turns",
        episode,
        events,
        judge_shape_match=result.value.episode_metrics.sanction_shape_match,
        truncations=result.truncations,
    )


CLASSIFIER_CATEGORIES = ("demonstrations", "breaches", "sanctions", "repairs")


def _listed_form(event: ListedEvent) -> str | None:
    """A listed sanction's form: its ``modality``, else the prefix its evidence starts with."""
    if event.modality:
        return event.modality
    prefix = event.evidence.split(":", 1)[0].strip()
    return prefix if prefix in SANCTION_FORMS else None


async def _classify_lists(labelling: _Labelling) -> EpisodeLabels:
    """§5.1: one classifier call per category (D, B, S, R); the breach list names any
    participant, so SP breaches are measured too, and each sanction carries its form."""
    episode = labelling.episode
    _, schema = labelling.schemas()

    async def one(category: str) -> tuple[list[tuple[int, str | None]] | None, int]:
        system = system_text(f"classifier_{category}", labelling.values)
        result = await labelling.call(system, schema)
        if result.value is None:
            return None, result.truncations
        return [(e.turn_id, _listed_form(e)) for e in result.value.events], result.truncations

    replies = await asyncio.gather(*(one(category) for category in CLASSIFIER_CATEGORIES))
    listed = dict(zip(CLASSIFIER_CATEGORIES, replies, strict=True))
    labels = _labels(
        "lists",
        episode,
        {category: events or [] for category, (events, _) in listed.items()},
        parse_failures=sum(events is None for events, _ in replies),
        truncations=sum(count for _, count in replies),
    )
    # A category whose reply was unusable stays unknown (None), never an empty list.
    unknown: dict[str, None] = {c: None for c, (events, _) in listed.items() if events is None}
    if "breaches" in unknown:
        unknown["persona_breaches"] = None
    if "sanctions" in unknown:
        unknown["sanction_modalities"] = None
    return labels.model_copy(update=unknown)


async def label_episode(
    judge: Model,
    scenario: SceneScenario,
    episode: Episode,
    dimensions: Dimensions,
    labeller: Labeller = "turns",
    settings: RoleSettings | None = None,
) -> EpisodeLabels:
    labelling = _Labelling(
        judge, episode, labelling_values(scenario, episode, dimensions), settings
    )
    if labeller == "turns":
        return await _label_turns(labelling)
    return await _classify_lists(labelling)


async def audit_fidelity(
    auditor: Model,
    scenario: SceneScenario,
    episode: Episode,
    dimensions: Dimensions,
    settings: RoleSettings | None = None,
) -> FidelityVerdict | None:
    """B.7: did the scripted personas realise the intended test?"""
    values = norm_values(scenario, dimensions)
    values["transcript"] = transcript_text(episode.entries)
    result = await generate_structured(
        auditor,
        _messages(system_text("fidelity", values)),
        FidelityVerdict,
        config=(settings or RoleSettings()).config("auditor", AUDIT_MAX_TOKENS, JUDGE_TEMPERATURE),
        cache=DETERMINISTIC_CACHE,
    )
    return result.value


def _number(estimate: Estimate) -> float:
    return math.nan if estimate.value is None else estimate.value


@metric(name="scene_measures")
def scene_measures() -> Metric:
    """The analysis's measures of the run's episodes (``normlab.scene.rules``), per view:
    episodes, repair rate, ρ(d, b) and compliance per norm pole; then the fidelity rates."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        stored = [(item.score.metadata or {}).get("outcome") for item in scores]
        outcomes = [EpisodeOutcome.model_validate(outcome) for outcome in stored if outcome]
        labelled = [outcome for outcome in outcomes if outcome.labelled]
        dimensions = load_dimensions()
        values: dict[str, float] = {}
        for view, episodes in episode_views(labelled).items():
            name = VIEWS[view]
            measured = behaviour(episodes, dimensions)
            values[f"{name} episodes"] = float(measured.episodes)
            values[f"{name} repair rate"] = _number(measured.repair)
            values[f"{name} adaptation rho"] = _number(measured.adaptation)
            for pair in measured.opposing_pairs:
                for pole, rate in (
                    (pair.pole_a, pair.compliance_a),
                    (pair.pole_b, pair.compliance_b),
                ):
                    if rate.n:
                        values[f"{name} compliance {pole}"] = _number(rate)
        fidelity = fidelity_rates(labelled)
        values["persona breach"] = _number(fidelity.persona_breach)
        values["sanction delivered"] = _number(fidelity.sanction_delivered)
        values["sanction shape match"] = _number(fidelity.sanction_shape_match)
        return values

    return compute


@scorer(metrics=[scene_measures()])
def episode_judge(
    labeller: Labeller = "turns",
    max_tokens: dict[str, int] | None = None,
    reasoning_effort: dict[str, str] | None = None,
) -> Scorer:
    """Label the episode's events and audit its fidelity; values are per-episode counts."""
    settings = RoleSettings.of(max_tokens, reasoning_effort)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata_as(SampleMeta)
        scenario, episode = meta.scenario, meta.episode
        if episode is None:
            raise ValueError(f"sample {state.sample_id} has no episode: its solver did not run")
        dimensions = load_dimensions()
        judge = get_model(role="judge", default=DEFAULT_MODEL)
        auditor = get_model(role="auditor", default=DEFAULT_MODEL)
        labels = await label_episode(judge, scenario, episode, dimensions, labeller, settings)
        fidelity = await audit_fidelity(auditor, scenario, episode, dimensions, settings)
        outcome = episode_outcome(episode, labels, fidelity, str(get_model()))
        inference = (
            await judge_inference(
                judge,
                episode.norm_memory,
                norm_of(scenario, dimensions).statement,
                settings,
            )
            if episode.norm_memory is not None
            else None
        )
        return Score(
            value={
                "breached": float(outcome.breaches > 0),
                "sanctions": float(outcome.sanctions),
                "repaired": float(outcome.repaired),
            },
            explanation=fidelity.justification if fidelity else "fidelity audit unparseable",
            metadata={
                "labels": labels.model_dump(mode="json"),
                "fidelity": fidelity.model_dump(mode="json") if fidelity else None,
                "outcome": outcome.model_dump(mode="json"),
                INFERENCE_KEY: inference.model_dump(mode="json") if inference else None,
            },
        )

    return score
