"""CRSEC's data shapes: the society file, the run's config, the world state, the metrics.

A society file (JSON or YAML) sets up the experiment without code: the agents
(the paper's descriptions verbatim, plus our structured fields: role, stances,
relationships, daily requirement), the places (so that "smoking outside" is a
place, not only words), the norms at stake, and the clock.

The personal norm and its database are the norm architecture's (``normlab.norms.schemas``), the
lines of ``events.jsonl`` are in ``normlab.crsec.sim.events``, the model's replies in
``normlab.norms.replies``.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from normlab.core.chat import check_name
from normlab.norms.schemas import EvaluationMode, Memory, NormDatabase, NormType, Place, Subtask

Stance = Literal["for", "against", "neutral"]


class TargetNorm(BaseModel):
    """A norm at stake, whose emergence the metrics follow."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9_]+$")
    """The norm's name in the metrics, the trace and the exports (``no_smoking_indoors``)."""
    statement: str = Field(min_length=1)
    """The norm in words, as the judge matches agents' norms against it."""
    type: NormType
    """Descriptive or injunctive."""
    compliance: str = Field(min_length=1)
    """What complying looks like, for the judge of plans and actions."""
    violation: str = Field(min_length=1)
    """What violating looks like, for the judge."""
    keywords: list[str] = Field(default_factory=list)
    """Word beginnings (``smok``, ``tip``) that mark an event as about this norm, for the trace."""
    occasion: str = ""
    """What gives an agent the chance, each hour, to follow or break the norm, as words after a
    name ("feels like smoking a cigarette"): a newcomer's hourly occasion (``crsec newcomer``
    gives it the same opportunity every hour); empty: the file names none."""


class AgentSpec(BaseModel):
    """One agent of the society, as its prompts describe it."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """Unique within the society; what the others call the agent."""
    description: str = Field(min_length=1)
    """The agent description the paper's prompts carry (Hobbs Cafe's verbatim, Figures
    5–6)."""
    role: Literal["entrepreneur", "ordinary"]
    """A norm entrepreneur creates personal norms at the start (§2.1); an ordinary agent only
    acquires them."""
    age: int | None = Field(default=None, ge=0, le=150)
    """The agent's age, if the file gives one."""
    traits: str = ""
    """The agent's traits, shown beside its answers in the human questionnaire."""
    occupation: str = ""
    """What the agent does for a living (an exported scenario's bio)."""
    stances: dict[str, Stance] = Field(default_factory=dict)
    """Per norm at stake (its ``id``): for, against or neutral."""
    relationships: list[str] = Field(default_factory=list)
    """How the agent relates to the others, in words."""
    daily_requirement: str = ""
    """The day's goal the plan prompt carries ("Carlos SMOKES at Hobbs Cafe from 9 to 10 am")."""

    _visible = field_validator("name")(check_name)

    @property
    def first_name(self) -> str:
        return self.name.split()[0]

    @property
    def identity(self) -> str:
        return "a norm entrepreneur" if self.role == "entrepreneur" else "an ordinary agent"


MAX_DAYS = 30
"""The most simulated days a society runs, and the most a newcomer's continuation adds."""


