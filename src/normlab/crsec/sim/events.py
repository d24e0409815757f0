"""The lines of ``events.jsonl``: one typed event per kind, discriminated on ``kind``.

Every reader of a run (the counts of Figure 2(a), the analysis, the trace, the replay, the
questionnaire, the web app) reads these types, never string keys, so that a field renamed
in the simulation is a type error in every reader rather than a silent zero. A line on disk
keeps the shape the simulation has always written, ``{"seq", "tick", "time", "kind",
"agent", "data"}``; ``data`` is parsed into the payload of the line's kind. Payloads give
defaults to the fields that older logs, or hand-written ones, may leave out, so run folders
written before the types existed still analyze, trace and replay as they did.

The payloads are built beside the operations that produce them (a call's in
``normlab.norms.calls``, an evaluation's in
``normlab.norms.operations.evaluation``, a conversation's in ``normlab.crsec.sim.talk``,
thoughts' and syntheses' in ``normlab.crsec.sim.reflection``, the rest in the tick loop,
``normlab.crsec.sim.loop``); this module only says what they are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, cast, get_args, get_origin

from pydantic import (
    BaseModel,
    Discriminator,
    Field,
    Tag,
    TypeAdapter,
    ValidationError,
    field_validator,
)

from normlab.core.errors import InputError
from normlab.norms.records import CallData, EvaluateData, Payload
from normlab.norms.replies import IdentifiedNorm
from normlab.norms.schemas import NormType, Origin, PersonalNorm, Subtask


class CreateNormData(Payload):
    """CreateNorm: the entrepreneur's database after its norms were created."""

    norms: list[PersonalNorm]
    failed: bool = False


class PlanData(Payload):
    """GenerateNormativePlans: the day's plan, hour → activity."""

    norms: list[str] = Field(default_factory=list)
    """The qualified norms the plan was made under."""
    day: int
    plan: dict[int, str]
    filled: list[int] = Field(default_factory=list)
    failed: bool = False


class ActionsData(Payload):
    """GenerateNormativeActions: the hour's subtasks, fitted to the clock."""

    norms: list[str] = Field(default_factory=list)
    hour: int
    activity: str = ""
    subtasks: list[Subtask]
    adjusted: list[str] = Field(default_factory=list)
    failed: bool = False


class PerceiveData(Payload):
    observations: list[str]


class Finding(BaseModel):
    """DetectConflict + DecideToTalk's answer on one observation."""

    observed: str
    observation: str
    conflict: bool
    talk: bool
    """Only with a conflict: the observer decided to talk about it."""
    topic: str = ""


class Unanswered(BaseModel):
    """An observation the reply left out (or whose call's reply never parsed)."""

    observed: str
    observation: str
    answered: Literal[False] = False


def _finding_tag(row: Any) -> str:
    """A detect row is unanswered only when it says so (``"answered": false``, as the simulation
    writes it): a row missing ``conflict`` or ``talk`` is then a broken finding, one error
    naming the field, never an observation silently dropped as unanswered."""
    if isinstance(row, dict):
        return "Unanswered" if row.get("answered") is False else "Finding"
    return type(row).__name__


DetectRow = Annotated[
    Annotated[Finding, Tag("Finding")] | Annotated[Unanswered, Tag("Unanswered")],
    Discriminator(_finding_tag),
]
"""One row of a ``detect`` event: DetectConflict's answer on an observation, or none."""


class DetectData(Payload):
    norms: list[str] = Field(default_factory=list)
    identity: str = ""
    findings: list[DetectRow]


class ConversationData(Payload):
    """A conflict-driven conversation; the sender is the event's agent."""

    receiver: str
    place: str
    observation: str
    topic: str
    transcript: list[tuple[str, str]]
    """(speaker, what was said) in order."""
    ended: str
    minutes: int


class IdentifyData(Payload):
    """IdentifyNormativeInformation, from a conversation (the receiver's) or from thoughts."""

    source: Literal["chat", "thought"]
    norms: list[IdentifiedNorm]


class ThoughtData(Payload):
    """GenerateThought at an hour's end."""

    thoughts: list[str]


class AbstractData(BaseModel):
    """GenerateAbstractNorm's norm for one category, and its sanity check."""

    id: int
    theme: str
    content: str
    type: NormType = "injunctive"
    members: list[int] = Field(default_factory=list)
    member_contents: list[str] = Field(default_factory=list)
    utility: int
    weights_used: bool = True
    qualified: bool
    checks: dict[str, bool] = Field(default_factory=dict)
    rejection: str | None = None


class SynthesisData(Payload):
    """The long-term synthesis: ClassifySpecificNorms, then an abstract norm per category."""

    trigger: Literal["paper", "counter"] = "paper"
    qualified_utility_before: int = 0
    categories: list[tuple[str, list[int]]] = Field(default_factory=list)
    abstracts: list[AbstractData] = Field(default_factory=list)
    failed: str | None = None
    """Which step's reply never parsed; None when none failed."""

    @field_validator("failed", mode="before")
    @classmethod
    def _nothing_failed(cls, value: object) -> object:
        """``false`` (as hand-written logs say it) is nothing failed."""
        return None if value is False else value


