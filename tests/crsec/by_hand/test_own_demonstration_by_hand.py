"""An exported norm's LoSoNA demonstrations are the society's own where the run holds them
(issue 41, item 12), worked out by hand.

LoSoNA's leak rule (paper §3–5, ``losona/lint.py``): no subject-visible text shares a run of
five words (``SHARED_RUN_WORDS``) with the norm statement or its examples. Once, any such line
dropped its whole conversation from the export, so a norm the society talked about in its own
words got only the generator's demonstrations. Now: a line the judge ties to the norm but that
copies the statement is passed over (it states the norm, it does not show it) and the judge is
asked on; the conversation is cut to the longest run of lines around the demonstration that
copies no statement; a run-held judge example that copies a line shown gives way. Every cut is
one line of ``provenance.dropped``; whose each demonstration is, ``provenance.demonstrations``.

The statement here, "Take your cigarette outside the cafe." (six words), and one conversation
of six lines (indices 0–5), its candidates 1, 3 and 4.
"""

from __future__ import annotations

import asyncio
import unicodedata
from pathlib import Path
from typing import cast

from hypothesis import given
from hypothesis import strategies as st

from normlab.core.leaks import SHARED_RUN_WORDS, shared_run
from normlab.crsec.analysis.judge import Judge
from normlab.crsec.export.emerged import EmergedNorm, Selection
from normlab.crsec.export.evidence import Conversation, Evidence, Said, mark_demonstrations
from normlab.crsec.export.losona import LosonaFill, plan_losona
from normlab.crsec.sim.schemas import TargetNorm
from normlab.losona import check_scenario, load_taxonomy
from normlab.report.provenance import provenance_table
from tests.crsec.by_hand.test_export_by_hand import BOB, CARLOS, select

STATEMENT = "Take your cigarette outside the cafe."
LINES = [
    (BOB, "Morning, Carlos. How is the poem?"),
    (CARLOS, "I know, I know: take your cigarette outside the cafe."),  # copies "take … the"
    (BOB, "It drifts over every table."),
    (CARLOS, "Fair. I will hold my smoke for the bench out front."),  # tied, copies nothing
    (BOB, "Good, take your cigarette outside the cafe next time too."),  # copies again
    (CARLOS, "See you at the bench."),
]
TIED = {LINES[1][1], LINES[3][1], LINES[4][1]}
"""What the judge ties to the norm, of the lines it is asked about."""
COPYING = "Carlos Gomez is saying I will hold my smoke for later (at Hobbs Cafe)"
"""A compliant action the run holds that shares "i will hold my smoke" with line 3."""
CLEAN = "Bob Johnson is pointing a guest to the bench outside (at Hobbs Cafe)"