class Society(BaseModel):
    """A society file: agents, places, norms at stake and the clock."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """The society's name (``Hobbs Cafe``)."""
    source: str = ""
    """Where its descriptions come from, and what the file's authors wrote themselves."""
    start: str = "2023-02-13"
    """The first simulated day, a calendar date (YYYY-MM-DD)."""
    days: int = Field(default=2, ge=1, le=MAX_DAYS)
    """Simulated days (``crsec run --days`` overrides it)."""
    active_hours: tuple[int, int] = (8, 16)
    """The hours of each day simulated, ``[start, end]`` (``--hours``)."""
    tick_minutes: int = Field(default=5, ge=1, le=60)
    """Simulated minutes per tick; must divide an hour (``--tick-minutes``)."""
    initial_norms_per_entrepreneur: int = Field(default=5, ge=0, le=20)
    """Personal norms each entrepreneur creates at the start (§2.1)."""
    synthesis_threshold: int = Field(default=350, ge=1)
    """The sum of qualified utilities past which an agent synthesizes its norms (§2.3)."""
    places: list[Place] = Field(min_length=1)
    """Where agents can be; names unique."""
    home: str
    """The place every agent starts in, and where an action naming no place happens."""
    norms: list[TargetNorm] = Field(min_length=1)
    """The norms at stake, whose emergence the metrics follow."""
    agents: list[AgentSpec] = Field(min_length=2)
    """The agents; names unique."""

    @field_validator("start")
    @classmethod
    def _date(cls, value: str) -> str:
        """The first simulated day, a real calendar date (2023-02-30 is none)."""
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ValueError(f"start must be a calendar date YYYY-MM-DD, got {value!r}") from None
        return value

    @field_validator("active_hours")
    @classmethod
    def _hours(cls, value: tuple[int, int]) -> tuple[int, int]:
        start, end = value
        if not 0 <= start < end <= 24:
            raise ValueError("active_hours must be [start, end] with 0 ≤ start < end ≤ 24")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Society:
        places = [place.name for place in self.places]
        if len(set(places)) != len(places):
            raise ValueError("place names must be unique")
        if self.home not in places:
            raise ValueError(f"home {self.home!r} is not one of the places {places}")
        names = [agent.name for agent in self.agents]
        if len(set(names)) != len(names):
            raise ValueError("agent names must be unique")
        norm_ids = {norm.id for norm in self.norms}
        if len(norm_ids) != len(self.norms):
            raise ValueError("norm ids must be unique")
        for agent in self.agents:
            unknown = set(agent.stances) - norm_ids
            if unknown:
                raise ValueError(
                    f"agent {agent.name!r} has a stance on unknown norm {sorted(unknown)[0]!r}"
                )
        if (60 % self.tick_minutes) != 0:
            raise ValueError("tick_minutes must divide an hour")
        return self

    def agent(self, name: str) -> AgentSpec:
        return next(agent for agent in self.agents if agent.name == name)

    @property
    def ticks_per_hour(self) -> int:
        return 60 // self.tick_minutes


# --- a run ---------------------------------------------------------------------------

Ablation = Literal[
    "no_entrepreneurs", "no_communication", "no_observation", "no_evaluation", "no_synthesis"
]
ABLATIONS: tuple[Ablation, ...] = (
    "no_entrepreneurs",
    "no_communication",
    "no_observation",
    "no_evaluation",
    "no_synthesis",
)


