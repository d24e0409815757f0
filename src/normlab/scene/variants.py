"""SCENE's prompt variants (``normlab.core.variants``): the paper's prompt, the subject's
instruction reworded, or the participants renamed.

- ``file:PATH``: the subject's instruction (B.4, ``prompts/subject.txt``) read from PATH, with
  the same placeholders and its line ``TRANSCRIPT SO FAR: {{transcript}}`` (what comes before
  it is the system message, after it the running chat); the personas', orchestrator's,
  judge's and auditor's prompts stay the paper's.
- ``rename:SEED``: the subject and every scripted persona renamed everywhere anyone reads
  them (the channel and cast, the scaffold's turns, the personas' outlines, sanction and
  precedent lines, given names alone included: "Aaliyah" for "Aaliyah Brooks"), in a
  scenario's own norm too (an exported CRSEC norm often names agents),
  with one mapping; the taxonomy's norms, signals and sanctions name nobody and stay as
  written. Titles are kept, names that are words are renamed only where they are the name,
  and a scenario whose text does not say which is refused (``normlab.core.renaming``). The
  names drawn avoid every word of the scenario and of the norm's text.

SCENE's demonstrations are played live by the personas, not written in the scaffold, so there
is nothing to reorder; its output format is the JSON action every role's parser reads.
Each renamed scenario is validated as a scenario file row is (the personas must still be the
cast, the demonstrator one of them) and checked by SCENE's linter (``normlab.scene.lint``): a
variant whose scenarios fail either, where the paper's do not, is refused when the task is
built.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from normlab.core.errors import InputError
from normlab.core.jsonio import validation_field
from normlab.core.leaks import SHARED_RUN_WORDS
from normlab.core.renaming import Renaming, all_strings, fresh_names
from normlab.core.templates import DOUBLE_BRACES
from normlab.core.variants import (
    OPTION,
    PAPER,
    VARIANT_KEY,
    VariantBase,
    parse_variant,
    read_instruction,
    transformed,
)
from normlab.scene.lint import hidden_texts, scaffold_findings
from normlab.scene.prompts import TRANSCRIPT_MARKER, load_template, norm_values
from normlab.scene.schemas import SceneScenario
from normlab.scene.taxonomy import Dimensions, load_dimensions

KINDS = (PAPER, "file", "rename")
"""The variants SCENE takes."""
PROTECTED = frozenset(
    ("scenario_id", "tuple", "provenance", "action", "fidelity_criteria", "id", "opposite")
)
"""Fields a rename leaves as written: the ids (an own norm's and its opposite's too), the
tuple, the fidelity criteria (counts and the tuple's sanction), the turns' action words. A
scenario's own norm ("Questions from Priya are answered in one line") is renamed with the
cast: the personas, the judge and the auditor read it beside the renamed channel."""
DESCRIPTIONS = {
    PAPER: "the paper's prompts (Appendix B)",
    "file": "the subject's instruction (B.4) read from a file, the paper's placeholders kept",
    "rename": "the subject and every persona renamed, seeded per scenario",
}


class Variant(VariantBase):
    """A parsed variant; ``file:`` brings the subject's instruction, in place of B.4."""

    DESCRIPTIONS = DESCRIPTIONS

    def apply(
        self, scenarios: list[SceneScenario], dimensions: Dimensions | None = None
    ) -> list[SceneScenario]:
        """The scenarios as this variant shows them, each validated and linted (an
        instruction file, against what each scenario hides)."""
        known = dimensions or load_dimensions()
        self.refuse_copies(
            ((s.scenario_id, hidden_texts(s, known)) for s in scenarios), SHARED_RUN_WORDS
        )
        if self.spec.kind != "rename":
            return scenarios
        seed = self.spec.seed
        return transformed(self.spec, scenarios, lambda item: renamed(item, seed, known), findings)


def variant_of(text: str | None) -> Variant:
    """``text`` parsed (``-T variant=…``), a ``file:`` instruction read and checked; a bad one
    is a one-line error."""
    spec = parse_variant(PAPER if text is None else text, KINDS, system="scene")
    if spec.kind != "file":
        return Variant(spec)
    line = f"{TRANSCRIPT_MARKER} {{{{transcript}}}}"
    return Variant(spec, read_instruction(spec, load_template("subject"), DOUBLE_BRACES, [line]))


def check_variant(text: str) -> str:
    """The spec, checked as the task will check it (a study checks its variants up front)."""
    return variant_of(text).spec.text


def findings(scenario: SceneScenario) -> list[str]:
    """The linter's findings on one scenario's scaffold, one line each."""
    return [f"{scenario.scenario_id}: {line}" for line in scaffold_findings(scenario.scaffold)]


def renamed(
    scenario: SceneScenario, seed: int, dimensions: Dimensions
) -> tuple[SceneScenario, Renaming]:
    """The scenario with its subject and personas renamed (see the module docstring)."""
    scaffold = scenario.scaffold
    names = [scaffold.subject.name, *(member.name for member in scaffold.channel.cast)]
    row: dict[str, Any] = scenario.model_dump(mode="json")
    hidden = norm_values(scenario, dimensions)
    taken = [*all_strings(row), hidden["norm"], hidden["compliance_signals"]]
    taken += [hidden["breach_signals"], hidden["sanction"]]
    about = {scaffold.subject.name: [scaffold.subject.bio_oneline]}
    for member in scaffold.channel.cast:
        about.setdefault(member.name, []).append(member.bio_oneline)
    for persona in scenario.hidden.personas:
        about.setdefault(persona.name, []).append(persona.outline)
    renaming = fresh_names(
        names, f"rename:{seed}:{scenario.scenario_id}", taken, item=scenario.scenario_id,
        about=about,
    )  # fmt: skip
    try:
        return SceneScenario.model_validate(renaming.strings(row, PROTECTED)), renaming
    except ValidationError as error:
        field, message = validation_field(error)
        raise InputError(
            OPTION,
            f"rename:{seed}: the renamed scenario {scenario.scenario_id} is no longer valid: "
            f"{field}: {message}",
            field=VARIANT_KEY,
        ) from None
