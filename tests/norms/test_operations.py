"""Every CRSEC operation on the scripted model: prompt, parse, and what it returns."""

from __future__ import annotations

from pathlib import Path

import pytest

from normlab.crsec.sim.society import load_society
from normlab.norms.clock import Clock
from normlab.norms.operations.compliance import fit_subtasks, plan_actions, plan_day
from normlab.norms.operations.creation import create_norms
from normlab.norms.operations.evaluation import evaluate, synthesize
from normlab.norms.operations.spreading import (
    detect_conflicts,
    generate_thoughts,
    identify_from_chat,
    identify_from_thoughts,
    utterance,
)
from normlab.norms.schemas import NormDatabase, PersonalNorm
from tests.crsec.support import caller, write_script

pytestmark = pytest.mark.anyio

SOCIETY = load_society()
BOB = SOCIETY.agent("Bob Johnson")
CLOCK = Clock(__import__("datetime").date(2023, 2, 13), 2, (8, 16), 5)


def norm(id: int, content: str, utility: int = 80) -> PersonalNorm:
    return PersonalNorm(
        id=id, content=content, utility=utility, type="injunctive",
        activated=True, valid=True, origin="created",
    )  # fmt: skip


NORMS = [norm(1, "No smoking indoors.", 100), norm(2, "Keep your voice down inside.", 60)]


async def test_create_norm_sends_the_description_and_keeps_count(tmp_path: Path) -> None:
    created = [{"type": "inj", "content": f"Norm {i}.", "utility": 120} for i in range(7)]
    model = write_script(tmp_path, [("TASK: generate 5 norms", [{"norms": created}])])
    who = caller(model)
    norms = await create_norms(who, BOB, 5)
    assert [n.content for n in norms] == [f"Norm {i}." for i in range(5)]
    assert {n.type for n in norms} == {"injunctive"} and {n.utility for n in norms} == {100}
    entry = who.log.entries[0]
    assert BOB.description in entry.data.prompt and "exactly 5 norms" in entry.data.prompt


async def test_a_reply_that_never_parses_creates_nothing_and_is_recorded(tmp_path: Path) -> None:
    model = write_script(tmp_path, [("TASK: generate", ["no json here"])])
    who = caller(model)
    assert await create_norms(who, BOB, 5) == []
    entry = who.log.entries[0]
    assert entry.data.parse_failed and entry.data.replies == ["no json here", "no json here"]


async def test_detect_conflict_batched_and_per_observation(tmp_path: Path) -> None:
    finding = {
        "findings": [
            {"observation": 1, "conflict": "yes", "talk": "no", "topic": "smoke"},
            {"observation": 2, "conflict": "no"},
            {"observation": 9, "conflict": True},
        ]
    }
    model = write_script(tmp_path, [("This is a two-stage task", [finding])])
    seen = ["Carlos Gomez is smoking (at Hobbs Cafe)", "Tom Gomez is reading (at Hobbs Cafe)"]
    who = caller(model)
    found = await detect_conflicts(who, BOB, "a norm entrepreneur", NORMS, seen)
    assert [(f.observation, f.conflict, f.talk) for f in found] == [
        (1, True, False),
        (2, False, False),
    ]
    prompt = who.log.entries[0].data.prompt
    assert "1. Carlos Gomez is smoking" in prompt and "2. Tom Gomez" in prompt
    assert "YOU ARE: Bob Johnson, a norm entrepreneur." in prompt
    assert "QUALIFIED PERSONAL NORMS: 1. No smoking indoors." in prompt
    faithful = caller(model)
    found = await detect_conflicts(faithful, BOB, "x", NORMS, seen, batched=False)
    assert len(faithful.log.entries) == 2
    # each call sees one observation: its answer 1 is shifted, its out-of-range answers dropped
    assert [f.observation for f in found] == [1, 2]


