"""The norm architecture's data: the personal norm ⟨c, u, α, s_act, s_val⟩ and an agent's
database of them, and what the compliance operations plan with (places, subtasks, memory).

Shared by CRSEC's society (``normlab.crsec``) and the norm-learning subject
(``normlab.agents``): both hold a [`NormDatabase`][normlab.norms.NormDatabase] filled by the same
operations (``normlab.norms.operations``). A personal norm is qualified when it is both
activated and valid.
"""

from __future__ import annotations

from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator

from normlab.core.chat import check_name

NormType = Literal["descriptive", "injunctive"]
"""What a norm says: what people do (descriptive) or what they ought to do (injunctive)."""
Origin = Literal["created", "chat", "thought", "synthesis"]
EvaluationMode = Literal["merged", "faithful", "none"]
"""The immediate evaluation: four checks in one call, one call each, or none (the ablation)."""


class Place(BaseModel):
    """A place an agent can be: an action names where it happens, so "smoking outside" is a
    place, not only words."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """Unique within the society; what plans and actions name."""
    indoor: StrictBool
    """Whether the place is indoors, for whoever reads the file: no operation reads it (the
    name is what agents and the judge see). Strict: a society file that says ``1`` or
    ``"yes"`` is malformed, not indoor."""
    _visible = field_validator("name")(check_name)
    description: str = ""
    """What the place is; a scenario exported from the society describes its places by it."""


class PersonalNorm(BaseModel):
    """⟨content, utility, type, activated, valid⟩ with provenance."""

    id: int
    content: str
    utility: int = Field(ge=0, le=100)
    type: NormType
    activated: bool
    valid: bool
    origin: Origin
    source_text: str = ""
    time: str = ""
    """Simulated time it entered the database (``day 1 09:15``)."""
    rejection: str | None = None
    """Why the immediate evaluation rejected it (it stays, neither activated nor valid)."""
    members: list[int] = Field(default_factory=list)
    """For an abstract norm: the ids it was synthesized from."""

    @property
    def qualified(self) -> bool:
        return self.activated and self.valid


class NormDatabase(BaseModel):
    """One agent's personal norm database (§2.1): every norm it created, identified,
    accepted or rejected, and what triggers its next synthesis."""

    norms: list[PersonalNorm] = Field(default_factory=list)
    """Every norm the agent holds or rejected, each with its origin, validity and utility."""
    synthesis_counter: int = 0
    """Utility accepted since the last synthesis, initial norms excluded (the authors' trigger)."""
    last_synthesis_of: str | None = None
    """The qualified set (ids) the last synthesis saw: not attempted again until it changes."""

    def qualified(self) -> list[PersonalNorm]:
        return [norm for norm in self.norms if norm.qualified]

    def next_id(self) -> int:
        return max((norm.id for norm in self.norms), default=0) + 1

    def qualified_utility(self) -> int:
        return sum(norm.utility for norm in self.qualified())


class Subtask(BaseModel):
    action: str
    minutes: int
    place: str


class Memory(BaseModel):
    """What an agent remembers beyond its norms, for its plan and action prompts: its latest
    conversations and observations, each with its time. The paper's agents carry none there
    (Figures 17–18 hold the norms only); a newcomer of either arm carries this one, so that a
    base model can carry a sanction into its next plan as well as a norm database can."""

    conversations: list[str] = Field(default_factory=list)
    observations: list[str] = Field(default_factory=list)


class Actor(Protocol):
    """The agent an operation acts for, as its prompts describe it (a society's
    ``AgentSpec``, a newcomer)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def daily_requirement(self) -> str: ...

    @property
    def first_name(self) -> str: ...
