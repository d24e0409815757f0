"""The LoSoNA scenario linter: machine checks for the curation criteria of paper §3–5.

Each check returns findings rather than raising, so one run reports everything
wrong with a file. ``normlab losona validate`` exits 0 when clean, 1 with one
line per finding, and 2 when a file cannot be read at all.

Checked: schema; 20–34 turns counting the elicitor; 2–3 marked demonstrations,
before the elicitor, by cast members other than the subject; the elicitor last
and by a cast member; the subject never speaking and not in the cast; every
speaker in the cast; no leakage of the norm into subject-visible text (no run of
5+ words shared with the norm statement or its examples; no word naming the hidden
layer, ``normlab.core.leaks.LEAK_WORDS``, in the channel description); unique ids;
known norm and event ids, and a valid (event, norm) cell; a scenario exported from a CRSEC
society (with ``provenance``) has a norm of its own, so it needs its judge examples instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.fields import MetadataTally
from normlab.core.findings import Finding
from normlab.core.jsonio import jsonl_files, read_jsonl_rows
from normlab.core.leaks import SHARED_RUN_WORDS, copied_runs, leak_word_findings
from normlab.losona.dataset import parse_scenario
from normlab.losona.schemas import Scenario
from normlab.losona.taxonomy import Taxonomy, load_taxonomy

MIN_TURNS = 20
"""The fewest turns a transcript may have, the elicitor's counted (Appendix B: "ranges from 20
to 34 turns")."""
MAX_TURNS = 34
"""The most turns a transcript may have, the elicitor's counted (Appendix B)."""
MIN_DEMONSTRATIONS, MAX_DEMONSTRATIONS = 2, 3


def hidden_texts(scenario: Scenario, taxonomy: Taxonomy) -> list[str]:
    """What the subject must not read: the norm's statements and examples (the scenario's and
    the taxonomy's)."""
    texts = [scenario.norm_statement]
    examples = [scenario.judge_examples]
    norm = taxonomy.norms.get(scenario.norm_id)
    if norm is not None:
        texts.append(norm.statement)
        examples.append(norm.example)
    for example in examples:
        if example is not None:
            texts += [example.elicitor, example.compliant, example.breaching]
    return texts


def _visible_fields(scenario: Scenario) -> Iterator[tuple[str, str]]:
    yield "channel_description", scenario.channel_description
    yield "subject_bio", scenario.subject_bio
    for index, member in enumerate(scenario.cast):
        yield f"cast.{index}.bio", member.bio
    for turn in scenario.transcript:
        yield f"transcript.turn {turn.turn_id}", turn.content


