"""What the norm operations record of themselves: a model call, an evaluated item.

These are payloads of CRSEC's ``events.jsonl`` lines (``normlab.crsec.sim.events`` puts them in
their events: ``call`` and ``evaluate``), built by the operations that make them (a call's in
``normlab.norms.calls``, an evaluation's in ``normlab.norms.operations.evaluation``), and the
norm-learning subject (``normlab.agents``) reads them from its caller's log. On disk a payload
is its fields, nothing more: where its class is defined is no part of a run folder.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Discriminator, Field, Tag

from normlab.norms.schemas import EvaluationMode, NormType, Origin


class Payload(BaseModel):
    """What one event carries (its ``data``)."""


class CallData(Payload):
    """One model call: everything about it but its timing, so a resumed run logs it the same."""

    phase: str
    """The tick's phase (``detect``, ``talk/1``…): with the tick, what the call's seed is from."""
    operation: str
    role: str = "agent"
    system: str = ""
    prompt: str = ""
    replies: list[str] = Field(default_factory=list)
    parsed: dict[str, Any] | None = None
    attempts: int = 1
    retries: int = 0
    """Not logged before retries were counted: none."""
    parse_failed: bool = False
    truncated: bool = False
    error: str | None = None
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    cost: float | None


class ItemBase(Payload):
    """One identified item as it came to the immediate evaluation."""

    content: str
    type: NormType
    origin: Origin = "thought"
    related: str = ""
    """The conversation or thought it was identified in."""
    norms: list[str] = Field(default_factory=list)
    """The agent's qualified norms it was checked against."""


class SkippedItem(ItemBase):
    """The same words as a qualified norm already held: skipped without a call."""

    skipped: str


class AssessedItem(ItemBase):
    """The immediate evaluation's verdict; the item entered the database as ``id``."""

    id: int
    mode: EvaluationMode
    checks: dict[str, bool] = Field(default_factory=dict)
    qualified: bool
    utility: int
    rejection: str | None = None


def _item_tag(item: Any) -> str:
    """An evaluated item is skipped when it says why (``skipped``); otherwise it was assessed,
    and a missing verdict field is an error naming it."""
    if isinstance(item, dict):
        return "SkippedItem" if "skipped" in item else "AssessedItem"
    return type(item).__name__


EvaluateData = Annotated[
    Annotated[AssessedItem, Tag("AssessedItem")] | Annotated[SkippedItem, Tag("SkippedItem")],
    Discriminator(_item_tag),
]
"""An ``evaluate`` event's payload: the immediate evaluation's verdict, or a skipped item."""
