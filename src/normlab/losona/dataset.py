"""LoSoNA scenarios: schema, loader and Inspect samples.

A scenario (paper §3–4, notes) has subject-visible fields (channel, venue,
subject and bio, cast, transcript ending in the elicitor), evaluation fields
(event, norm, norm statement, judge examples, marked demonstration turns) and
generation-only fields (end goal, notes).

The loader reads two shapes of row:
- the official release's (Humalike-ai/LoSoNA ``data/losona_scenarios.jsonl``):
  ``scenario_id, event_id, norm_id, norm_statement, transcript, elicitor_turn_id``;
- our richer rows, which add the rest.
A missing optional field takes the documented default in
:data:`OPTIONAL_FIELD_DEFAULTS` and is reported once per field per file, never
as a crash. A missing required field or a malformed value is an
:class:`~normlab.core.errors.InputError` naming file, line and field.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator

from normlab.core.chat import Participant, Turn
from normlab.core.errors import InputError
from normlab.core.jsonio import read_jsonl_rows, validate_row
from normlab.losona.taxonomy import NormExample, load_taxonomy

logger = logging.getLogger(__name__)

SCENARIOS_PATH = Path(str(files("normlab.losona") / "data" / "scenarios.jsonl"))
WORKPLACE_VENUE = "workplace"
DEFAULT_SUBJECT_NAMES = ("Alex", "Sam", "Jordan", "Riley", "Casey", "Robin")
DEFAULT_BIO = "A member of the group chat."

REQUIRED_FIELDS = (
    "scenario_id",
    "event_id",
    "norm_id",
    "norm_statement",
    "transcript",
    "elicitor_turn_id",
)
OPTIONAL_FIELD_DEFAULTS: dict[str, str] = {
    "subject": f"first of {', '.join(DEFAULT_SUBJECT_NAMES)} not already speaking",
    "subject_bio": repr(DEFAULT_BIO),
    "channel_description": "'A group chat.'",
    "venue": "'group chat'",
    "cast": f"every speaker in the transcript, bio {DEFAULT_BIO!r}",
    "demonstration_turn_ids": "[] (no marked demonstrations)",
    "judge_examples": "the norm's example from the taxonomy",
    "end_goal": "''",
    "notes": "''",
}


class Scenario(BaseModel):
    """One accepted LoSoNA scenario; ``transcript`` includes the elicitor turn."""

    model_config = ConfigDict(extra="ignore")

    scenario_id: str = Field(min_length=1)
    event_id: str = Field(min_length=1)
    norm_id: str = Field(min_length=1)
    norm_statement: str = Field(min_length=1)
    venue: str = "group chat"
    channel_description: str = "A group chat."
    subject: str = Field(min_length=1)
    subject_bio: str = DEFAULT_BIO
    cast: list[Participant]
    transcript: list[Turn] = Field(min_length=1)
    elicitor_turn_id: int
    demonstration_turn_ids: list[int] = Field(default_factory=list)
    judge_examples: NormExample | None = None
    end_goal: str = ""
    notes: str = ""

    @field_validator("transcript")
    @classmethod
    def _turn_ids_unique(cls, transcript: list[Turn]) -> list[Turn]:
        counts = Counter(turn.turn_id for turn in transcript)
        duplicates = sorted(turn_id for turn_id, count in counts.items() if count > 1)
        if duplicates:
            raise ValueError(f"duplicate turn_id {duplicates[0]} in transcript")
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


def _fill_defaults(row: dict[str, Any]) -> list[str]:
    """Give an official-shape row our optional fields; return the names defaulted."""
    defaulted = [name for name in OPTIONAL_FIELD_DEFAULTS if name not in row]
    transcript = row.get("transcript")
    if not isinstance(transcript, list):
        transcript = []
    speakers: list[str] = []
    for turn in transcript:
        actor = turn.get("actor") if isinstance(turn, dict) else None
        if isinstance(actor, str) and actor not in speakers:
            speakers.append(actor)
    if "subject" not in row:
        row["subject"] = next(name for name in DEFAULT_SUBJECT_NAMES if name not in speakers)
    if "cast" not in row:
        row["cast"] = [{"name": name, "bio": DEFAULT_BIO} for name in speakers]
    return defaulted


def parse_scenario(row: dict[str, Any], path: Path, line: int) -> tuple[Scenario, list[str]]:
    """Validate one row; returns the scenario and the optional fields that were defaulted."""
    for name in REQUIRED_FIELDS:
        if name not in row:
            raise InputError(path, "required field is missing", line=line, field=name)
    row = dict(row)
    defaulted = _fill_defaults(row)
    return validate_row(Scenario, row, path, line), defaulted


def load_scenarios(path: Path = SCENARIOS_PATH) -> list[Scenario]:
    """Load a scenarios JSONL file (official or project shape), or every JSONL in a folder."""
    if path.is_dir():
        scenarios: list[Scenario] = []
        for child in sorted(path.rglob("*.jsonl")):
            scenarios.extend(load_scenarios(child))
        if not scenarios:
            raise InputError(path, "no scenarios (*.jsonl) found in folder")
        return scenarios
    scenarios = []
    defaulted: Counter[str] = Counter()
    seen: dict[str, int] = {}
    for line, row in read_jsonl_rows(path):
        scenario, missing = parse_scenario(row, path, line)
        if scenario.scenario_id in seen:
            first = seen[scenario.scenario_id]
            raise InputError(
                path,
                f"duplicate scenario_id {scenario.scenario_id!r} (first on line {first})",
                line=line,
                field="scenario_id",
            )
        seen[scenario.scenario_id] = line
        defaulted.update(missing)
        scenarios.append(scenario)
    for name, count in defaulted.items():
        logger.warning(
            "%s: %d row(s) lack '%s'; using default: %s",
            path,
            count,
            name,
            OPTIONAL_FIELD_DEFAULTS[name],
        )
    if not scenarios:
        raise InputError(path, "file holds no scenarios")
    return scenarios


def select_scenarios(
    scenarios: Sequence[Scenario],
    scenario_ids: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Scenario]:
    """Filter by id (in the order given) and/or keep the first ``limit`` scenarios."""
    selected = list(scenarios)
    if scenario_ids is not None:
        by_id = {scenario.scenario_id: scenario for scenario in scenarios}
        wanted = list(scenario_ids)
        unknown = [scenario_id for scenario_id in wanted if scenario_id not in by_id]
        if unknown:
            raise InputError(
                "--scenario", f"unknown scenario id {unknown[0]!r}", field="scenario_id"
            )
        selected = [by_id[scenario_id] for scenario_id in wanted]
    if limit is not None:
        selected = selected[:limit]
    return selected


def sample_id(scenario_id: str, condition: str) -> str:
    return f"{scenario_id}::{condition}"


def build_dataset(
    scenarios: Sequence[Scenario], conditions: Sequence[str], name: str = "losona"
) -> MemoryDataset:
    """One Inspect sample per scenario × condition; the subject prompt is the input.

    The whole scenario rides in the sample's metadata, so the judge and any later
    re-analysis of the log need nothing but the log.
    """
    from normlab.losona.prompts import render_subject_prompt

    samples = [
        Sample(
            id=sample_id(scenario.scenario_id, condition),
            input=render_subject_prompt(scenario, condition),
            metadata={
                "scenario_id": scenario.scenario_id,
                "event_id": scenario.event_id,
                "norm_id": scenario.norm_id,
                "condition": condition,
                "scenario": scenario.model_dump(mode="json"),
            },
        )
        for scenario in scenarios
        for condition in conditions
    ]
    return MemoryDataset(samples=samples, name=name)
