"""The duplication step of the immediate evaluation, worked out by hand (issue 31, item 9).

The paper (§2.3.1): "The second step excludes duplication by checking if n̄ already exists in
the set P of qualified personal norm, i.e., V_unique ← CheckDuplication(n̄, P)" and "Any
normative information that yields a false value in one of the above four steps will not pass
this sanity check, and will remain deactivated and invalid."

So duplication is judged against P, the *qualified* norms only. A rejected item is ⟨…, F, F⟩
and a member folded into an abstract norm is ⟨…, F, T⟩: neither is in P, so information with
their words, heard again, is evaluated afresh; only words already held as a qualified norm are
a duplicate (our pre-check skips those without a call, as the LLM check would answer YES).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from normlab.crsec.events import AssessedItem, SkippedItem
from normlab.crsec.normdb import add_norm, apply_abstract, exact_duplicate
from normlab.crsec.operations.evaluation import assess
from normlab.crsec.schemas import EvaluationMode, NormDatabase
from tests.crsec.support import caller, write_script

pytestmark = pytest.mark.anyio

NORM = "Smoking is not allowed inside the cafe."
FIRST_CHAT = "Bob Johnson: Please smoke outside.\nCarlos Gomez: It's a free country, Bob."
SECOND_CHAT = "Tamara Rodriguez: Please smoke outside.\nCarlos Gomez: Sorry, I'll go out front."
PASS = {"consistent": True, "duplicate": False, "is_norm": True, "type_correct": True,
        "conflict": False, "utility": 80}  # fmt: skip
REFUSE = {**PASS, "consistent": False, "reason": "nobody agreed to it"}


def script(tmp_path: Path) -> str:
    """The first chat's item fails consistency, the second's passes (both modes)."""
    return write_script(
        tmp_path,
        [
            ("Run the four checks[\\s\\S]*It's a free country", [REFUSE]),
            ("Run the four checks", [PASS]),
            ("\\[Fact Consistency Check\\][\\s\\S]*It's a free country", [{"consistent": False}]),
            ("\\[Fact Consistency Check\\]", [{"consistent": True}]),
            ("\\[Duplicate Check\\]", [{"duplicate": False}]),
            ("\\[Type Accuracy Check\\]", [{"is_norm": True, "type_correct": True}]),
            ("TASK: Check for conflicts", [{"conflict": False}]),
            ("How much does following", [{"utility": 80}]),
        ],
    )


@pytest.mark.parametrize("mode", ["merged", "faithful"])
async def test_a_refused_norm_heard_again_in_the_same_words_is_evaluated_afresh(
    tmp_path: Path, mode: EvaluationMode
) -> None:
    who = caller(script(tmp_path), agent="Carlos Gomez")
    database = NormDatabase()
    # First chat: CheckConsistency is F → n̄ stays ⟨F, F⟩ as item #1. P = {} (no qualified norm).
    first = await assess(who, database, NORM, "injunctive", "chat", FIRST_CHAT, mode, "9:05")
    assert isinstance(first, AssessedItem) and not first.qualified and first.id == 1
    assert first.rejection is not None and first.rejection.startswith("failed the consistency")
    calls_after_first = len(who.log.entries)  # merged: 1 call; faithful: 1 (stops at check 1)
    assert calls_after_first == 1
    # Second chat, same words. P is still {} (#1 is not qualified), so CheckDuplication(n̄, P)
    # cannot say YES: the item goes through the four checks again, passes, and is item #2.
    second = await assess(who, database, NORM, "injunctive", "chat", SECOND_CHAT, mode, "9:17")
    assert isinstance(second, AssessedItem), "refused once, refused forever: the bug of item 9"
    assert second.qualified and second.id == 2 and second.norms == []
    # merged: 1 more call (2 in all); faithful: 4 checks + utility = 5 more (6 in all)
    assert len(who.log.entries) == {"merged": 2, "faithful": 6}[mode]
    # The refused item stays as it was (⟨F, F⟩ with its reason); P = {#2}.
    assert [(n.id, n.qualified, n.rejection is None) for n in database.norms] == [
        (1, False, False), (2, True, True),
    ]  # fmt: skip
    # A third hearing: now n̄ ∈ P (#2, the same words) → a duplicate, skipped without a call.
    third = await assess(who, database, NORM.upper(), "injunctive", "chat", FIRST_CHAT, mode, "")
    assert isinstance(third, SkippedItem) and third.skipped == "same words as #2"
    assert len(who.log.entries) == {"merged": 2, "faithful": 6}[mode]


def test_the_pre_check_looks_only_at_the_qualified_set() -> None:
    database = NormDatabase()
    rejected = add_norm(
        database, content="No phones at the table.", type="injunctive", utility=1,
        origin="chat", source_text="", time="", qualified=False, rejection="inconsistent",
    )  # fmt: skip
    member = add_norm(
        database, content="Wait your turn at the counter.", type="injunctive", utility=60,
        origin="created", source_text="", time="", qualified=True,
    )  # fmt: skip
    other = add_norm(
        database, content="Queue in line.", type="injunctive", utility=40,
        origin="created", source_text="", time="", qualified=True,
    )  # fmt: skip
    abstract = apply_abstract(
        database, content="Respect the queue.", type="injunctive", utility=50,
        members=[member.id, other.id], theme="Queue related", time="",
    )  # fmt: skip
    # P = {#4 "Respect the queue."}: #1 is ⟨F, F⟩ (rejected), #2 and #3 are ⟨F, T⟩ (folded).
    assert [n.id for n in database.qualified()] == [abstract.id] == [4]
    assert exact_duplicate(database, "no phones at the table") is None  # #1 ∉ P
    assert exact_duplicate(database, "Wait your turn at the counter.") is None  # #2 ∉ P
    assert exact_duplicate(database, " respect THE queue!") is abstract  # #4 ∈ P
    assert rejected.id == 1
