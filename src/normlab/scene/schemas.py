"""Every SCENE data shape in one place: scenario files, model replies, the episode record, labels.

- Scenario files (Appendix B.8): ``scaffold_v1`` is what the norm-blind generator
  writes (subject-visible); ``scenario_v1`` adds the tuple and the hidden fields
  (persona outlines, sanction script, precedent sub-script, fidelity criteria).
  One extension, from §4.1 ("the scaffold includes ... the subject persona"),
  which B.8 omits: the scaffold carries ``subject`` (name and one-line bio). The
  subject never speaks in the scaffold and is not in the cast. Two more, for scenarios
  exported from a CRSEC society (``normlab crsec export``): ``own_norm`` (a norm from
  outside the dimensions) and ``provenance``; both absent from authored scenarios.
- Model replies: [`ChatAction`][normlab.scene.ChatAction] (every participant, B.3/B.4),
  ``OrchestratorDecision`` (B.5), ``NormAwareReply`` (B.2),
  ``JudgeOutput`` (B.6), ``ListedEvents`` (§5.1), ``FidelityVerdict`` (B.7).
- The episode record (§4.3): [`Episode`][normlab.scene.Episode], the visible chat as shared
  turns ([`Turn`][normlab.core.Turn]) plus the full event stream and call records.
- ``EpisodeLabels``: D, B, S, R as turn ids, whichever labeller produced them.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from normlab.agents import MemoryLog
from normlab.core.chat import Turn, check_turn_ids
from normlab.core.logs import BASE_AGENT
from normlab.core.provenance import ScenarioProvenance
from normlab.models import CallRecord
from normlab.scene.taxonomy import Dimensions, SceneNorm, SceneTuple

ActionKind = Literal["message", "react", "no-op"]
_NO_OP_SPELLINGS = {"no-op", "noop", "no_op", "none", "silent", "silence", "nothing", "pass"}


class CastMember(BaseModel):
    """A participant the subject sees: a scripted persona of the cast, or the subject itself
    (schema:scaffold_v1's ``cast`` entry)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """The name everyone in the chat uses; unique within a scenario."""
    bio_oneline: str
    """The public one-line bio the subject and the personas see."""


class Channel(BaseModel):
    """The group chat: what it is about and who is in it besides the subject."""

    model_config = ConfigDict(extra="forbid")

    description: str
    """The setting as the subject reads it (venue, group, current situation)."""
    cast: list[CastMember] = Field(min_length=3, max_length=4)
    """The scripted personas, three or four; every one has a hidden persona of the same name."""


class ScaffoldTurn(BaseModel):
    """One turn of the chat before the subject's first move."""

    model_config = ConfigDict(extra="forbid")

    turn_id: int
    """Unique within the scenario; a reaction names the turn it reacts to by it."""
    actor: str
    """The cast member who takes the turn."""
    action: ActionKind = "message"
    """``message``, ``react`` (an emoji on an earlier turn) or ``no-op``."""
    content: str
    """The message, or the emoji of a reaction."""


class ScaffoldTranscript(BaseModel):
    """The chat the subject joins: the opening turns, then the elicitor that positions it to
    act where the norm applies."""

    model_config = ConfigDict(extra="forbid")

    opening_turns: list[ScaffoldTurn] = Field(min_length=1)
    """The turns before the elicitor, each by a cast member."""
    elicitor_turn: ScaffoldTurn
    """The message that invites the subject's first reply (a message, by a cast member)."""

    @model_validator(mode="after")
    def _turn_ids_unique(self) -> ScaffoldTranscript:
        check_turn_ids(turn.turn_id for turn in [*self.opening_turns, self.elicitor_turn])
        return self


class Scaffold(BaseModel):
    """schema:scaffold_v1 (+ ``subject``): everything the subject may see."""

    model_config = ConfigDict(extra="forbid")

    channel: Channel
    """The group chat and its cast."""
    subject: CastMember
    """The subject's own persona (not one of the cast)."""
    transcript: ScaffoldTranscript
    """The opening turns and the elicitor."""

    @field_validator("transcript")
    @classmethod
    def _speakers_in_cast(
        cls, transcript: ScaffoldTranscript, info: ValidationInfo
    ) -> ScaffoldTranscript:
        channel, subject = info.data.get("channel"), info.data.get("subject")
        if channel is None or subject is None:
            return transcript  # their own errors are reported
        names = [member.name for member in channel.cast]
        if len(set(names)) != len(names):
            raise ValueError("cast names must be unique")
        if subject.name in names:
            raise ValueError(f"the subject {subject.name!r} must not be in the cast")
        for turn in [*transcript.opening_turns, transcript.elicitor_turn]:
            if turn.actor not in names:
                raise ValueError(f"turn {turn.turn_id} is by {turn.actor!r}, not a cast member")
        if transcript.elicitor_turn.action != "message":
            raise ValueError("the elicitor turn must be a message")
        return transcript


class HiddenPersona(BaseModel):
    """What one scripted persona is told and the subject never sees (B.2, B.3)."""

    model_config = ConfigDict(extra="forbid")

    name: str
    """A cast member's name: the hidden personas are exactly the cast."""
    outline: str
    """The behavioural outline that enacts the norm as observable patterns, never stating it."""
    sanction_lines: list[str] = Field(default_factory=list)
    """The sanction script, used only after a breach, in the tuple's sanction modality."""
    precedent_lines_or_null: list[str] | None = None
    """The precedent sub-script of the one demonstrator (who breaches and is sanctioned
    before the subject's first move) when the tuple's precedent is 1; ``None`` otherwise."""


class FidelityCriteria(BaseModel):
    """What the fidelity auditor (B.7) checks the personas did, to set apart the episodes that
    did not realise the intended test."""

    model_config = ConfigDict(extra="forbid")

    demonstration_min_count: int = Field(ge=0)
    """The fewest norm demonstrations the personas must give."""
    sanction_required_modality: str
    """The only sanction modality the personas may use: the tuple's sanction."""
    precedent_complete_by_turn: int = Field(ge=0)
    """The turn by which a precedent sub-script must be over."""


class Hidden(BaseModel):
    """The norm-aware stage's output: never shown to the subject."""

    model_config = ConfigDict(extra="forbid")

    personas: list[HiddenPersona] = Field(min_length=1)
    """One per cast member, by name."""
    fidelity_criteria: FidelityCriteria
    """What the auditor checks the episode against."""


class SceneScenario(BaseModel):
    """schema:scenario_v1 plus an id: a scaffold, its tuple and the hidden specification.

    Top-level fields a row carries beside these (a release's ``license``) are kept
    (``model_extra``) and ride into the sample's metadata; the loader refuses near misses
    of a field (``normlab.core.fields``). The objects inside stay strict."""

    model_config = ConfigDict(extra="allow")

    scenario_id: str = Field(min_length=1)
    """Unique within a file; an episode's sample id is ``SCENARIO_ID::repN``."""
    scaffold: Scaffold
    """What the subject sees (the norm-blind stage's output)."""
    tuple: SceneTuple
    """τ = (event, norm, elicitor, sanction, precedent): what the scenario tests."""
    hidden: Hidden
    """The personas' instructions and the fidelity criteria (the norm-aware stage's output)."""
    own_norm: SceneNorm | None = Field(default=None, exclude_if=lambda v: v is None)
    """The hidden norm itself, for a norm from outside Appendix A's dimensions (a CRSEC
    society's emergent norm, ``normlab crsec export``); its id is the tuple's norm. None: the
    tuple's norm is one of the dimensions'. Left out of a dump when unset."""
    provenance: ScenarioProvenance | None = Field(default=None, exclude_if=lambda v: v is None)
    """Set on a scenario exported from a CRSEC society: the run, the norm and its spread."""

    @field_validator("own_norm")
    @classmethod
    def _own_norm_is_the_tuples(
        cls, norm: SceneNorm | None, info: ValidationInfo
    ) -> SceneNorm | None:
        scene_tuple = info.data.get("tuple")
        if norm is not None and scene_tuple is not None and norm.id != scene_tuple.norm:
            raise ValueError(
                f"own_norm.id {norm.id!r} must be the tuple's norm {scene_tuple.norm!r}"
            )
        return norm

    @field_validator("hidden")
    @classmethod
    def _hidden_matches_scaffold(cls, hidden: Hidden, info: ValidationInfo) -> Hidden:
        scaffold, scene_tuple = info.data.get("scaffold"), info.data.get("tuple")
        if scaffold is None or scene_tuple is None:
            return hidden  # their own errors are reported
        cast = sorted(member.name for member in scaffold.channel.cast)
        personas = sorted(persona.name for persona in hidden.personas)
        if cast != personas:
            raise ValueError(f"personas {personas} must be exactly the cast {cast}")
        demonstrators = [p.name for p in hidden.personas if p.precedent_lines_or_null]
        if scene_tuple.precedent == 1 and len(demonstrators) != 1:
            raise ValueError(f"precedent = 1 needs exactly one demonstrator, found {demonstrators}")
        if scene_tuple.precedent == 0 and demonstrators:
            raise ValueError(f"precedent = 0 but {demonstrators} have precedent lines")
        required = hidden.fidelity_criteria.sanction_required_modality
        if required != scene_tuple.sanction:
            raise ValueError(
                f"fidelity_criteria.sanction_required_modality {required!r} must equal the "
                f"tuple's sanction {scene_tuple.sanction!r}"
            )
        return hidden

    @property
    def subject(self) -> CastMember:
        return self.scaffold.subject

    def persona(self, name: str) -> HiddenPersona:
        return next(p for p in self.hidden.personas if p.name == name)

    @property
    def demonstrator(self) -> str | None:
        return next((p.name for p in self.hidden.personas if p.precedent_lines_or_null), None)


def with_own_norms(dimensions: Dimensions, norms: list[SceneNorm]) -> Dimensions:
    """``dimensions`` with scenarios' own norms
    ([`SceneScenario.own_norm`][normlab.scene.SceneScenario.own_norm]) added, so that a tuple naming
    one is checked against it; a norm the dimensions already hold stays theirs."""
    added = {norm.id: norm for norm in norms if norm.id not in dimensions.norms}
    if not added:
        return dimensions
    return dimensions.model_copy(update={"norms": {**dimensions.norms, **added}})


class ChatAction(BaseModel):
    """A scripted persona's or the subject's reply: ``{"action", "content", "target_turn_id"}``."""

    action: ActionKind
    content: str = ""
    target_turn_id: int | None = None

    @field_validator("action", mode="before")
    @classmethod
    def _normalise(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.strip().lower()
            return "no-op" if lowered in _NO_OP_SPELLINGS else lowered
        return value

    @field_validator("content", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value

    @model_validator(mode="after")
    def _complete(self) -> ChatAction:
        if self.action == "message" and not self.content.strip():
            raise ValueError("a message needs content")
        if self.action == "react" and (self.target_turn_id is None or not self.content.strip()):
            raise ValueError("a reaction needs an emoji in content and a target_turn_id")
        return self


class OrchestratorDecision(BaseModel):
    """B.5's ``{"next_actor", "terminate"}`` plus the round's full ``order``."""

    next_actor: str = ""
    terminate: bool = False
    order: list[str] = Field(default_factory=list)


class NormAwareReply(BaseModel):
    """B.2 returns scenario_v1; only ``hidden`` is taken, and a scaffold must be unchanged."""

    scaffold: dict[str, Any] | None = None
    tuple: dict[str, Any] | None = None
    hidden: Hidden


# --- the episode record ----------------------------------------------------------------

Phase = Literal["opening", "precedent", "elicitor", "episode"]
LogKind = Literal[
    "entry",
    "no-op",
    "prompt",
    "subject_view",
    "orchestration",
    "parse_failure",
    "model_call",
    "termination",
]


class LogEvent(BaseModel):
    kind: LogKind
    round: int
    actor: str
    detail: dict[str, Any] = Field(default_factory=dict)


class Episode(BaseModel):
    """What the runtime did: ``entries`` is the visible chat (messages and reactions, numbered
    by ``turn_id``, grouped by ``round``); ``log`` is everything, visible or not (no-ops,
    prompts, what the subject was shown, routing, parse failures); ``calls`` is one record per
    model call, with the prefix it shared with that caller's previous prompt."""

    model_config = ConfigDict(extra="ignore")

    scenario_id: str
    tuple: SceneTuple
    subject: str
    entries: list[Turn] = Field(default_factory=list)
    log: list[LogEvent] = Field(default_factory=list)
    calls: list[CallRecord] = Field(default_factory=list)
    rounds: int = 0
    termination: str = ""
    agent: str = BASE_AGENT
    """The agent around the subject model (``base``: none; see ``normlab.agents``)."""
    norm_memory: MemoryLog | None = None
    """The norm-learning subject's readings and norm database, reply by reply."""

    def subject_entries(self) -> list[Turn]:
        return [entry for entry in self.entries if entry.actor == self.subject]


# --- labels ------------------------------------------------------------------------------

Labeller = Literal["turns", "lists"]


SanctionForm = Literal[
    "corrective_reactions",
    "silent_ignore",
    "off_record_sanction",
    "explicit_callout",
    "topic_shift_repair",
    "mocking_imitation",
]
"""The six sanction modalities (Appendix A.5): what a sanction's observed form is labelled as."""


class TurnLabel(BaseModel):
    turn_id: int
    actor: str
    label: Literal["DEMONSTRATION", "BREACH", "SANCTION", "FACE_SAVE_REPAIR", "NONE"]
    modality: SanctionForm | None = None
    """For a SANCTION: the form it took (ours, after B.6), so shape match can be measured."""


class EpisodeMetrics(BaseModel):
    subject_breach_count: int
    subject_corrected: bool
    subject_relapses: int
    subject_face_save: bool
    subject_late_comply: bool
    sanction_shape_match: bool


class JudgeOutput(BaseModel):
    """schema:judge_output_v1 (B.8)."""

    turn_labels: list[TurnLabel]
    episode_metrics: EpisodeMetrics


class ListedEvent(BaseModel):
    turn_id: int
    actor: str
    evidence: str = ""
    modality: SanctionForm | None = None
    """For a sanction: the form it took."""


class ListedEvents(BaseModel):
    events: list[ListedEvent] = Field(default_factory=list)


class EpisodeLabels(BaseModel):
    """D, B, S, R as turn ids, plus SP breaches and each sanction's observed form; ``None``
    lists mean a parse failure. These are the labeller's raw labels: the analysis sets the
    precedent's staged turns apart (``normlab.scene.rules.episode_outcome``)."""

    labeller: Labeller
    demonstrations: list[int] | None
    breaches: list[int] | None
    sanctions: list[int] | None
    repairs: list[int] | None
    persona_breaches: list[int] | None
    sanction_shape_match: bool | None
    """The B.6 judge's own episode-level claim (kept for reference; not used for the metric)."""
    parse_failures: int
    sanction_modalities: dict[int, str] | None = None
    """Turn id → the observed form of that sanction (one of ``SanctionForm``)."""
    truncations: int = 0


class FidelityVerdict(BaseModel):
    label: Literal["VALID", "PARTIAL", "INVALID"]
    justification: str


def norm_of(scenario: SceneScenario, dimensions: Dimensions) -> SceneNorm:
    """The scenario's hidden norm: its own (a CRSEC society's, ``normlab crsec export``), else
    the dimensions' norm its tuple names."""
    return scenario.own_norm or dimensions.norms[scenario.tuple.norm]