def check_scenario(scenario: Scenario, taxonomy: Taxonomy) -> Iterator[tuple[str, str]]:
    """Yield ``(field, message)`` for every curation rule the scenario breaks."""
    turn_ids = [turn.turn_id for turn in scenario.transcript]
    cast_names = {member.name for member in scenario.cast}
    speaking = {turn.actor for turn in scenario.transcript}
    by_id = {turn.turn_id: turn for turn in scenario.transcript}

    if scenario.event_id not in taxonomy.events:
        yield "event_id", f"unknown event id {scenario.event_id!r}"
    norm = taxonomy.norms.get(scenario.norm_id)
    if norm is None and scenario.provenance is None:
        yield "norm_id", f"unknown norm id {scenario.norm_id!r}"
    elif norm is None and scenario.judge_examples is None:
        # A CRSEC society's norm is its own: the scenario is all the judge has to go on.
        yield "judge_examples", "a norm outside the taxonomy needs the scenario's judge examples"
    elif (
        norm is not None
        and scenario.event_id in taxonomy.events
        and scenario.event_id not in norm.applicable_events
    ):
        yield (
            "event_id",
            f"({scenario.event_id}, {scenario.norm_id}) is not a valid cell: event not in A(n)",
        )

    count = len(scenario.visible_turns)
    if not MIN_TURNS <= count <= MAX_TURNS:
        yield "transcript", f"{count} turns up to the elicitor, expected {MIN_TURNS}–{MAX_TURNS}"
    if turn_ids and scenario.elicitor_turn_id != turn_ids[-1]:
        yield "elicitor_turn_id", f"elicitor turn {scenario.elicitor_turn_id} is not the last turn"
    flagged = [turn.turn_id for turn in scenario.transcript if turn.is_elicitor]
    if flagged != [scenario.elicitor_turn_id]:
        yield (
            "transcript",
            f"is_elicitor is set on turns {flagged}, expected [{scenario.elicitor_turn_id}]",
        )
    elicitor = scenario.elicitor
    if elicitor.actor == scenario.subject:
        yield "elicitor_turn_id", "the elicitor is written by the subject"
    elif elicitor.actor not in cast_names:
        yield "elicitor_turn_id", f"elicitor author {elicitor.actor!r} is not in the cast"

    if scenario.subject in cast_names:
        yield "cast", f"the subject {scenario.subject!r} is listed in the cast"
    if scenario.subject in speaking:
        yield "transcript", f"the subject {scenario.subject!r} speaks in the transcript"
    for actor in sorted(speaking - cast_names - {scenario.subject}):
        yield "transcript", f"speaker {actor!r} is not in the cast"

    demonstrations = scenario.demonstration_turn_ids
    if not MIN_DEMONSTRATIONS <= len(demonstrations) <= MAX_DEMONSTRATIONS:
        yield (
            "demonstration_turn_ids",
            f"{len(demonstrations)} marked demonstrations, expected "
            f"{MIN_DEMONSTRATIONS}–{MAX_DEMONSTRATIONS}",
        )
    if len(set(demonstrations)) != len(demonstrations):
        yield "demonstration_turn_ids", "a demonstration turn is listed twice"
    for turn_id in demonstrations:
        turn = by_id.get(turn_id)
        if turn is None:
            continue  # the schema already reports unknown turn ids
        if turn_id == scenario.elicitor_turn_id or turn_ids.index(turn_id) > turn_ids.index(
            scenario.elicitor_turn_id
        ):
            yield (
                "demonstration_turn_ids",
                f"demonstration turn {turn_id} is not before the elicitor",
            )
        if turn.actor == scenario.subject:
            yield "demonstration_turn_ids", f"demonstration turn {turn_id} is by the subject"
        elif turn.actor not in cast_names:
            yield (
                "demonstration_turn_ids",
                f"demonstration turn {turn_id} is by {turn.actor!r}, not a cast member",
            )

    yield from leak_word_findings([("channel_description", scenario.channel_description)])
    yield from copied_runs(
        _visible_fields(scenario), hidden_texts(scenario, taxonomy), SHARED_RUN_WORDS
    )


def lint_file(
    path: Path,
    taxonomy: Taxonomy,
    seen_ids: dict[str, str],
    metadata: MetadataTally | None = None,
) -> list[Finding]:
    """All findings of one JSONL file; ``seen_ids`` carries ids across files, ``metadata``
    counts the fields kept as metadata. A file with no scenario is an error, not "clean": it is
    an empty export or the wrong file."""
    findings: list[Finding] = []
    rows = list(read_jsonl_rows(path))
    if not rows:
        raise InputError(path, "holds no rows (no scenario_id found)")
    for line, row in rows:
        row_id = str(row.get("scenario_id", "?"))
        try:
            scenario, _ = parse_scenario(row, path, line)
        except InputError as error:
            findings.append(Finding(str(path), line, row_id, error.field or "(row)", error.problem))
            continue
        if metadata is not None:
            metadata.add(path, scenario)
        where = f"{path}:{line}"
        if scenario.scenario_id in seen_ids:
            findings.append(
                Finding(
                    str(path),
                    line,
                    scenario.scenario_id,
                    "scenario_id",
                    f"duplicate id (first at {seen_ids[scenario.scenario_id]})",
                )
            )
        else:
            seen_ids[scenario.scenario_id] = where
        findings.extend(
            Finding(str(path), line, scenario.scenario_id, field, message)
            for field, message in check_scenario(scenario, taxonomy)
        )
    return findings


def lint_paths(
    paths: Iterable[Path],
    taxonomy: Taxonomy | None = None,
    metadata: MetadataTally | None = None,
) -> list[Finding]:
    """Lint every scenario file (folders searched for ``*.jsonl``); ``metadata``, if given,
    counts the fields each file's rows carry as metadata."""
    taxonomy = taxonomy or load_taxonomy()
    seen: dict[str, str] = {}
    findings: list[Finding] = []
    for path in paths:
        for file in jsonl_files(path):
            findings.extend(lint_file(file, taxonomy, seen, metadata))
    return findings