class RunConfig(BaseModel):
    """``config.json``: everything that decides a run's events (a resumed run reads it back)."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    society: Society
    society_file: str
    seed: int = 0
    models: dict[str, str]
    """Role → model: ``agent`` (every agent's calls) and ``judge`` (the metrics)."""
    faithful: bool = False
    """One call per operation as the paper describes: conflict detection per observation,
    the four checks of the immediate evaluation apart, conversations of up to 10 utterances."""
    ablations: list[Ablation] = Field(default_factory=list)
    synthesis_trigger: Literal["paper", "counter"] = "paper"
    max_utterances: int = Field(default=6, ge=2, le=20)
    pair_buffer_minutes: int = Field(default=130, ge=0)
    """Two agents do not talk again within this time (authors' code: 800 steps of 10 s ≈ 2.2 h)."""
    max_observations: int = Field(default=8, ge=1)
    """Attention bandwidth: at most this many new observations per agent per tick."""
    classify_hint: bool = False
    """Add the authors' code's steer to ClassifySpecificNorms (smoking-, noise-, tip-related)."""
    temperature: float | None = None
    max_tokens: int | None = Field(default=None, ge=16)
    """One output cap for every agent call, replacing each operation's own (reasoning models
    spend thinking tokens inside the cap)."""

    @property
    def evaluation_mode(self) -> EvaluationMode:
        if "no_evaluation" in self.ablations:
            return "none"
        return "faithful" if self.faithful else "merged"

    @property
    def label(self) -> str:
        """What sets this run apart in a comparison: its ablations, or ``full``."""
        return "+".join(self.ablations) or "full"


class AgentState(BaseModel):
    name: str
    place: str
    action: str
    """What others see: ``Carlos Gomez is smoking a cigarette at his table``."""
    doing: str
    """The subtask under way (what others see unless the agent is talking)."""
    plan: dict[int, str] = Field(default_factory=dict)
    """The day's plan: hour → activity."""
    subtasks: list[Subtask] = Field(default_factory=list)
    """The current hour's subtasks still to start."""
    minutes_left: int = 0
    """Minutes left of the subtask under way."""
    busy_until: int = -1
    """Last global tick of the conversation the agent is in."""
    talking_with: str = ""
    last_chat: dict[str, int] = Field(default_factory=dict)
    """Partner → global tick of their last conversation (the re-chat buffer)."""
    seen: dict[str, str] = Field(default_factory=dict)
    """Other agent → the last action of theirs this agent perceived."""
    hour_observations: list[str] = Field(default_factory=list)
    hour_conversations: list[str] = Field(default_factory=list)
    actions_this_hour: list[tuple[str, str]] = Field(default_factory=list)
    """(place, action) of each subtask started this hour, for the compliance metrics."""
    norms: NormDatabase = Field(default_factory=NormDatabase)
    memory: Memory | None = None
    """What it remembers for its plans and actions; it re-plans after each conversation. None
    (every society agent, as in the paper): nothing but its norms."""


class Usage(BaseModel):
    """Calls, tokens and dollars so far (cost: over the calls a price was known for)."""

    calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost: float = 0.0
    unpriced_calls: int = 0
    parse_failures: int = 0
    truncations: int = 0
    retries: int = 0
    """Requests made again after a rate limit, server error, timeout, dropped connection or a
    response that was no reply."""

    def since(self, before: Usage) -> Usage:
        """What was used after ``before`` was taken."""
        return Usage(
            **{name: getattr(self, name) - getattr(before, name) for name in Usage.model_fields}
        )


class WorldState(BaseModel):
    """``checkpoint.json``: everything resuming needs to continue the run exactly."""

    tick: int = Field(default=0, ge=0)
    """The next tick to run."""
    created: bool = False
    agents: dict[str, AgentState]
    events_written: int = 0
    metrics_written: int = 0
    usage: Usage = Field(default_factory=Usage)
    hour_usage: Usage = Field(default_factory=Usage)
    """Usage at the start of the current hour (metrics report the difference)."""
    hour_counts: dict[str, int] = Field(default_factory=dict)
    finished: bool = False


# --- metrics ----------------------------------------------------------------------


class HourMetrics(BaseModel):
    """One line of ``metrics.jsonl``: what one simulated hour did (no judge needed)."""

    hour: int
    label: str
    conflicts: int = 0
    """Observations a DetectConflict call found in conflict with the observer's norms (Q1 yes)."""
    talk_decisions: int = 0
    chats: int = 0
    norm_chats: int = 0
    """Conversations in which the receiver identified normative information."""
    thoughts: int = 0
    norm_thoughts: int = 0
    """Thoughts from which normative information was identified."""
    identified: int = 0
    accepted: int = 0
    rejected: int = 0
    duplicates_skipped: int = 0
    syntheses: int = 0
    unanswered: int = 0
    """Observations a DetectConflict reply left out, or whose call never parsed: never judged,
    so neither a conflict nor none (a weak model's silence, counted rather than hidden)."""
    usage: Usage = Field(default_factory=Usage)
    qualified: dict[str, int] = Field(default_factory=dict)
    qualified_utility: dict[str, int] = Field(default_factory=dict)
