"""The norm-learning subject's loop on the scripted model: identify, evaluate, keep, comply."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import get_model

from normlab.agents import (
    NORM_MEMORY_ROLE,
    MemoryLog,
    NormMemory,
    Reading,
    judge_inference,
    memory_trace,
    resolve_agent,
)
from normlab.agents.prompts import compliance_block
from normlab.core.errors import InputError
from normlab.models import ModelClient
from normlab.norms.prompts import PROMPTS as CRSEC_PROMPTS
from tests.agents.conftest import LOSONA_SCRIPT

pytestmark = pytest.mark.anyio

CHAT = (
    "Marcus: what's the flag to skip the cache?\n"
    "Chloe: contributing.md has it under Build Flags\n"
    "Marcus: which node version do we pin?"
)
KEPT = "Questions are answered by pointing to a document."
REJECTED = "Marcus asks about the build."


def memory(script: Path = LOSONA_SCRIPT, mode: str = "merged") -> NormMemory:
    # a fresh model each time: its record of the prompts it saw is this test's alone
    client = ModelClient({NORM_MEMORY_ROLE: get_model(f"scripted/{script}", memoize=False)})
    return NormMemory(client, "Tariq", seed=1, mode=mode)  # type: ignore[arg-type]


async def test_a_norm_from_the_demonstration_is_kept_and_one_is_rejected() -> None:
    agent = memory()
    block = await agent.before_reply(CHAT, turn=3)
    (reading,) = agent.log.readings
    assert [(item.content, item.status) for item in reading.items] == [
        (KEPT, "qualified"),
        (REJECTED, "rejected"),
    ]
    assert reading.items[1].rejection is not None
    assert reading.items[1].rejection.startswith("failed the type check")
    assert reading.qualified == [KEPT] and reading.calls == 3  # identify + two evaluations
    assert [n.content for n in agent.database.qualified()] == [KEPT]
    assert agent.database.norms[1].qualified is False  # refused, kept with its reason
    assert f"QUALIFIED PERSONAL NORMS: 1. {KEPT}" in block and REJECTED not in block
    assert agent.client.records[0].role == NORM_MEMORY_ROLE


async def test_the_identify_prompt_is_crsecs_figure_9_on_the_chat() -> None:
    agent = memory()
    await agent.before_reply(CHAT, turn=3)
    model = agent.client.model(NORM_MEMORY_ROLE)
    prompts = model.api.responder.prompts_seen  # type: ignore[attr-defined]
    identify = prompts[0]
    assert identify.startswith(CRSEC_PROMPTS.load("identify_chat").split("<")[0])
    assert CHAT in identify
    evaluations = [p for p in prompts if p.startswith("You have just come across")]
    assert len(evaluations) == 2
    # the second item is checked against the first, already qualified
    assert f"QUALIFIED PERSONAL NORMS: 1. {KEPT}" in evaluations[1]


async def test_nothing_new_costs_no_call_and_known_words_are_not_evaluated_again() -> None:
    agent = memory()
    await agent.before_reply(CHAT, turn=3)
    await agent.before_reply(CHAT, turn=3)
    await agent.before_reply(CHAT + "\nChloe: the wiki has it", turn=4)
    _, unchanged, later = agent.log.readings
    assert (unchanged.read, unchanged.calls, unchanged.qualified) == (False, 0, [KEPT])
    # the same two items again: the qualified one's words are a duplicate (no call); the
    # refused one is not in the qualified set P, so it is evaluated afresh (CRSEC §2.3.1)
    assert [item.status for item in later.items] == ["duplicate", "rejected"]
    assert later.calls == 2  # identify + the refused item's evaluation
    assert [(n.content, n.qualified) for n in agent.database.norms] == [
        (KEPT, True), (REJECTED, False), (REJECTED, False),
    ]  # fmt: skip


async def test_the_faithful_evaluation_runs_the_four_checks_apart(tmp_path: Path) -> None:
    script = tmp_path / "faithful.json"
    rules = json.loads(LOSONA_SCRIPT.read_text())["rules"]
    reply = json.dumps
    rules = [
        {"match": r"^TASK: \[Fact Consistency Check\]", "replies": [reply({"consistent": True})]},
        {"match": r"^TASK: \[Duplicate Check\]", "replies": [reply({"duplicate": False})]},
        {
            "match": r"(?s)^TASK: \[Type Accuracy Check\].*Marcus",
            "replies": [reply({"is_norm": False, "type_correct": True})],
        },
        {
            "match": r"^TASK: \[Type Accuracy Check\]",
            "replies": [reply({"is_norm": True, "type_correct": True})],
        },
        {"match": r"^TASK: Check for conflicts", "replies": [reply({"conflict": False})]},
        {"match": r"^NORM: ", "replies": [reply({"utility": 70})]},
        *rules,
    ]
    script.write_text(json.dumps({"rules": rules}))
    agent = memory(script, mode="faithful")
    await agent.before_reply(CHAT, turn=3)
    (reading,) = agent.log.readings
    kept, rejected = reading.items
    assert kept.checks == dict.fromkeys(("consistency", "duplication", "type", "conflict"), True)
    assert kept.utility == 70
    assert rejected.status == "rejected" and rejected.checks["type"] is False
    assert rejected.rejection == "failed the type check (not a norm)"
    # identify; four checks and the utility for the kept item; three checks for the other
    assert reading.calls == 1 + 5 + 3
    assert agent.log.evaluation == "faithful"


def test_the_compliance_block_uses_crsecs_own_lines() -> None:
    block = compliance_block([KEPT])
    plan, actions = CRSEC_PROMPTS.load("plan"), CRSEC_PROMPTS.load("actions")
    attention, norms, cue = block.splitlines()
    assert attention in plan and attention.startswith("ATTENTION:")
    assert norms == f"QUALIFIED PERSONAL NORMS: 1. {KEPT}"
    assert cue.split(",")[0] in actions
    assert "QUALIFIED PERSONAL NORMS: NONE" in compliance_block([])


def test_unknown_agent_is_one_line_input_error() -> None:
    assert resolve_agent("norm-memory") == "norm-memory"
    with pytest.raises(InputError) as error:
        resolve_agent("norm-mem")
    assert str(error.value) == "--agent: unknown agent 'norm-mem'; choose from base, norm-memory"


async def test_the_judge_says_whether_and_when_the_hidden_norm_was_held() -> None:
    log = MemoryLog(
        readings=[
            Reading(reply=1, turn=5, qualified=[]),
            Reading(reply=2, turn=7, qualified=[REJECTED]),
            Reading(reply=3, turn=9, qualified=[REJECTED, KEPT]),
        ]
    )
    judge = get_model(f"scripted/{LOSONA_SCRIPT}")
    verdict = await judge_inference(judge, log, "Point people to resources.")
    assert verdict.held and verdict.matching == [KEPT]
    assert (verdict.first_held_reply, verdict.first_held_turn) == (3, 9)
    assert (verdict.judged, verdict.parse_failures, verdict.replies) == (2, 0, 3)
    assert "reply 3 (chat read up to turn 9)" in memory_trace(log)
