"""The reply prompt's compliance block: CRSEC's compliance wording around the qualified norms.

CRSEC's Compliance module (§2.4, Figures 17–18) writes day plans and 5-minute actions; a
benchmark asks for the next chat turn instead. So the subject keeps the benchmark's own
prompt and gains one block (``prompts/compliance_ours.txt``) whose lines are read from
CRSEC's verbatim prompt files rather than copied: Figure 17's ATTENTION line, the
QUALIFIED PERSONAL NORMS line of Figures 17–18, and the opening of Figure 18's task line,
"Considering compliance with existing qualified personal norms", which our words end with
the benchmark's task. A diff of CRSEC's files therefore changes this block too.
"""

from __future__ import annotations

from functools import cache

from normlab.core.templates import PromptSet
from normlab.norms import ANGLE, numbered
from normlab.norms import PROMPTS as CRSEC_PROMPTS

PROMPTS = PromptSet("normlab.agents", ANGLE)


def paper_line(name: str, start: str) -> str:
    """The line of CRSEC's verbatim prompt ``name`` that starts with ``start``."""
    for line in CRSEC_PROMPTS.load(name).splitlines():
        if line.strip().startswith(start):
            return line.strip()
    raise LookupError(f"CRSEC's prompt {name!r} has no line starting {start!r}")


@cache
def _paper_lines() -> dict[str, str]:
    return {
        "plan attention": paper_line("plan", "ATTENTION:"),
        "actions qualified personal norms": paper_line("actions", "QUALIFIED PERSONAL NORMS:"),
        "actions compliance cue": paper_line("actions", "Considering compliance").split(",")[0],
    }


def compliance_block(norms: list[str]) -> str:
    """The block listing the qualified personal norms (NONE when there are none, as in
    Figure 17) and asking for the next chat turn in compliance with them."""
    template = PROMPTS.fill(PROMPTS.load("compliance_ours"), _paper_lines())
    return CRSEC_PROMPTS.fill(template, {"qualified personal norms": numbered(norms)})
