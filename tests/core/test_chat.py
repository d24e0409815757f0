"""The one multi-party transcript and its renderer in each paper's line style."""

from __future__ import annotations

import json

from normlab.core.chat import Turn, render_transcript, render_turn


def test_styles() -> None:
    message = Turn(turn_id=3, actor="Priya", content="one line please")
    reaction = Turn(turn_id=4, actor="Kenji", content="👍", kind="reaction", target_turn_id=3)
    assert render_turn(message) == "Priya: one line please"  # LoSoNA, Appendix C
    assert render_turn(message, "numbered") == "[3] Priya: one line please"  # SCENE, B
    assert render_turn(reaction, "numbered") == "[4] Kenji reacted 👍 to [3]"
    addressed = Turn(turn_id=9, actor="F", content="reports?", addressees=["Intelligent Assistant"])
    assert json.loads(render_turn(addressed, "addressed")) == {
        "role_from": "F",
        "role_to": "Intelligent Assistant",
        "content": "reports?",
        "index": "9",
    }


def test_hidden_turns_and_no_ops_are_not_rendered() -> None:
    turns = [
        Turn(turn_id=1, actor="A", content="hi"),
        Turn(turn_id=2, actor="B", kind="no-op"),
        Turn(turn_id=3, actor="C", content="secret", visibility="hidden"),
    ]
    assert render_transcript(turns) == "A: hi"
    assert render_transcript([], "numbered", empty="(no messages yet)") == "(no messages yet)"


def test_reads_the_older_scene_spelling() -> None:
    old = {"turn_id": 2, "round": 1, "actor": "Kenji", "action": "react", "content": "😬",
           "target_turn_id": 1, "phase": "episode"}  # fmt: skip
    turn = Turn.model_validate(old)
    assert (turn.kind, turn.target_turn_id, turn.round) == ("reaction", 1, 1)
    assert Turn.model_validate({**old, "action": "message"}).kind == "message"
