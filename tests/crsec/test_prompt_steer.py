"""Our own prompt text shows the agents no example of the norms at stake (issue 31, item 11).

Where the paper prints a prompt, we keep it verbatim, its own examples included (Figure 7's
"Everyone is not allowed to smoke indoors.", Figure 12's indoor voice and headphones, Figure
17's "tip after eating", Figure 18's "No smoking indoors"); the README lists them. Everything
an agent reads that we wrote (the gap-fillers, the output formats, the prompts the paper does
not print) must not add to that steer: an example of one of the three norms whose emergence
is measured would teach the agents the answer. The norms' own keywords (the society file's,
the trace's) decide what counts as naming a norm.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import normlab.crsec
import normlab.norms
from normlab.crsec.sim.society import load_society
from normlab.norms.prompts import GAPS

FOLDERS = [
    Path(normlab.norms.__file__).parent / "prompts",
    Path(normlab.crsec.__file__).parent / "prompts",
]
"""The operations' prompts (the norm architecture's) and CRSEC's own (its agents' system
message, its judge, its export, its questionnaire)."""
FILES = {path.stem: path for folder in FOLDERS for path in folder.glob("*.txt")}
PAPER = {
    "create_norm", "detect_conflict", "identify_chat", "identify_thought", "check_consistency",
    "check_duplication", "check_type", "check_conflict", "classify", "abstract", "plan",
    "actions",
}  # fmt: skip
"""Figures 7–18 verbatim (their gaps are marked ``<normlab …>`` and filled from GAPS)."""
NOT_FOR_AGENTS = {"judge_match", "judge_compliance", "export_losona_ours", "export_scene_ours",
                  "questionnaire"}  # fmt: skip
"""The metrics' judge, the export's generator and the human questionnaire, which must name
the norms they judge, turn into scenarios or ask about."""
OURS = sorted(stem for stem in FILES if stem not in PAPER and stem not in NOT_FOR_AGENTS)
KEYWORDS = re.compile(
    r"\b(?:"
    + "|".join(re.escape(word) for norm in load_society().norms for word in norm.keywords)
    + r")",
    re.IGNORECASE,
)


def test_the_files_are_what_the_test_thinks() -> None:
    assert set(FILES) >= PAPER | NOT_FOR_AGENTS
    assert sum(len(list(folder.glob("*.txt"))) for folder in FOLDERS) == len(FILES)  # no stem twice
    assert {"utterance", "generate_thought", "evaluate_ours", "abstract_ours", "actions_ours",
            "detect_conflict_ours", "identify_ours", "classify_ours"} <= set(OURS)  # fmt: skip
    # the keywords do find the paper's own examples: the check is not vacuous
    assert KEYWORDS.search(FILES["create_norm"].read_text())
    assert KEYWORDS.search(FILES["plan"].read_text())


@pytest.mark.parametrize("name", OURS)
def test_our_prompt_text_names_no_norm_at_stake(name: str) -> None:
    found = KEYWORDS.findall(FILES[name].read_text())
    assert not found, f"prompts/{name}.txt shows the agents {found}"


@pytest.mark.parametrize("gap", sorted(GAPS))
def test_our_gap_fillers_name_no_norm_at_stake(gap: str) -> None:
    found = KEYWORDS.findall(GAPS[gap])
    assert not found, f"the gap <{gap}> shows the agents {found}"
