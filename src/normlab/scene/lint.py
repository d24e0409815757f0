"""The SCENE scenario linter: what the schema cannot say about a scenario.

The schema (``normlab.scene.schemas``) and the loader already check shape,
cast/persona agreement, precedent demonstrators, the fidelity modality and the
tuple's applicability. This module adds the norm-blindness of the subject-visible
scaffold (§4.1): no text the subject sees may name the hidden layer of the test. A
scenario that carries its own norm (``own_norm``: a CRSEC society's emergent norm) has
its tuple checked against that norm.
``normlab scene validate`` exits 0 when clean, 1 with one line per finding, 2 when
a file cannot be read.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from normlab.core.fields import MetadataTally
from normlab.core.jsonio import jsonl_files, read_jsonl_rows
from normlab.core.leaks import leak_word_findings
from normlab.scene.dataset import load_scenarios
from normlab.scene.prompts import norm_values
from normlab.scene.schemas import Scaffold, SceneScenario, with_own_norms
from normlab.scene.taxonomy import Dimensions, SceneNorm, load_dimensions


def hidden_texts(scenario: SceneScenario, dimensions: Dimensions) -> list[str]:
    """What the subject must not read: the norm, its signals and the sanction, as the
    personas, the judge and the auditor are given them."""
    hidden = norm_values(scenario, dimensions)
    return [hidden[key] for key in ("norm", "compliance_signals", "breach_signals", "sanction")]


def scaffold_findings(scaffold: Scaffold) -> list[str]:
    """Subject-visible text that names or implies the hidden layer of the test."""
    texts = [("channel.description", scaffold.channel.description)]
    texts += [(f"cast.{m.name}.bio_oneline", m.bio_oneline) for m in scaffold.channel.cast]
    texts.append(("subject.bio_oneline", scaffold.subject.bio_oneline))
    turns = [*scaffold.transcript.opening_turns, scaffold.transcript.elicitor_turn]
    texts += [(f"transcript.turn {turn.turn_id}", turn.content) for turn in turns]
    return [f"{field}: {message}" for field, message in leak_word_findings(texts)]


@dataclass(frozen=True)
class Finding:
    path: str
    scenario_id: str
    message: str

    def one_line(self) -> str:
        return f"{self.path}: {self.scenario_id}: scaffold.{self.message}"


def dimensions_for(path: Path) -> Dimensions:
    """The dimensions, with the norms the scenarios of ``path`` carry themselves (a CRSEC
    society's emergent norm: ``own_norm``), so their tuples are checked against them."""
    norms = []
    for file in jsonl_files(path):
        for _, row in read_jsonl_rows(file):
            with contextlib.suppress(ValidationError):  # the loader names the bad field
                norms.append(SceneNorm.model_validate(row.get("own_norm")))
    return with_own_norms(load_dimensions(), norms)


def lint_paths(
    paths: Iterable[Path], metadata: MetadataTally | None = None
) -> tuple[int, list[Finding]]:
    """(scenarios read, findings) over every file; unreadable input raises InputError.
    ``metadata``, if given, counts the fields the rows carry as metadata."""
    total, findings = 0, []
    for path in paths:
        scenarios = load_scenarios(path, dimensions_for(path))
        total += len(scenarios)
        if metadata is not None:
            for scenario in scenarios:
                metadata.add(path, scenario)
        findings += [
            Finding(str(path), scenario.scenario_id, message)
            for scenario in scenarios
            for message in scaffold_findings(scenario.scaffold)
        ]
    return total, findings
