"""Where a scenario came from when no author wrote its norm: a CRSEC society's emergent norm.

``normlab crsec export`` turns the norms a simulated society converged on into LoSoNA and
SCENE scenarios. Each carries this record, so a result on such a scenario can always be
traced back to the run, the norm and how far it had spread, and the benchmarks' reports can
set these scenarios apart from authored ones. It lives here, below the systems, because
both benchmarks' scenario schemas hold it and the CRSEC export writes it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class Demonstration(BaseModel):
    """One marked demonstration turn of an exported scenario, and whose it is."""

    model_config = ConfigDict(extra="forbid")

    turn_id: int = Field(ge=1)
    """The marked turn (``demonstration_turn_ids``)."""
    source: Literal["society", "generator"]
    """``society``: a line of the run, verbatim, that the judge tied to the norm; ``generator``:
    written because the run held too few such lines the benchmark could show."""
    speaker: str = ""
    """Who says it in the scenario (the society's member, or the cast member the generator
    gave it to)."""
    time: str = ""
    """When the society said it, on the simulated clock (empty for the generator's)."""


class ScenarioProvenance(BaseModel):
    """The run, the norm and its spread behind an exported scenario."""

    model_config = ConfigDict(extra="forbid")

    source: Literal["crsec"] = "crsec"
    """The system the scenario was exported from."""
    run: str = Field(min_length=1)
    """The run folder's name."""
    society: str = ""
    """The society's name (its file's ``name``)."""
    norm_id: str = Field(min_length=1)
    """The norm at stake, as the society file names it."""
    statement: str = ""
    """The norm as the metrics' judge was given it."""
    norm_origin: str = "society file"
    """Whose words the norm is: ``society file`` (an author's norm at stake), else the
    society's own, and how the first agent to hold them came by them (``created``, ``chat``,
    ``thought`` or ``synthesis``)."""
    adherent: int = Field(ge=0)
    """The agents that held the norm and adhered to it at the end of ``hour``."""
    agents: int = Field(ge=1)
    """The society's agents at that hour: the share's denominator."""
    adherence: float = Field(ge=0.0, le=1.0)
    """``adherent / agents``: the share holding and adhering at the end of ``hour``."""
    hour: int = Field(ge=1)
    """The first simulated hour (1 = the run's first) at whose end the share reached
    ``threshold``."""
    hour_label: str = ""
    """``hour`` on the simulated clock (``day 1 09:00–10:00``)."""
    threshold: float = Field(ge=0.0, le=1.0)
    """The share of adherent agents at which the norm counted as emerged
    (``crsec export --min-share``)."""
    agent_model: str = ""
    """The model the society's agents ran on."""
    judge_model: str = ""
    """The judge that decided who adhered."""
    generated: list[str] = Field(default_factory=list)
    """The scenario's fields a generator model wrote because the run holds nothing for them;
    every other field is taken from the run."""
    demonstrations: list[Demonstration] = Field(default_factory=list)
    """The scenario's marked demonstrations and whose each is (LoSoNA; empty in a file
    exported before this was recorded, and for SCENE, whose personas replay the precedent)."""
    dropped: list[str] = Field(default_factory=list)
    """What the run held that the scenario leaves out, and why, one line each (a line tied to
    the norm that copies its statement, a conversation past the turn budget, a hidden example
    that copies the society's own turns)."""
