"""LoSoNA scenarios: loading scenario files and building the Inspect samples.

The loader reads two shapes of row:
- the official release's (Humalike-ai/LoSoNA ``data/losona_scenarios.jsonl``):
  ``scenario_id, event_id, norm_id, norm_statement, transcript, elicitor_turn_id``;
- our richer rows, which add the rest (see [`Scenario`][normlab.losona.Scenario]).
A missing optional field takes the documented default in
``OPTIONAL_FIELD_DEFAULTS`` and is reported once per field per file, never
as a crash. A missing required field or a malformed value is an
[`InputError`][normlab.core.InputError] naming file, line and field. A field the
scenario does not have (a release's ``license`` or ``source``) is kept as the
scenario's metadata, in its sample's metadata and in the log; one that is a near
miss of a known field (``scenaro_id``, ``Norm_ID``) is an error
(``normlab.core.fields``).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib.resources import files
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from normlab.core.errors import InputError
from normlab.core.fields import model_fields, unknown_fields
from normlab.core.jsonio import validate_row
from normlab.core.selection import check_limit, pick_by_id
from normlab.core.sources import Sourced, read_sourced
from normlab.core.variants import VariantRecord
from normlab.losona.meta import SampleMeta
from normlab.losona.prompts import render_subject_prompt
from normlab.losona.schemas import DEFAULT_BIO, Scenario

logger = logging.getLogger(__name__)

SCENARIOS_PATH = Path(str(files("normlab.losona") / "data" / "scenarios.jsonl"))
"""The shipped scenarios: what a run reads when it is given none."""
DEFAULT_SUBJECT_NAMES = ("Alex", "Sam", "Jordan", "Riley", "Casey", "Robin")

REQUIRED_FIELDS = (
    "scenario_id",
    "event_id",
    "norm_id",
    "norm_statement",
    "transcript",
    "elicitor_turn_id",
)
ANNOTATIONS = ("screening",)
"""Keys normlab writes beside a scenario's fields (a rejected scenario's screening record):
known, so not an unknown field, and not part of the scenario."""
KNOWN_FIELDS = model_fields(Scenario) | set(ANNOTATIONS)
"""What a row's names are checked against: any other name is kept as the scenario's metadata,
unless it is a near miss of one of these (``normlab.core.fields``)."""
OPTIONAL_FIELD_DEFAULTS: dict[str, str] = {
    "subject": f"first of {', '.join(DEFAULT_SUBJECT_NAMES)} not already speaking "
    "(else 'Participant N')",
    "subject_bio": repr(DEFAULT_BIO),
    "channel_description": "'A group chat.'",
    "venue": "'group chat'",
    "cast": f"every speaker in the transcript, bio {DEFAULT_BIO!r}",
    "demonstration_turn_ids": "[] (no marked demonstrations)",
    "judge_examples": "the norm's example from the taxonomy",
    "end_goal": "''",
    "notes": "''",
}


def _free_subject_name(speakers: list[str]) -> str:
    for name in DEFAULT_SUBJECT_NAMES:
        if name not in speakers:
            return name
    number = 1
    while f"Participant {number}" in speakers:
        number += 1
    return f"Participant {number}"


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
        row["subject"] = _free_subject_name(speakers)
    if "cast" not in row:
        row["cast"] = [{"name": name, "bio": DEFAULT_BIO} for name in speakers]
    return defaulted


def parse_scenario(row: dict[str, Any], path: str | Path, line: int) -> tuple[Scenario, list[str]]:
    """Validate one row; returns the scenario and the optional fields that were defaulted."""
    # A release's own columns (license, source) are kept as metadata; a misspelt field
    # (demonstraton_turn_ids, scenaro_id) is refused, or its value would be dropped unseen, and
    # first, so that a misspelt required field is named as the misspelling it is.
    unknown_fields(row, KNOWN_FIELDS, path, line)
    for name in REQUIRED_FIELDS:
        if name not in row:
            raise InputError(path, "required field is missing", line=line, field=name)
    row = {name: value for name, value in row.items() if name not in ANNOTATIONS}
    defaulted = _fill_defaults(row)
    return validate_row(Scenario, row, path, line), defaulted


def load_scenarios(path: str | Path = SCENARIOS_PATH) -> list[Scenario]:
    """Load a scenarios JSONL file (official or project shape), or every JSONL in a folder."""
    return read_scenarios(path).items


def read_scenarios(location: str | Path = SCENARIOS_PATH) -> Sourced[Scenario]:
    """[`load_scenarios`][normlab.losona.load_scenarios] of a path or any fsspec URL
    (``hf://datasets/Humalike-ai/LoSoNA/ data/losona_scenarios.jsonl``), with the hash of the bytes
    read, for the log."""
    defaulted: Counter[tuple[str | Path, str]] = Counter()

    def parse(row: dict[str, Any], file: str | Path, line: int) -> Scenario:
        scenario, missing = parse_scenario(row, file, line)
        defaulted.update((file, name) for name in missing)
        return scenario

    scenarios = read_sourced(location, parse, lambda s: s.scenario_id, "scenario_id")
    for (file, name), count in defaulted.items():
        logger.warning(
            "%s: %d row(s) lack '%s'; using default: %s",
            file,
            count,
            name,
            OPTIONAL_FIELD_DEFAULTS[name],
        )
    return scenarios


def select_scenarios(
    scenarios: Sequence[Scenario],
    scenario_ids: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Scenario]:
    """Filter by id (in the order given) and/or keep the first ``limit`` scenarios."""
    selected = list(scenarios)
    if scenario_ids is not None:
        selected = pick_by_id(
            scenarios,
            scenario_ids,
            lambda scenario: scenario.scenario_id,
            "--scenario",
            "scenario_id",
        )
    if limit is not None:
        check_limit(limit)
        selected = selected[:limit]
    return selected


SAMPLE_ID_SEPARATOR = "::"


def sample_id(scenario_id: str, condition: str) -> str:
    return f"{scenario_id}{SAMPLE_ID_SEPARATOR}{condition}"


def parse_sample_id(ident: str) -> tuple[str, str] | None:
    """``(scenario_id, condition)`` of a sample id ``sample_id`` made (a condition never
    holds the separator; a scenario id may), or None for an id of another shape."""
    scenario_id, separator, condition = ident.rpartition(SAMPLE_ID_SEPARATOR)
    return (scenario_id, condition) if separator and scenario_id and condition else None


def build_dataset(
    scenarios: Sequence[Scenario],
    conditions: Sequence[str],
    name: str = "losona",
    instruction: str | None = None,
    variant: dict[str, str] | None = None,
) -> MemoryDataset:
    """One Inspect sample per scenario × condition; the subject prompt is the input.

    The whole scenario rides in the sample's metadata, so the judge and any later
    re-analysis of the log need nothing but the log. A prompt variant
    (``normlab.losona.variants``) gives its ``instruction`` (a ``file:`` variant's wording)
    and its ``variant`` record, kept in each sample's metadata (``SampleMeta``).
    """
    samples = [
        Sample(
            id=sample_id(scenario.scenario_id, condition),
            input=render_subject_prompt(scenario, condition, instruction=instruction),
            metadata=SampleMeta(
                scenario_id=scenario.scenario_id,
                event_id=scenario.event_id,
                norm_id=scenario.norm_id,
                condition=condition,
                scenario=scenario,
                variant=None if variant is None else VariantRecord.model_validate(variant),
            ).dump(),
        )
        for scenario in scenarios
        for condition in conditions
    ]
    return MemoryDataset(samples=samples, name=name)


def without_demonstrations(scenario: Scenario) -> Scenario:
    """The no-demonstration control: the same transcript and elicitor minus the marked demos."""
    removed = set(scenario.demonstration_turn_ids)
    return scenario.model_copy(
        update={
            "transcript": [turn for turn in scenario.transcript if turn.turn_id not in removed],
            "demonstration_turn_ids": [],
        }
    )
