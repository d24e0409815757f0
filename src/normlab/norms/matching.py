"""The judge's match prompt: does a personal norm express one of the target norms?

CRSEC's metrics ask it of every norm an agent holds (``normlab.crsec.analysis.judge``); the
norm-learning subject asks it of the norms it inferred, against the scenario's hidden norm
(``normlab.agents.inference``). One prompt (``prompts/judge_match.txt``), one reply shape
([`NormMatches`][normlab.norms.NormMatches]), so the two read the same way.
"""

from __future__ import annotations

from normlab.norms.prompts import render


def target_line(norm_id: str, statement: str) -> str:
    """One target norm as the judge's prompts list it."""
    return f"- {norm_id}: {statement}"


def match_prompt(content: str, targets: str) -> str:
    """``judge_match`` filled: does the personal norm ``content`` express one of ``targets``
    (lines from [`target_line`][normlab.norms.target_line])? Shared with the norm-learning subject's
    inference check."""
    return render("judge_match", {"personal norm": content, "targets": targets})
