"""Whether a line holds a norm's words, by hand (issue 41, item 14): the trace's test, which
picks export's candidate lines, compared a held norm's words case-sensitively while norm
identity (``normalized``) sets letter case aside.

The paper (§2.2): the receiver "identif[ies] normative information" in the conversation; the
trace follows Figure 3's case study of one norm through a run. An own norm has no keywords,
so the only test is whether a line holds the words of an entry the judge matched to it.

Held norm "No smoking indoors." (matched to ``no_smoking_indoors``), four lines, by hand:

    "Bob Johnson: No smoking indoors."            same words                  -> about it
    "Bob Johnson: NO SMOKING INDOORS, please."    case and a comma aside      -> about it
    "Bob Johnson: no smoking indoors!"            case aside                  -> about it
    "Bob Johnson: No smoking indoorsy corners."   "indoorsy" is another word  -> not about it

    lines about the norm: 3 of 4 (the case-sensitive substring test: 2 of 4, taking the first
    and the last, "indoorsy" included, and missing the two in other letter case)
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Literal

from hypothesis import given
from hypothesis import strategies as st

from normlab.crsec.analysis.trace import about_target
from normlab.crsec.sim.schemas import TargetNorm

TARGET = TargetNorm(
    id="own_no_smoking_indoors",
    statement="No smoking indoors.",
    type="injunctive",
    compliance="smoking outside",
    violation="smoking inside",
)
MATCHED = {"No smoking indoors.": [TARGET.id], "Tip after meals.": ["tipping"]}
LINES = {
    "Bob Johnson: No smoking indoors.": True,
    "Bob Johnson: NO SMOKING INDOORS, please.": True,
    "Bob Johnson: no smoking indoors!": True,
    "Bob Johnson: No smoking indoorsy corners.": False,
}


def test_a_lines_norm_words_are_compared_as_norm_identity_compares_them() -> None:
    found = {line: about_target(line, TARGET, None, MATCHED) for line in LINES}
    assert found == LINES
    assert sum(found.values()) == 3


@given(
    line=st.sampled_from(sorted(LINES)),
    case=st.sampled_from([str.upper, str.lower, str.title, str.swapcase]),
    form=st.sampled_from(["NFC", "NFD"]),
)
def test_letter_case_and_unicode_form_change_nothing(
    line: str, case: Callable[[str], str], form: Literal["NFC", "NFD"]
) -> None:
    """Metamorphic: the line (or the held norm) in another letter case or Unicode form."""
    changed = unicodedata.normalize(form, case(line))
    assert about_target(changed, TARGET, None, MATCHED) == LINES[line]
    held = {unicodedata.normalize(form, case(k)): v for k, v in MATCHED.items()}
    assert about_target(line, TARGET, None, held) == LINES[line]
