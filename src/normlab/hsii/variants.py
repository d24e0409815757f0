"""HSII's prompt variants (``normlab.core.variants``): the paper's Testing Prompt-1, reworded,
with the characters renamed, or asking for the reply in another format.

- ``file:PATH``: Testing Prompt-1 (Fig. 8, ``prompts/testing.txt``) read from PATH; the case
  follows it on its own line, as it follows the paper's. The paper's prompt has no
  placeholders, so neither may the file.
- ``rename:SEED``: every character renamed, consistently, wherever a name stands: the scene,
  the relationships, the history's speakers, addressees and messages, the golden target and
  its statement, and the aliases (keys and texts), so r2 still asks for the same person and
  r3 compares statements about the same people; a person's given name, family name and title
  + family name ("Dr. Sharma") alike, the title kept (``normlab.core.renaming``), a name that
  is also a word only where it is the name, a case where that cannot be told refused. The
  bank's names are people's names, in capitals where the cast's are, so a role's name ("the
  ORCHARD OWNER") becomes a person's ("ANOUK GALLARDO", its "the" dropped): what each does
  stays in the relationships, which is how the paper's scenes introduce them; a group's name
  ("FARMERS") reads as one person. The Intelligent Assistant keeps its name.
- ``format:NAME``: the paper's third notice (one dict on one line) asks instead for ``json``
  (a strict JSON object with double quotes) or ``key-lines`` (``role_to: …`` and
  ``content: …`` on two lines); r1's parser reads both (``normlab.hsii.parse``).

In every variant the reference (r4's yardstick) answers the paper's prompt and the judge's
prompt is the same: only the subject's prompt changes. HSII's histories are conversations
whose order is what happened, so there is no reorder. Each renamed case is checked by HSII's
linter (``normlab.hsii.lint``): a variant whose cases have a finding the paper's do not is
refused when the task is built.
"""

from __future__ import annotations

from typing import Any

from normlab.core.renaming import Renaming, all_strings, fresh_names
from normlab.core.templates import DOUBLE_BRACES
from normlab.core.variants import (
    PAPER,
    VariantBase,
    parse_variant,
    read_instruction,
    transformed,
)
from normlab.hsii.lint import COPIED_RUN_WORDS, check_case
from normlab.hsii.prompts import PROMPTS
from normlab.hsii.schemas import Case

KINDS = (PAPER, "file", "rename", "format")
"""The variants HSII takes."""
PAPER_FORMAT = (
    "3. Your output should be one dict in just one line! Not containing any line break "
    "signal in your response and make sure can be loaded with json. It should strictly "
    "follow the format example described below:\n\n"
    "{ 'role_from': 'Intelligent Assistant', 'role_to': 'Character A', 'content': 'xxx' }"
)
"""Testing Prompt-1's notice on the output format, as printed (what ``format:`` replaces)."""
FORMATS = {
    "json": (
        "3. Your output should be one JSON object in just one line, with double quotes, that "
        "a JSON parser loads as it stands. It should strictly follow the format example "
        "described below:\n\n"
        '{"role_from": "Intelligent Assistant", "role_to": "Character A", "content": "xxx"}'
    ),
    "key-lines": (
        "3. Your output should be two lines and nothing else: the first 'role_to: ' and the "
        "name of the character you talk to, the second 'content: ' and your statement. It "
        "should strictly follow the format example described below:\n\n"
        "role_to: Character A\ncontent: xxx"
    ),
}
"""Our wordings of the notice for each output format r1's parser reads (ours, not the
paper's: it prints only its own)."""
PROTECTED = frozenset(
    ("case_id", "dialogue_id", "source_id", "domain", "topic", "provenance", "index")
)
"""Fields a rename leaves as written: the ids, the domain and topic, the provenance."""
KEYED = frozenset(("aliases",))
"""Mappings keyed by a character's name: their keys are renamed too."""
DESCRIPTIONS = {
    PAPER: "the paper's Testing Prompt-1 (Fig. 8)",
    "file": "Testing Prompt-1 read from a file",
    "rename": "every character renamed, seeded per case, golden target and aliases alike",
    "format": "Testing Prompt-1 asking for another output format r1 reads",
}


class Variant(VariantBase):
    """A parsed variant; ``file:`` and ``format:`` bring the subject's Testing Prompt-1, in
    place of the paper's."""

    DESCRIPTIONS = DESCRIPTIONS

    def apply(self, cases: list[Case]) -> list[Case]:
        """The cases as this variant shows them, each checked by the linter (an instruction
        file, against each case's golden statement)."""
        self.refuse_copies(((c.case_id, [c.golden.content]) for c in cases), COPIED_RUN_WORDS)
        if self.spec.kind != "rename":
            return cases
        seed = self.spec.seed
        return transformed(self.spec, cases, lambda item: renamed(item, seed), findings)


def variant_of(text: str | None) -> Variant:
    """``text`` parsed (``-T variant=…``), an instruction read or written; a bad one is a
    one-line error."""
    spec = parse_variant(PAPER if text is None else text, KINDS, tuple(FORMATS), system="hsii")
    paper = PROMPTS.load("testing")
    if spec.kind == "file":
        return Variant(spec, read_instruction(spec, paper, DOUBLE_BRACES))
    if spec.kind == "format":
        return Variant(spec, paper.replace(PAPER_FORMAT, FORMATS[spec.argument]))
    return Variant(spec)


def check_variant(text: str) -> str:
    """The spec, checked as the task will check it (a study checks its variants up front)."""
    return variant_of(text).spec.text


def findings(case: Case) -> list[str]:
    """The linter's findings on one case, one line each."""
    return [f"{case.case_id}: {field}: {message}" for field, message in check_case(case, None)]


def renamed(case: Case, seed: int) -> tuple[Case, Renaming]:
    """The case with every character renamed (see the module docstring)."""
    row: dict[str, Any] = case.model_dump(mode="json")
    renaming = fresh_names(
        case.characters,
        f"rename:{seed}:{case.case_id}",
        all_strings(row),
        family=True,
        drop_article=True,
        item=case.case_id,
    )
    return Case.model_validate(renaming.strings(row, PROTECTED, KEYED)), renaming