class TyingJudge:
    """The judge, for ``mark_demonstrations``: ties exactly the lines of ``TIED``."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def demonstrates(
        self, target: TargetNorm, speaker: str, line: str, occasion: str
    ) -> bool:
        self.asked.append(line)
        return line in TIED


def talk() -> Conversation:
    return Conversation(
        time="day 1 09:10", sender=BOB, receiver=CARLOS, place="Hobbs Cafe",
        observation="Carlos Gomez is smoking at a table (at Hobbs Cafe)", topic="smoking",
        transcript=LINES, candidates=[1, 3, 4],
    )  # fmt: skip


def emerged(selection: Selection) -> EmergedNorm:
    """Smoking's emerged norm with this statement and the hand-written evidence, its
    demonstration marked by the judge above."""
    smoking = selection.emerged[0]
    target = smoking.target.model_copy(update={"statement": STATEMENT})
    evidence = Evidence(
        conversations=[talk()],
        compliance=[Said(time="day 1 09:00", agent=CARLOS, text=text) for text in (COPYING, CLEAN)],
    )
    judge = TyingJudge()
    asyncio.run(mark_demonstrations(evidence, target, cast(Judge, judge)))
    # Asked 1 (tied, copies the statement: passed over), then 3 (tied, copies nothing: marked);
    # never 4. Two lines asked.
    assert judge.asked == [LINES[1][1], LINES[3][1]] and evidence.lines_asked == 2
    return smoking.model_copy(update={"target": target, "evidence": evidence})


def test_a_tied_line_that_copies_the_statement_is_passed_over_and_the_talk_cut_around_it(
    tmp_path: Path,
) -> None:
    selection = select(tmp_path)
    norm = emerged(selection)
    (marked,) = norm.evidence.conversations
    assert (marked.stated, marked.marked) == ([1], 3)
    plan = plan_losona(norm, selection)
    # Lines copying the statement: 1 and 4. Around the marked 3: from 1 + 1 = 2 to 4 - 1 = 3,
    # so lines 2–3 (indices), the demonstration now its second line (3 - 2 = 1).
    (excerpt,) = plan.conversations
    assert excerpt.transcript == LINES[2:4] and excerpt.marked == 1
    assert excerpt.candidates == [1]
    # One society conversation, so 2 - 1 = 1 demonstration for the generator; the filler is
    # 24 - 1 - 2 taken - 1 demonstration = 20 ordinary turns.
    assert (plan.demonstrations, plan.filler) == (1, 20)
    # The compliant example that copies line 3 gives way to the next one; the breach the run
    # lacks (no conflict in this evidence) the generator writes.
    assert (plan.compliant, plan.breaching) == (CLEAN, "")
    where = f"day 1 09:10, {BOB} with {CARLOS}"
    assert plan.dropped == [
        f"{where}: {CARLOS}'s {LINES[1][1]!r} is tied to the norm but copies its statement "
        "('take your cigarette outside the'): it states the norm, so it is not the "
        "demonstration",
        f"{where}: lines 1–2 of 6 left out: line 2 ({CARLOS}) copies the norm's statement "
        "('take your cigarette outside the')",
        f"{where}: lines 5–6 of 6 left out: line 5 ({BOB}) copies the norm's statement "
        "('take your cigarette outside the')",
        f"judge_examples.compliant: the run's {COPYING!r} shares 'i will hold my smoke' "
        "with a turn taken from the society, which the subject reads",
    ]
    scenario, problems = plan.check(fill(plan.cast, plan.filler))
    assert problems == [] and scenario is not None
    assert list(check_scenario(scenario, load_taxonomy())) == []
    assert scenario.provenance is not None
    (generator, society) = sorted(scenario.provenance.demonstrations, key=lambda d: d.source)
    assert (society.source, society.speaker, society.time) == ("society", CARLOS, "day 1 09:10")
    shown = {turn.turn_id: turn for turn in scenario.transcript}
    assert shown[society.turn_id].content == LINES[3][1]
    assert (generator.source, generator.time) == ("generator", "")
    assert shown[generator.turn_id].content == "Out on the bench again, the air is better there"
    assert sorted(scenario.demonstration_turn_ids) == sorted([society.turn_id, generator.turn_id])
    assert scenario.provenance.dropped == plan.dropped
    table = provenance_table([(scenario.scenario_id, scenario.provenance)])
    assert table is not None and table.rows[0][-2:] == [
        f"society: turn {society.turn_id}; generator: turn {generator.turn_id}",
        "; ".join(plan.dropped),
    ]
    assert "4 thing(s) the run holds are left out" in scenario.notes


def test_a_conversation_whose_every_tied_line_copies_the_statement_is_left_out_and_said(
    tmp_path: Path,
) -> None:
    selection = select(tmp_path)
    norm = emerged(selection)
    stating = talk().model_copy(update={"stated": [1, 4], "marked": None})
    evidence = norm.evidence.model_copy(update={"conversations": [stating]})
    plan = plan_losona(norm.model_copy(update={"evidence": evidence}), selection)
    assert plan.conversations == [] and plan.demonstrations == 2 and plan.unmarked == 0
    assert plan.dropped[-1] == (
        f"day 1 09:10, {BOB} with {CARLOS}: left out, no line tied to the norm that copies none"
    )
    # Nothing shown, so the run's first compliant example stands.
    assert plan.compliant == COPYING


def fill(cast_names: list[str], filler: int) -> LosonaFill:
    others = [name for name in cast_names if name != CARLOS] or cast_names
    chatter = [
        "Anyone seen the new menu?", "The scones are back.", "Rain again tomorrow.",
        "Who took the crossword?", "Lovely music this morning.", "The window seat is free.",
        "Two lattes, please.", "Quiz night on Friday.", "The bus was late again.",
        "Nice jumper!", "Is the wifi down?", "Back in five.", "Lemon cake today.",
        "Anyone for chess?", "Parking is a nightmare.", "Happy birthday, Sam!",
        "The plant by the door needs water.", "Did the market open?",
        "Sunny at last.", "See you at noon.",
    ]  # fmt: skip
    return LosonaFill.model_validate(
        {
            "subject_bio": "Alex has just moved to the street and works from home.",
            "turns": [
                {"actor": others[i % len(others)], "content": chatter[i]} for i in range(filler)
            ],
            "demonstrations": [
                {
                    "actor": cast_names[-1],
                    "content": "Out on the bench again, the air is better there",
                }
            ],
            "elicitor": {"actor": others[0], "content": "Alex, welcome! Anything you need?"},
            "example_elicitor": "Welcome, what brings you here?",
            "breaching": "I lit up at my table while I waited.",
        }
    )


def spellings(text: str) -> st.SearchStrategy[str]:
    """``text`` in another letter case, Unicode form (NFD, with an accent), "and" as "&", or
    curly apostrophes."""
    return st.sampled_from(
        [
            text.upper(),
            unicodedata.normalize("NFD", text.replace("cafe", "café")),
            text.replace(" and ", " & "),
            text.replace("'", "’"),
            text,
        ]
    )


@given(st.data())
def test_a_copy_is_a_copy_however_it_is_spelled(data: st.DataObject) -> None:
    """Metamorphic: the leak rule sees the same run whatever the case, Unicode form, accents,
    "&"/"and" or apostrophes of either side."""
    statement = "Don't smoke and vape inside the cafe, please."
    line = "Honestly, don't smoke and vape inside the cafe, ok?"
    run = shared_run(line, [statement])
    # Shared: "don't smoke and vape inside", "smoke and vape inside the", "and vape inside
    # the cafe"; the first sorted is named.
    assert run == "and vape inside the cafe" and len(run.split()) == SHARED_RUN_WORDS
    assert shared_run(data.draw(spellings(line)), [data.draw(spellings(statement))]) is not None
