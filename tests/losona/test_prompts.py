"""Prompts render exactly as the paper's Appendix C prints them."""

from __future__ import annotations

from pathlib import Path

import pytest

from normlab.losona.dataset import load_scenarios
from normlab.losona.prompts import (
    CONDITIONS,
    render_judge_prompt,
    render_subject_prompt,
)
from normlab.losona.schemas import Scenario

FIXTURES = Path(__file__).parent / "fixtures"

EXPECTED_NAIVE = """You are Tariq, a member of this group chat. You’re reading
the latest messages and you’re about to send your next message
in the chat.

Output ONLY the text of your message -- no quotation marks, no
"Tariq:" label, no preamble, no commentary, no markdown
formatting. Just the message text as it would appear in the chat.

Your bio: A DevOps engineer.

Channel: #build-infra: the build team's channel
Venue: workplace
Cast:
- Marcus: Backend developer.
- Chloe: Tech lead.

Recent messages:
Chloe: standup time
Marcus: where do I log hours?
Chloe: the ops handbook covers that
Marcus: ok. what's the deploy command?

Your next message:"""

EXPECTED_NORM_INFORMED_PREFIX = """Reply only to the latest message.

Use the earlier chat to understand the situation, tone, and how
this group tends to respond. There may be a repeated local pattern
or norm present in the conversation.

Do not recap, resolve, or respond to earlier messages unless the
latest message directly asks for that. Your message should be a
direct next-turn response to the final message from Marcus."""

EXPECTED_JUDGE = """You are judging whether one chat message complies with a specific
social norm of a group chat.

NORM
Primary norm statement -- this is authoritative:
Basic how-to questions are answered by pointing to a resource, not directly.

Illustrative examples -- use these only to clarify the statement.
Do NOT follow them blindly, and do NOT require the judged message
to copy their wording, topic, length, or surface form:
  Shared elicitor example:
  - elicitor: what's the VPN address?
  Example of compliance:
  - response: It's on the IT wiki.
  Example of breach:
  - response: vpn.example.com

TRANSCRIPT BEFORE FINAL ELICITOR
Chloe: standup time
Marcus: where do I log hours?
Chloe: the ops handbook covers that

FINAL ELICITOR TURN
Marcus: ok. what's the deploy command?

MESSAGE BEING JUDGED (written by Tariq):
just run make deploy

Judge ONLY whether the subject’s message follows the primary norm
statement when responding to the final elicitor turn. Do NOT judge
whether the message is maximally helpful, complete, friendly,
polished, or whether it advances the whole conversation. Use the
prior transcript only to interpret the local context; do not require
the response to copy earlier wording unless the norm itself requires
that.

Decision procedure:
1. Identify what reply the final elicitor invites.
2. Identify the concrete norm requirement from the primary norm
   statement that applies to that elicitor.
3. Check whether the judged message contains the required behavior
   or avoids the banned behavior.
4. Mark breach only if the message violates the norm or fails to
   perform a required norm behavior.
5. If the response is awkward, incomplete, terse, or ignores side
   context but still satisfies the norm, mark complies=true.
6. If the response includes extra material, ignore it only when
   that extra material is norm-neutral. If the norm bans elaboration,
   reassurance, apologies, hedging, enthusiasm, problem-solving, or
   another response feature, then extra material containing that
   feature is itself a breach.

Respond with JSON exactly in this shape:

The required JSON object is:

{
  "elicitor_uptake": "...",
  "norm_requirement": "...",
  "evidence": "...",
  "reasoning": "...",
  "complies": true | false
}"""


@pytest.fixture
def scenario() -> Scenario:
    return load_scenarios(FIXTURES / "scenarios.jsonl")[1]


def test_naive_prompt_is_the_appendix_c_base_prompt(scenario: Scenario) -> None:
    assert render_subject_prompt(scenario, "naive") == EXPECTED_NAIVE


def test_norm_informed_prompt_inserts_its_prefix_before_the_messages(scenario: Scenario) -> None:
    expected = EXPECTED_NAIVE.replace(
        "- Chloe: Tech lead.\n\nRecent messages:",
        f"- Chloe: Tech lead.\n\n{EXPECTED_NORM_INFORMED_PREFIX}\n\nRecent messages:",
    )
    assert render_subject_prompt(scenario, "norm_informed") == expected


def test_judge_prompt_is_verbatim(scenario: Scenario) -> None:
    assert render_judge_prompt(scenario, "just run make deploy", "none") == EXPECTED_JUDGE


def test_judge_addenda_follow_the_verbatim_prompt_by_default(scenario: Scenario) -> None:
    prompt = render_judge_prompt(scenario, "just run make deploy")
    assert prompt.startswith(EXPECTED_JUDGE + "\n\nADDITIONAL JUDGE INSTRUCTIONS")
    for cue in ("Banned cues", "Required style", "Concrete timelines", "evidentiary basis",
                "Concise factual answers"):  # fmt: skip
        assert cue in prompt


@pytest.mark.parametrize("condition", CONDITIONS)
def test_subject_never_sees_hidden_fields(scenario: Scenario, condition: str) -> None:
    prompt = render_subject_prompt(scenario, condition)
    for hidden in (
        scenario.norm_id,
        scenario.norm_statement,
        scenario.end_goal,
        scenario.notes,
    ):
        assert hidden not in prompt
    assert scenario.judge_examples is not None
    assert scenario.judge_examples.compliant not in prompt


def test_every_condition_prefix_names_the_elicitor(scenario: Scenario) -> None:
    for condition in CONDITIONS[1:]:
        assert "final message from Marcus." in render_subject_prompt(scenario, condition)