class HeldNorm(BaseModel):
    """A qualified norm in an hour's snapshot."""

    id: int
    content: str
    utility: int
    origin: Origin


class AgentSnapshot(BaseModel):
    """One agent at an hour's end: what the metrics' judge reads."""

    qualified: list[HeldNorm] = Field(default_factory=list)
    plan: str = ""
    actions: list[tuple[str, str]] = Field(default_factory=list)
    """(place, action) of each subtask started in the hour."""


class HourData(Payload):
    """An hour's end: every agent's snapshot; it closes the hour whose events precede it."""

    hour: int
    label: str
    agents: dict[str, AgentSnapshot]


class EventBase(BaseModel):
    """One line of ``events.jsonl``: what happened, when (simulated), to whom, with what."""

    seq: int
    tick: int
    time: str
    kind: str
    agent: str = ""
    data: Payload


class CallEvent(EventBase):
    kind: Literal["call"] = "call"
    data: CallData


class CreateNormEvent(EventBase):
    kind: Literal["create_norm"] = "create_norm"
    data: CreateNormData


class PlanEvent(EventBase):
    kind: Literal["plan"] = "plan"
    data: PlanData


class ActionsEvent(EventBase):
    kind: Literal["actions"] = "actions"
    data: ActionsData


class PerceiveEvent(EventBase):
    kind: Literal["perceive"] = "perceive"
    data: PerceiveData


class DetectEvent(EventBase):
    kind: Literal["detect"] = "detect"
    data: DetectData


class ConversationEvent(EventBase):
    kind: Literal["conversation"] = "conversation"
    data: ConversationData


class IdentifyEvent(EventBase):
    kind: Literal["identify"] = "identify"
    data: IdentifyData


class EvaluateEvent(EventBase):
    kind: Literal["evaluate"] = "evaluate"
    data: EvaluateData


class ThoughtEvent(EventBase):
    kind: Literal["thought"] = "thought"
    data: ThoughtData


class SynthesisEvent(EventBase):
    kind: Literal["synthesis"] = "synthesis"
    data: SynthesisData


class HourEvent(EventBase):
    kind: Literal["hour"] = "hour"
    data: HourData


AnyEvent = (
    CallEvent
    | CreateNormEvent
    | PlanEvent
    | ActionsEvent
    | PerceiveEvent
    | DetectEvent
    | ConversationEvent
    | IdentifyEvent
    | EvaluateEvent
    | ThoughtEvent
    | SynthesisEvent
    | HourEvent
)
Event = Annotated[AnyEvent, Field(discriminator="kind")]
"""Any line of ``events.jsonl``; ``event.kind == "…"`` (or ``isinstance``) narrows it."""

EventKind = Literal[
    "call",
    "create_norm",
    "plan",
    "actions",
    "perceive",
    "detect",
    "conversation",
    "identify",
    "evaluate",
    "thought",
    "synthesis",
    "hour",
]

_EVENT: TypeAdapter[Event] = TypeAdapter(Event)

_UNION_TAGS = {"Finding", "Unanswered", "AssessedItem", "SkippedItem"}
"""The tags of the unions inside payloads (class names, never a field's name): pydantic puts
them in an error's location, which names fields only."""


def _members(annotation: Any) -> list[type[BaseModel]]:
    """The payload classes an annotation allows: itself, or a (tagged) union's members."""
    if get_origin(annotation) is Annotated:
        return _members(get_args(annotation)[0])
    members = get_args(annotation)
    if not members:
        return [annotation]
    return [model for member in members for model in _members(member)]


_CLASS_OF: dict[type[BaseModel], type[EventBase]] = {}
for _class in get_args(AnyEvent):
    for _payload in _members(_class.model_fields["data"].annotation):
        _CLASS_OF[_payload] = _class


def make_event(seq: int, tick: int, time: str, agent: str, data: Payload) -> Event:
    """The event that carries ``data`` (its kind follows from the payload's type)."""
    # Built from typed parts, so nothing to validate again: a large run emits millions.
    event = _CLASS_OF[type(data)].model_construct(
        seq=seq, tick=tick, time=time, agent=agent, data=data
    )
    return cast(AnyEvent, event)


def parse_event(row: Any, path: Path | None = None, line: int | None = None) -> Event:
    """One line of ``events.jsonl`` as its typed event; a bad line is one error naming the file,
    the line and the field (``data.findings.0.conflict``, not the kind pydantic prefixes)."""
    try:
        return _EVENT.validate_python(row)
    except ValidationError as error:
        first = error.errors()[0]
        location = [str(part) for part in first["loc"] if part not in _UNION_TAGS]
        if location and isinstance(row, dict) and location[0] == row.get("kind"):
            location = location[1:]
        if first["type"] == "union_tag_invalid" or first["type"] == "union_tag_not_found":
            location = ["kind"]
        raise InputError(
            path or Path("events.jsonl"), first["msg"], line=line, field=".".join(location) or None
        ) from error