async def test_conversation_turn_and_identification_from_a_chat(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            ("Say your next line", [{"utterance": "(frowns) Please stop.", "end": "yes"}]),
            ("following the PRINCIPLE\\.", [{"normative": True, "norms": [
                {"content": "No smoking indoors.", "type": "prescriptive"}]}]),
        ],
    )  # fmt: skip
    who = caller(model)
    said = await utterance(who, "Carlos Gomez", "Hobbs Cafe", "you saw smoke", [])
    assert said is not None and said.end and said.utterance == "(frowns) Please stop."
    assert "(nothing yet: you speak first)" in who.log.entries[0].data.prompt
    found = await identify_from_chat(who, [("Bob Johnson", "Please stop.")])
    assert [(n.content, n.type) for n in found] == [("No smoking indoors.", "injunctive")]
    assert "INPUT: Bob Johnson: Please stop." in who.log.entries[1].data.prompt


async def test_thoughts_and_identification_from_thoughts(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            ("What do you think", [{"thoughts": [" Smoke everywhere. ", "", "A", "B", "C"]}]),
            ("following the PRINCIPLES\\.", [{"normative": False, "norms": [{"content": "x"}]}]),
        ],
    )
    who = caller(model)
    thoughts = await generate_thoughts(who, "Hobbs Cafe", ["Carlos Gomez is smoking"])
    assert thoughts == ["Smoke everywhere.", "A", "B"]
    assert await identify_from_thoughts(who, thoughts) == []  # "not normative" wins
    assert "INPUT: 1. Smoke everywhere.\n2. A\n3. B" in who.log.entries[1].data.prompt


async def test_merged_evaluation_passes_and_fails_in_the_papers_order(tmp_path: Path) -> None:
    ok = {"consistent": True, "duplicate": False, "is_norm": True, "type_correct": True,
          "conflict": False, "utility": 70}  # fmt: skip
    bad = {**ok, "duplicate": True, "conflict": True, "reason": "held"}
    model = write_script(tmp_path, [("Run the four checks", [ok])])
    passed = await evaluate(caller(model), "Tip.", "descriptive", "chat", NORMS, "merged")
    assert passed.qualified and passed.utility == 70 and all(passed.checks.values())
    model = write_script(tmp_path, [("Run the four checks", [bad])])
    failed = await evaluate(caller(model), "Tip.", "descriptive", "chat", NORMS, "merged")
    assert not failed.qualified and failed.rejection == "failed the duplication check: held"


async def test_faithful_evaluation_stops_at_the_first_failed_check(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            ("\\[Fact Consistency Check\\]", [{"consistent": True}]),
            ("\\[Duplicate Check\\]", [{"duplicate": False}]),
            ("\\[Type Accuracy Check\\]", [{"is_norm": False}]),
            ("TASK: Check for conflicts", [{"conflict": False}]),
        ],
    )
    who = caller(model)
    verdict = await evaluate(who, "Bob smokes.", "injunctive", "a thought", NORMS, "faithful")
    assert not verdict.qualified and verdict.rejection == "failed the type check (not a norm)"
    assert [e.data.operation for e in who.log.entries] == [
        "check_consistency", "check_duplication", "check_type",
    ]  # fmt: skip
    assert '"type": "injunctive", "content": "Bob smokes."' in who.log.entries[2].data.prompt


async def test_faithful_evaluation_rates_utility_after_passing(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [
            ("\\[Fact Consistency Check\\]", [{"consistent": True}]),
            ("\\[Duplicate Check\\]", [{"duplicate": "NO"}]),
            ("\\[Type Accuracy Check\\]", [{"is_norm": True, "type_correct": True}]),
            ("TASK: Check for conflicts", [{"conflict": "no"}]),
            ("How much does following", [{"utility": 64}]),
        ],
    )
    who = caller(model)
    verdict = await evaluate(who, "Tip.", "descriptive", "a chat", NORMS, "faithful")
    assert verdict.qualified and verdict.utility == 64 and len(who.log.entries) == 5


async def test_no_evaluation_asks_only_the_utility(tmp_path: Path) -> None:
    model = write_script(tmp_path, [("How much does following", [{"utility": 12}])])
    who = caller(model)
    verdict = await evaluate(who, "Anything.", "injunctive", "", NORMS, "none")
    assert verdict.qualified and verdict.utility == 12
    assert [e.data.operation for e in who.log.entries] == ["utility"]


