"""LoSoNA's taxonomy as data: 17 event types, 22 norms and their applicability A(n).

Ids follow the official release (Humalike-ai/LoSoNA) so official and project
scenarios share one vocabulary. A cell (e, n) is valid iff e ∈ A(n) (paper §3).
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from normlab.core.jsonio import read_json_list

TAXONOMY_DIR = Path(str(files("normlab.losona") / "data" / "taxonomy"))


class Event(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    description: str


class NormExample(BaseModel):
    """A shared example elicitor with one compliant and one breaching response."""

    model_config = ConfigDict(extra="forbid")

    elicitor: str
    """A message that invites a reply where the norm applies."""
    compliant: str
    """A reply that follows the norm."""
    breaching: str
    """A reply that breaks it."""


class Norm(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    statement: str
    example: NormExample
    applicable_events: list[str] = Field(min_length=1)


class Taxonomy(BaseModel):
    events: dict[str, Event]
    norms: dict[str, Norm]

    def valid_cells(self) -> list[tuple[str, str]]:
        """T = {(e, n) : e ∈ A(n)}, in norm then event order."""
        return [
            (event_id, norm.id)
            for norm in self.norms.values()
            for event_id in norm.applicable_events
            if event_id in self.events
        ]


@cache
def load_taxonomy(directory: Path = TAXONOMY_DIR) -> Taxonomy:
    """The events and norms scenarios are generated from and linted against (the shipped
    taxonomy unless ``directory`` holds another ``events.json`` and ``norms.json``)."""
    events = read_json_list(directory / "events.json", Event)
    norms = read_json_list(directory / "norms.json", Norm)
    return Taxonomy(events={e.id: e for e in events}, norms={n.id: n for n in norms})
