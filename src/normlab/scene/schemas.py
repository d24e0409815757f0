"""SCENE's JSON schemas (paper Appendix B.8) and the one action shape every participant returns.

``scaffold_v1`` is what the norm-blind generator writes (subject-visible);
``scenario_v1`` adds the tuple and the hidden fields (persona outlines, sanction
script, precedent sub-script, fidelity criteria). One extension, from §4.1
("the scaffold includes ... the subject persona"), which B.8 omits: the
scaffold carries ``subject`` (name and one-line bio). The subject never speaks
in the scaffold and is not in the cast.
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

from normlab.scene.taxonomy import SceneTuple

ActionKind = Literal["message", "react", "no-op"]
_NO_OP_SPELLINGS = {"no-op", "noop", "no_op", "none", "silent", "silence", "nothing", "pass"}


class CastMember(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    bio_oneline: str


class Channel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    description: str
    cast: list[CastMember] = Field(min_length=3, max_length=4)


class ScaffoldTurn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    turn_id: int
    actor: str
    action: ActionKind = "message"
    content: str


class ScaffoldTranscript(BaseModel):
    model_config = ConfigDict(extra="forbid")

    opening_turns: list[ScaffoldTurn] = Field(min_length=1)
    elicitor_turn: ScaffoldTurn


class Scaffold(BaseModel):
    """schema:scaffold_v1 (+ ``subject``): everything the subject may see."""

    model_config = ConfigDict(extra="forbid")

    channel: Channel
    subject: CastMember
    transcript: ScaffoldTranscript

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
    model_config = ConfigDict(extra="forbid")

    name: str
    outline: str
    sanction_lines: list[str] = Field(default_factory=list)
    precedent_lines_or_null: list[str] | None = None


class FidelityCriteria(BaseModel):
    model_config = ConfigDict(extra="forbid")

    demonstration_min_count: int = Field(ge=0)
    sanction_required_modality: str
    precedent_complete_by_turn: int = Field(ge=0)


class Hidden(BaseModel):
    """The norm-aware stage's output: never shown to the subject."""

    model_config = ConfigDict(extra="forbid")

    personas: list[HiddenPersona] = Field(min_length=1)
    fidelity_criteria: FidelityCriteria


class SceneScenario(BaseModel):
    """schema:scenario_v1 plus an id: a scaffold, its tuple and the hidden specification."""

    model_config = ConfigDict(extra="forbid")

    scenario_id: str
    scaffold: Scaffold
    tuple: SceneTuple
    hidden: Hidden

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
