"""What a person's form becomes in the play seat: each system says it in its parts
(``Play.characters``, ``Play.answer``, ``Play.moves``), so the web app's routes and page name no
system (a fifth one with a form of its own touches its own package)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser

from normlab.hsii.schemas import ASSISTANT
from normlab.runs import Play, PlayLength
from normlab.specs import parts, spec

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "src" / "normlab" / "web"


def play_of(system: str) -> Play:
    play = parts(spec(system)).play
    assert play is not None
    return play


def test_losona_takes_the_message_as_written() -> None:
    play = play_of("losona")
    assert play.characters is None and not play.moves
    assert play.reply({"content": "ok, noted", "csrf": "x"}) == "ok, noted"


def test_hsii_adds_the_picked_character_as_testing_prompt_1_asks() -> None:
    play = play_of("hsii")
    assert not play.moves
    reply = json.loads(play.reply({"content": "Line 3 stays off.", "target": "Tom O'Brien"}))
    assert reply == {
        "role_from": ASSISTANT,
        "role_to": "Tom O'Brien",
        "content": "Line 3 stays off.",
    }
    assert (
        play.reply({"content": "A statement alone (Prompt-2)."}) == "A statement alone (Prompt-2)."
    )
    case = {
        "background": {
            "scene": "a plant",
            "relationships": "colleagues",
            "characters": ["Tom O'Brien", "Priya"],
        },
        "messages": [],
    }
    prompt = ChatMessageUser(content=f"Testing Prompt-1 …\n{json.dumps(case)}")
    assert play.characters is not None
    assert play.characters([prompt]) == ["Tom O'Brien", "Priya"]
    assert play.characters([ChatMessageUser(content="Prompt-2: say it")]) is None


def test_scene_offers_moves_and_refuses_a_form_that_is_none() -> None:
    play = play_of("scene")
    assert play.moves and play.characters is None
    move = json.loads(play.reply({"action": "react", "content": "👍", "turn": "4"}))
    assert (move["action"], move["target_turn_id"]) == ("react", 4)
    silent = json.loads(play.reply({"action": "no-op", "content": ""}))
    assert silent["action"] == "no-op"
    with pytest.raises(ValueError, match="choose a message, a reaction or silence"):
        play.reply({"action": "dance", "content": "x"})


def test_the_play_routes_and_page_name_no_system() -> None:
    """They branched on "hsii" and "scene" (the HSII pick, SCENE's moves and their errors)."""
    tree = ast.parse((WEB / "play_routes.py").read_text(encoding="utf-8"))
    named = {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in {"hsii", "scene", "crsec"}
    }
    assert named == set()
    page = (WEB / "templates" / "play_seat.html").read_text(encoding="utf-8")
    assert '"scene"' not in page and '"hsii"' not in page


def test_a_play_with_a_length_says_what_it_counts() -> None:
    """``normlab serve --help`` says what ``--play-length`` sets per system from the words of
    its ``PlayLength``: a length is its default and those words, one value, never a bare
    number."""
    assert play_of("losona").length is None
    assert play_of("scene").length == PlayLength(8, "rounds per episode")
    assert play_of("hsii").length == PlayLength(7, "turns of the long run ε")
