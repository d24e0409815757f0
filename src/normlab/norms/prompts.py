"""The norm operations' prompts (CRSEC's Figures 7–18) verbatim, our lines where the paper
elides text, our formats, and the judge's match prompt.

The paper's placeholders are kept as printed (``< agent description >``,
``<observation>``…). Where a figure elides text with "....." the verbatim file
holds a marked gap (``<normlab …>``) that our wording fills; every prompt then
gets our output-format lines (JSON for the shared structured-output helper).
``prompts/README.md`` lists which text is the paper's and which is ours.
"""

from __future__ import annotations

import re

from normlab.core.templates import PromptSet

ANGLE = re.compile(r"<\s*([a-z][a-z ]*?)\s*>")
"""The paper's ``< agent description >`` placeholders (lower case; ``< Result >`` is an output
slot and stays)."""

PROMPTS = PromptSet("normlab.norms", ANGLE)
"""The operations' prompt files (``norms/prompts/``), the paper's verbatim text with its
``< placeholder >`` names, filled by name."""

GAPS = {
    "normlab consistency task": " Decide whether NORMATIVE INFO says what the related chat or "
    "thought says, without adding to or changing its meaning. ",
    "normlab duplication answer": PROMPTS.load("check_answer_ours").replace(
        "<answer shape>", '{"duplicate": true}  (true = YES, a duplicate)'
    ),
    "normlab descriptive": " what most people in the group actually do; not following it draws "
    "no punishment",
    "normlab injunctive": " what ought to be done, or what the group disapproves of",
    "normlab type answer": "STEP 1: is INPUT a norm at all (a general rule of behaviour for a "
    "group, following the NORM DEFINITION; if the subject of the sentence is a specific person it "
    "is NOT a norm)? STEP 2: is its type correct?\n"
    + PROMPTS.load("check_answer_ours").replace(
        "<answer shape>", '{"is_norm": true, "type_correct": true, "type": "injunctive"}'
    ),
    "normlab synthesis principles and first example": PROMPTS.load("abstract_ours"),
    "normlab example": PROMPTS.load("actions_ours"),
}


def render(name: str, values: dict[str, str], *ours: str) -> str:
    """The verbatim prompt ``name`` with its gaps filled, then our files ``ours``, filled."""
    template = PROMPTS.load(name)
    for gap, text in GAPS.items():
        template = template.replace(f"<{gap}>", text)
    template = template.replace("<normlab answer scaffold>", PROMPTS.load("detect_conflict_ours"))
    parts = [template, *(PROMPTS.load(extra) for extra in ours)]
    return PROMPTS.fill("\n".join(parts), {"name": "<name>", **values})


def numbered(items: list[str]) -> str:
    """``1. first 2. second`` on separate lines, or NONE (the paper's wording for no norms)."""
    return "\n".join(f"{index}. {item}" for index, item in enumerate(items, start=1)) or "NONE"
