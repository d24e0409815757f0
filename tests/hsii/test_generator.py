"""The data program on the scripted model: news → scene (Prompt-1) → dialogue (Prompt-2) → cases."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii import load_cases, load_dialogues, load_news
from normlab.hsii.prompts import PROMPTS
from normlab.hsii.schemas import ASSISTANT

SCENE = (
    "{'scene': 'A night shift at a river lock after a barge grounding.', "
    "'characters': ['LOCK KEEPER', 'BARGE SKIPPER', 'HARBOUR OFFICER'], "
    "'relationships': 'The LOCK KEEPER runs the lock; the BARGE SKIPPER is stuck; the HARBOUR "
    "OFFICER decides who passes first.'}"
)


def drafted(topic: str, turns: list[tuple[str, str, str]]) -> dict[str, Any]:
    """A Prompt-2 reply: the topic and the turns (speaker, addressee, content), numbered."""
    messages = [
        {"role_from": f, "role_to": t, "content": c, "index": str(i)}
        for i, (f, t, c) in enumerate(turns, 1)
    ]
    return {"topic": topic, "messages": messages}


def dialogue(second_target: str) -> str:
    messages = [
        ("BARGE SKIPPER", ASSISTANT, "How long until the lock opens?"),
        ("LOCK KEEPER", "HARBOUR OFFICER", "The gate sensor is still faulty."),
        (
            ASSISTANT,
            "HARBOUR OFFICER",
            "The keeper reports the gate sensor is faulty; should we hold?",
        ),
        ("HARBOUR OFFICER", ASSISTANT, "Hold all traffic for an hour."),
        (ASSISTANT, second_target, "The harbour officer is holding traffic for one hour."),
    ]
    return json.dumps({**drafted("shipping", messages), "background": "the input line itself"})


def test_generate_lints_repairs_writes_and_cuts(tmp_path: Path) -> None:
    news = tmp_path / "news.jsonl"
    paragraph = load_news()[0].model_copy(update={"id": "news-shipping-001"})
    news.write_text(paragraph.model_dump_json() + "\n")
    script = tmp_path / "generator.json"
    prompt_1 = PROMPTS.load("scene_from_news").splitlines()[0][:40]
    prompt_2 = PROMPTS.load("dialogue_from_scene").splitlines()[0][:40]
    script.write_text(json.dumps({"rules": [
        # The first dialogue has the assistant address only the harbour officer: the linter's
        # finding goes back, and the repaired dialogue also answers the skipper.
        {"match": "(?s)Your reply breaks these requirements.*addresses 1 character",
         "replies": [dialogue("BARGE SKIPPER")]},
        {"match": f"^{prompt_2}", "replies": [dialogue("HARBOUR OFFICER")]},
        {"match": f"^{prompt_1}", "replies": [SCENE]},
    ]}))  # fmt: skip
    out = tmp_path / "dialogues.jsonl"
    result = CliRunner().invoke(
        app,
        ["hsii", "generate", "--model", f"scripted/{script}", "--news", str(news),
         "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "written news-shipping-001" in result.output and "1 of 1 written" in result.output
    (written,) = load_dialogues(out)
    assert written.dialogue_id == "dlg-news-shipping-001" and written.topic == "shipping"
    assert written.background.characters == ["LOCK KEEPER", "BARGE SKIPPER", "HARBOUR OFFICER"]
    assert written.messages[-1].role_to == "BARGE SKIPPER"
    cases = load_cases(tmp_path / "dialogues_cases.jsonl")
    assert [c.golden.role_to for c in cases] == ["HARBOUR OFFICER", "BARGE SKIPPER"]


def test_a_scene_that_stays_invalid_is_reported_not_written(tmp_path: Path) -> None:
    news = tmp_path / "news.jsonl"
    news.write_text(load_news()[0].model_dump_json() + "\n")
    crowded = SCENE.replace(
        "'HARBOUR OFFICER']", "'HARBOUR OFFICER', 'A', 'B', 'C', 'Intelligent Assistant']"
    )
    script = tmp_path / "generator.json"
    script.write_text(json.dumps({"default": crowded}))
    out = tmp_path / "dialogues.jsonl"
    result = CliRunner().invoke(
        app, ["hsii", "generate", "--model", f"scripted/{script}", "--news", str(news),
              "--out", str(out)],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "not written" in result.output and "7 given" in result.output
    assert not out.exists()


def test_a_dialogue_spelling_and_as_an_ampersand_is_kept() -> None:
    """Issue 31: the generator wrote "Health & Safety Inspector" for the scene's HEALTH AND
    SAFETY INSPECTOR; the speaker was no character, lint failed and the dialogue was dropped."""
    from normlab.hsii.bank.generator import DialogueDraft, dialogue_findings
    from normlab.hsii.schemas import Background

    cast = ["HEALTH AND SAFETY INSPECTOR", "SITE MANAGER", "CRANE OPERATOR"]
    background = Background(scene="A building site.", characters=cast, relationships="Work.")
    turns = [
        ("Health & Safety Inspector", ASSISTANT, "Is the crane certified?"),
        ("SITE MANAGER", "Health & Safety Inspector", "It was checked on Monday."),
        (ASSISTANT, "health & safety inspector", "The certificate is dated Monday."),
        ("CRANE OPERATOR", ASSISTANT, "Can I start?"),
        (ASSISTANT, "the crane operator", "Yes, once the inspector signs."),
    ]
    draft = DialogueDraft.model_validate(drafted("safety", turns))
    dialogue, findings = dialogue_findings(draft, background, load_news()[0])
    assert findings == [] and dialogue is not None
    assert [m.role_from for m in dialogue.messages][:3] == [cast[0], cast[1], ASSISTANT]
    assert [m.role_to for m in dialogue.messages][2:] == [cast[0], ASSISTANT, cast[2]]
