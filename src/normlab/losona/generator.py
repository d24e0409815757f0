"""The LoSoNA scenario generator (paper §4.1): an LLM writes a candidate for one (e, n) cell.

The model first commits to a concrete in-fiction end goal, then writes the cast,
the transcript with 2–3 sparse demonstrations and the final elicitor, as JSON.
The code — not the model — numbers turns, marks the elicitor and builds the
scenario id. Each candidate must pass the schema and the same linter as curated
scenarios; on failure the model gets the findings and tries again (up to
``repairs`` times); a candidate that still fails is reported and never written.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
)
from pydantic import BaseModel, Field, ValidationError

from normlab.core.chat import Participant, Turn
from normlab.core.errors import InputError
from normlab.core.jsonio import validation_field
from normlab.losona.lint import MAX_TURNS, MIN_TURNS, check_scenario
from normlab.losona.prompts import fill, load_template
from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import NormExample, Taxonomy
from normlab.models import Generated, generate_checked

GENERATOR_TEMPERATURE = 0.8
GENERATOR_MAX_TOKENS = 3000
DEFAULT_VENUE = "workplace"


class DraftTurn(BaseModel):
    actor: str
    content: str
    demonstrates_norm: bool = False


class ScenarioDraft(BaseModel):
    """What the model writes; field order puts the end goal first, as §4.1 asks."""

    end_goal: str
    channel_description: str
    subject: str
    subject_bio: str
    cast: list[Participant] = Field(min_length=1)
    transcript: list[DraftTurn] = Field(min_length=1)
    judge_examples: NormExample
    notes: str = ""


@dataclass(frozen=True)
class GenerationRequest:
    event_id: str
    norm_id: str
    venue: str = DEFAULT_VENUE

    def validate(self, taxonomy: Taxonomy) -> None:
        if self.event_id not in taxonomy.events:
            raise InputError("--event", f"unknown event id {self.event_id!r}", field="event")
        norm = taxonomy.norms.get(self.norm_id)
        if norm is None:
            raise InputError("--norm", f"unknown norm id {self.norm_id!r}", field="norm")
        if self.event_id not in norm.applicable_events:
            raise InputError(
                "--event",
                f"({self.event_id}, {self.norm_id}) is not a valid cell: event not in A(n)",
                field="event",
            )


def generator_prompt(request: GenerationRequest, taxonomy: Taxonomy) -> str:
    norm = taxonomy.norms[request.norm_id]
    return fill(
        load_template("generator"),
        {
            "event_id": request.event_id,
            "event_description": taxonomy.events[request.event_id].description,
            "venue": request.venue,
            "norm_statement": norm.statement,
            "example_elicitor": norm.example.elicitor,
            "example_compliant": norm.example.compliant,
            "example_breaching": norm.example.breaching,
            "min_turns": str(MIN_TURNS),
            "max_turns": str(MAX_TURNS),
        },
    )


def draft_to_scenario(
    draft: ScenarioDraft, request: GenerationRequest, taxonomy: Taxonomy
) -> Scenario:
    """Number the turns, mark the last as the elicitor, derive the id from the content."""
    turns = [
        Turn(
            turn_id=index,
            actor=turn.actor,
            content=turn.content,
            is_elicitor=index == len(draft.transcript),
        )
        for index, turn in enumerate(draft.transcript, start=1)
    ]
    digest = hashlib.sha256(draft.model_dump_json().encode()).hexdigest()[:8]
    return Scenario(
        scenario_id=f"{request.event_id}__{request.norm_id}__demos__gen{digest}",
        **asdict(request),
        norm_statement=taxonomy.norms[request.norm_id].statement,
        # Every other field of the draft is the scenario's own, taken as the model wrote it.
        **draft.model_dump(exclude={"transcript"}),
        transcript=turns,
        elicitor_turn_id=len(turns),
        demonstration_turn_ids=[
            index for index, turn in enumerate(draft.transcript, start=1) if turn.demonstrates_norm
        ],
    )


def scenario_problems(
    draft: ScenarioDraft, request: GenerationRequest, taxonomy: Taxonomy
) -> tuple[Scenario | None, list[str]]:
    """Build the scenario and lint it; returns it with its findings (empty when clean)."""
    try:
        scenario = draft_to_scenario(draft, request, taxonomy)
    except ValidationError as error:
        location, message = validation_field(error)
        return None, [f"{location}: {message}"]
    return scenario, [
        f"{field}: {message}" for field, message in check_scenario(scenario, taxonomy)
    ]


async def generate_scenario(
    model: Model, request: GenerationRequest, taxonomy: Taxonomy, repairs: int = 2
) -> Generated[Scenario]:
    """One candidate for ``request``: generate, lint, repair up to ``repairs`` times."""
    messages: list[ChatMessage] = [ChatMessageUser(content=generator_prompt(request, taxonomy))]
    config = GenerateConfig(temperature=GENERATOR_TEMPERATURE, max_tokens=GENERATOR_MAX_TOKENS)

    def check(draft: ScenarioDraft) -> tuple[Scenario | None, list[str]]:
        return scenario_problems(draft, request, taxonomy)

    result = await generate_checked(model, messages, ScenarioDraft, check, config, repairs)
    return Generated(
        f"({request.event_id}, {request.norm_id})", result.value, result.problems, result.calls
    )