async def test_synthesis_groups_abstracts_and_weights(tmp_path: Path) -> None:
    qualified = [norm(1, "No smoking indoors.", 100), norm(2, "Quiet please.", 50),
                 norm(3, "Smoke outside.", 60)]  # fmt: skip
    model = write_script(
        tmp_path,
        [
            ("Categorize QUALIFIED", [{"categories": [
                {"theme": "Smoking", "members": [1, 3, 3, 9]},
                {"theme": "Noise", "members": [2, 1]}]}]),
            ("\\[Synthesis\\]", [{"theme": "Smoking", "abstract": "Keep smoke outdoors.",
                                   "weights": [0.75, 0.25]}]),
            ("Run the four checks", [{"consistent": True, "duplicate": False, "is_norm": True,
                                      "conflict": False, "utility": 5}]),
        ],
    )  # fmt: skip
    who = caller(model)
    database = NormDatabase(norms=qualified)
    result = await synthesize(who, database, "merged", "day 1 09:55", hint="(a hint)")
    assert result.categories == [("Smoking", [1, 3]), ("Noise", [2])]
    (abstract,) = result.abstracts  # the one-member group is not synthesized
    assert abstract.members == [1, 3] and abstract.utility == 90  # 0.75·100 + 0.25·60
    assert abstract.weights_used and abstract.verdict.qualified and abstract.id == 4
    assert [n.id for n in database.qualified()] == [2, 4]  # the abstract in its members' place
    assert "(a hint)" in who.log.entries[0].data.prompt
    assert "[Smoking] 1. No smoking indoors. 3. Smoke outside." in who.log.entries[1].data.prompt
    evaluated = who.log.entries[2].data.prompt
    assert "QUALIFIED PERSONAL NORMS: 1. Quiet please." in evaluated  # own members left out


async def test_plan_fills_missing_hours_from_the_hour_before(tmp_path: Path) -> None:
    model = write_script(
        tmp_path,
        [("plan today align", [{"plan": [{"hour": 9, "activity": "smoke outside"},
                                         {"hour": 11, "activity": "lunch and tip"}]}])],
    )  # fmt: skip
    who = caller(model)
    planned = await plan_day(who, BOB, NORMS, CLOCK, 1)
    assert planned.plan[8] == BOB.daily_requirement and planned.plan[10] == "smoke outside"
    assert planned.plan[11] == "lunch and tip" and planned.filled == [8, 10, 12, 13, 14, 15]
    prompt = who.log.entries[0].data.prompt
    assert "Today is Monday February 13, 2023." in prompt and "1) wake up" in prompt


async def test_actions_fit_the_hour_and_the_places(tmp_path: Path) -> None:
    subtasks = [
        {"action": "smoking on the pavement outside Hobbs Cafe", "minutes": 7, "place": "street"},
        {"action": "drinking coffee", "minutes": 40, "place": "hobbs cafe"},
        {"action": "paying", "minutes": 30, "place": "Hobbs Cafe"},
    ]
    model = write_script(tmp_path, [("in 5 min increments", [{"subtasks": subtasks}])])
    who = caller(model)
    hour = await plan_actions(
        who, BOB, NORMS, "have coffee", CLOCK, 1, 9, SOCIETY.places, "Hobbs Cafe"
    )
    assert [(s.place, s.minutes) for s in hour.subtasks] == [
        ("outside Hobbs Cafe", 10), ("Hobbs Cafe", 40), ("Hobbs Cafe", 10)
    ]  # fmt: skip
    assert any("place 'street'" in note for note in hour.adjusted)
    prompt = who.log.entries[0].data.prompt
    assert "from 9:00 am to 10:00 am" in prompt and "Daily plan requirement:" in prompt


def test_subtasks_shorter_than_the_hour_are_extended() -> None:
    fitted, adjusted = fit_subtasks(
        [("reading", 20, "Hobbs Cafe")], 60, 5, SOCIETY.places, "Hobbs Cafe"
    )
    assert [s.minutes for s in fitted] == [60] and "extended by 40 min" in adjusted[-1]


async def test_a_failed_actions_reply_keeps_the_plans_activity_and_says_so(tmp_path: Path) -> None:
    model = write_script(tmp_path, [("in 5 min increments", ["I cannot."])])
    hour = await plan_actions(
        caller(model), BOB, NORMS, "read", CLOCK, 1, 9, SOCIETY.places, "Hobbs Cafe"
    )
    assert hour.failed and [(s.action, s.minutes) for s in hour.subtasks] == [("read", 60)]
