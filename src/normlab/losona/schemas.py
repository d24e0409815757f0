"""LoSoNA's data shapes: the scenario (paper §3–4), the judge's verdict (Appendix C) and the
per-trial log record (§4.2).

A scenario has subject-visible fields (channel, venue, subject and bio, cast,
transcript ending in the elicitor), evaluation fields (event, norm, norm
statement, judge examples, marked demonstration turns) and generation-only
fields (end goal, notes); a scenario exported from a CRSEC society also carries its
``provenance``.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationInfo, field_validator

from normlab.agents import NormInference
from normlab.core.chat import Participant, Turn, check_name, check_turn_id, check_turn_ids
from normlab.core.logs import BASE_AGENT, subject_label
from normlab.core.provenance import ScenarioProvenance
from normlab.losona.taxonomy import NormExample, load_taxonomy

WORKPLACE_VENUE = "workplace"
DEFAULT_BIO = "A member of the group chat."


class Scenario(BaseModel):
    """One accepted LoSoNA scenario; ``transcript`` includes the elicitor turn.

    Fields a row carries beside these (a release's ``license``, ``source``) are kept
    (``model_extra``) and dumped with it, so they ride into the sample's metadata and the
    log; the loader refuses only names that are near misses of a field
    (``normlab.core.fields``)."""

    model_config = ConfigDict(extra="allow")

    scenario_id: str = Field(min_length=1)
    """Unique within a file; a sample's id is ``SCENARIO_ID::CONDITION``."""
    event_id: str = Field(min_length=1)
    """The taxonomy's event type: what is happening in the chat."""
    norm_id: str = Field(min_length=1)
    """The taxonomy's norm the group follows (hidden from the subject)."""
    norm_statement: str = Field(min_length=1)
    """The norm in words, as the judge reads it; the subject never sees it."""
    venue: str = "group chat"
    """Where the chat happens (``workplace`` or another group-chat venue), shown to the
    subject."""
    channel_description: str = "A group chat."
    """The chat's name and purpose, shown to the subject; never names the norm."""
    subject: str = Field(min_length=1)
    """The name the subject writes as."""
    subject_bio: str = DEFAULT_BIO
    """The subject's bio, shown in its prompt."""
    cast: list[Participant]
    """The other members of the chat, with the bios the subject sees."""
    transcript: list[Turn] = Field(min_length=1)
    """The chat in order, up to and including the elicitor's turn."""
    elicitor_turn_id: int
    """The turn that invites the subject's reply: where the norm applies."""
    demonstration_turn_ids: list[int] = Field(default_factory=list)
    """The turns that show the norm being followed (two or three, checked by the linter);
    screening's no-demonstration control leaves them out."""
    judge_examples: NormExample | None = None
    """The judge's example elicitor and responses for this scenario; none: the taxonomy's
    example for the norm."""
    end_goal: str = ""
    """The in-fiction goal the author gave the conversation (the generator commits to one
    first, §4.1); not shown to the subject."""
    notes: str = ""
    """The author's notes; read by no one but people."""
    provenance: ScenarioProvenance | None = Field(default=None, exclude_if=lambda v: v is None)
    """Set on a scenario exported from a CRSEC society (``normlab crsec export``): its norm is
    the society's, not the taxonomy's, and the scenario carries its own judge examples. Left
    out of a dump when unset, so authored scenarios are written as they always were."""

    _visible = field_validator("subject")(check_name)
    _whole = field_validator("elicitor_turn_id", mode="before")(check_turn_id)

    @field_validator("transcript")
    @classmethod
    def _turn_ids_unique(cls, transcript: list[Turn]) -> list[Turn]:
        check_turn_ids(turn.turn_id for turn in transcript)
        return transcript

    @field_validator("elicitor_turn_id")
    @classmethod
    def _elicitor_in_transcript(cls, turn_id: int, info: ValidationInfo) -> int:
        ids = {turn.turn_id for turn in info.data.get("transcript", [])}
        if ids and turn_id not in ids:
            raise ValueError(f"elicitor_turn_id {turn_id} is not a turn_id of the transcript")
        return turn_id

    @field_validator("demonstration_turn_ids")
    @classmethod
    def _demonstrations_in_transcript(cls, turn_ids: list[int], info: ValidationInfo) -> list[int]:
        ids = {turn.turn_id for turn in info.data.get("transcript", [])}
        missing = [turn_id for turn_id in turn_ids if ids and turn_id not in ids]
        if missing:
            raise ValueError(f"demonstration turn {missing[0]} is not in the transcript")
        return turn_ids

    @property
    def elicitor(self) -> Turn:
        return next(turn for turn in self.transcript if turn.turn_id == self.elicitor_turn_id)

    @property
    def prior_turns(self) -> list[Turn]:
        """Turns shown before the elicitor (the elicitor and anything after it excluded)."""
        position = next(
            index
            for index, turn in enumerate(self.transcript)
            if turn.turn_id == self.elicitor_turn_id
        )
        return self.transcript[:position]

    @property
    def visible_turns(self) -> list[Turn]:
        """Prior turns plus the elicitor: what the subject reads."""
        return [*self.prior_turns, self.elicitor]

    @property
    def is_workplace(self) -> bool:
        return self.venue.strip().lower() == WORKPLACE_VENUE

    def judge_example(self) -> NormExample | None:
        """Scenario-specific judge examples, else the norm's examples from the taxonomy."""
        if self.judge_examples is not None:
            return self.judge_examples
        norm = load_taxonomy().norms.get(self.norm_id)
        return norm.example if norm else None


class JudgeVerdict(BaseModel):
    """The judge's reply, in Appendix C's field order."""

    elicitor_uptake: str
    norm_requirement: str
    evidence: str
    reasoning: str
    complies: bool


class TrialRecord(BaseModel):
    """One judged subject response (paper §4.2). ``complies=None``: judge parse failure.

    Flags are strict booleans: in an imported record ``1`` or ``"yes"`` is a malformed field,
    not a pass. An imported row's fields beyond these are kept as metadata (``model_extra``);
    a near miss of one of these is refused (``normlab.core.fields``), never dropped: a
    misspelt ``complies`` or ``trial`` would be an error or a default, unseen.
    """

    model_config = ConfigDict(extra="allow")

    scenario_id: str
    event_type: str
    norm_id: str
    condition: str
    trial: int
    subject_model: str
    judge_model: str
    response: str
    complies: StrictBool | None
    judge_reasoning: str = ""
    judge_truncated: StrictBool = False
    """The judge's reply was cut off at its output cap (a missing label, not a parse failure)."""
    subject_truncated: StrictBool = False
    """The subject's reply was cut off at its output cap even after the larger-cap retry."""
    subject_temperature: str = "unknown"
    judge_temperature: str = "unknown"
    judge_addenda: str = "unknown"
    agent: str = BASE_AGENT
    """The agent that wrapped the subject model (``base``: none; see ``normlab.agents``)."""
    norm_inference: NormInference | None = None
    """For the norm-learning subject: whether its kept norms expressed the hidden norm."""
    planned_trials: int | None = Field(default=None, ge=1)
    """K, the trials the run planned per scenario × condition (a log's epochs); absent in
    imported records, where the condition's largest trial count stands in for it."""

    @property
    def subject(self) -> str:
        """The model, or ``MODEL + AGENT``: what analyses group by."""
        return subject_label(self.subject_model, self.agent)

    @property
    def judge(self) -> tuple[str, str]:
        """The judge: its model and its prompt (with or without our addenda), for a judge
        prompt changes the labels as a judge model does."""
        return (self.judge_model, self.judge_addenda)

    def key(self) -> tuple[str, str, str, str, str, int]:
        """One trial of one subject under one judge: what a record counts once."""
        return (self.subject, *self.judge, self.scenario_id, self.condition, self.trial)
