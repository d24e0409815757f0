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

import unicodedata
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from normlab.norms.normdb import add_norm, apply_abstract, exact_duplicate
from normlab.norms.operations.evaluation import assess, synthesize
from normlab.norms.records import AssessedItem, SkippedItem
from normlab.norms.schemas import EvaluationMode, NormDatabase
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


# --- abstract norms (issue 31, item 11) ----------------------------------------------------
# The paper (§2.3.2): "each generated abstract norm will be immediately evaluated through the
# sanity check mentioned in the last paragraph. If an abstract personal norm successfully
# passes the sanity check, then it will become qualified and all the personal norms within
# that subset will be deactivated." So the second category's abstract meets P as the first
# left it: the first abstract in it, the first's members out of it.

BOB_NORMS = [
    ("No smoking indoors.", 100),
    ("Keep your voice down inside the cafe.", 90),
    ("People tip the staff after their meals.", 70),
    ("Smoke only in designated areas outside.", 80),
    ("Use headphones when listening to music.", 60),
]
SMOKE_ABSTRACT = "Keep smoke out of shared indoor spaces."


def bob() -> NormDatabase:
    database = NormDatabase()
    for content, utility in BOB_NORMS:
        add_norm(database, content=content, type="injunctive", utility=utility,
                 origin="created", source_text="", time="", qualified=True)  # fmt: skip
    return database


def synthesis_script(tmp_path: Path, second_abstract: str) -> str:
    return write_script(
        tmp_path,
        [
            ("Categorize QUALIFIED", [{"categories": [
                {"theme": "Smoke", "members": [1, 4]}, {"theme": "Sound", "members": [2, 5]},
                {"theme": "Tips", "members": [3]}]}]),
            ("\\[Synthesis\\][\\s\\S]*\\[Smoke\\] 1\\.", [{"theme": "Smoke",
                "abstract": SMOKE_ABSTRACT, "weights": [0.7, 0.3]}]),
            ("\\[Synthesis\\][\\s\\S]*\\[Sound\\] 2\\.", [{"theme": "Sound",
                "abstract": second_abstract, "weights": [0.7, 0.3]}]),
            ("Run the four checks", [PASS]),
        ],
    )  # fmt: skip


async def test_two_categories_with_the_same_abstract_give_one_qualified_norm(
    tmp_path: Path,
) -> None:
    """The busy run's Bob: both categories' abstracts were "Keep smoke out of shared indoor
    spaces.", and both became qualified (two identical qualified norms)."""
    who = caller(synthesis_script(tmp_path, SMOKE_ABSTRACT))
    database = bob()
    result = await synthesize(who, database, "merged", "day 1 09:55")
    first, second = result.abstracts
    # Smoke: members #1 (100) and #4 (80), weights 0.7 / 0.3 → 0.7·100 + 0.3·80 = 94; checked
    # against P minus its members = {#2, #3, #5}: passes, becomes #6; #1 and #4 deactivated.
    assert (first.id, first.members, first.utility, first.verdict.qualified) == (
        6,
        [1, 4],
        94,
        True,
    )
    # Sound: members #2 (90) and #5 (60) → 0.7·90 + 0.3·60 = 81. P is now {#2, #3, #5, #6};
    # without its own members {#3, #6}: #6 has the same words, so it is a duplicate (no call),
    # kept as #7 ⟨F, F⟩; #2 and #5 stay qualified.
    assert (second.id, second.utility, second.verdict.qualified) == (7, 81, False)
    assert second.verdict.rejection == "same words as #6"
    assert [n.id for n in database.qualified()] == [2, 3, 5, 6]
    assert [n.content for n in database.qualified()].count(SMOKE_ABSTRACT) == 1
    # calls: classify 1 + GenerateAbstractNorm 2 + one evaluation (the first abstract's) = 4
    assert [e.data.operation for e in who.log.entries] == [
        "classify", "abstract", "evaluate", "abstract",
    ]  # fmt: skip


async def test_the_second_abstract_is_checked_against_the_first(tmp_path: Path) -> None:
    who = caller(synthesis_script(tmp_path, "Keep noise down indoors."))
    database = bob()
    result = await synthesize(who, database, "merged", "day 1 09:55")
    assert [a.verdict.qualified for a in result.abstracts] == [True, True]
    evaluations = [e.data.prompt for e in who.log.entries if e.data.operation == "evaluate"]
    # The first meets P minus its members #1, #4: #2, #3, #5 in the database's order.
    assert ("QUALIFIED PERSONAL NORMS: 1. Keep your voice down inside the cafe.\n"
            "2. People tip the staff after their meals.\n"
            "3. Use headphones when listening to music.\n") in evaluations[0]  # fmt: skip
    # The second meets P as the first left it, minus its own members #2, #5: #3 and #6, the
    # first category's abstract (before the fix it saw #1, #3, #4, never #6).
    assert ("QUALIFIED PERSONAL NORMS: 1. People tip the staff after their meals.\n"
            f"2. {SMOKE_ABSTRACT}\n") in evaluations[1]  # fmt: skip
    assert [n.id for n in database.qualified()] == [3, 6, 7]


# --- what "the same words" means: metamorphic properties ------------------------------------

LETTERS = st.characters(categories=["L", "N"]).filter(
    # letters whose case has one spelling back (not Turkish dotless ı, whose upper case is I)
    lambda c: c.upper().casefold() == c.lower().casefold() == c.casefold()
)
WORDS = st.lists(st.text(LETTERS, min_size=1, max_size=8), min_size=1, max_size=6)


def variants(words: list[str]) -> st.SearchStrategy[str]:
    """The same words written otherwise: letter case, NFC/NFD, "and" as "&", quoting style,
    punctuation and spacing."""
    text = " ".join(words)
    return st.sampled_from(
        [
            text.upper(),
            text.lower(),
            unicodedata.normalize("NFD", text),
            unicodedata.normalize("NFC", text),
            f'"{text}."',
            f"‘{text}’!",
            "  " + "   ".join(words) + " ",
            ", ".join(words),
            " ".join("&" if word == "and" else word for word in words),
        ]
    )


@given(data=st.data(), words=WORDS)
def test_the_same_words_written_otherwise_are_a_duplicate_of_a_qualified_norm(
    data: st.DataObject, words: list[str]
) -> None:
    held = data.draw(variants([*words, "and", "more"]))
    heard = data.draw(variants([*words, "and", "more"]))
    database = NormDatabase()
    norm = add_norm(database, content=held, type="injunctive", utility=50, origin="chat",
                    source_text="", time="", qualified=True)  # fmt: skip
    assert exact_duplicate(database, heard) is norm
    # and of a refused item never: it is not in P
    refused = NormDatabase()
    add_norm(refused, content=held, type="injunctive", utility=1, origin="chat",
             source_text="", time="", qualified=False, rejection="inconsistent")  # fmt: skip
    assert exact_duplicate(refused, heard) is None
