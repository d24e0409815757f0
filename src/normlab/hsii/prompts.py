"""HSII's prompts: the paper's four verbatim (Figures 6–8 and the Figure 4 COT) and ours.

Verbatim, in ``prompts/`` with no placeholders, the input appended after their
last line as the paper does ("Following is the new text:" …):
``scene_from_news`` (Prompt-1, Fig. 6), ``dialogue_from_scene`` (Prompt-2, Fig. 7),
``testing`` (Testing Prompt-1, Fig. 8). Ours, marked in ``prompts/README.md``:
``judge`` (the paper's "grading" figure repeats the testing prompt), ``persona``
(who plays the target in the long run is never stated), ``reflection`` (the COT
rounds' blind reflection). The COT set is ``data/cots.json``.

A case is shown as one line ``{"topic", "messages", "background"}``: the keys of
the example dict in Testing Prompt-1, in its order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib.resources import files

from pydantic import BaseModel

from normlab.core.chat import Turn, render_transcript
from normlab.core.templates import DOUBLE_BRACES, PromptSet
from normlab.hsii.schemas import ASSISTANT, Background, Case, Message, NewsParagraph, Statement

PROMPTS = PromptSet("normlab.hsii", DOUBLE_BRACES)


def case_line(topic: str, messages: Sequence[Message], background: Background) -> str:
    """The conversation settings as one JSON line, in Testing Prompt-1's key order."""
    return json.dumps(
        {
            "topic": topic,
            "messages": [message.model_dump() for message in messages],
            "background": background.model_dump(),
        },
        ensure_ascii=False,
    )


def testing_prompt(
    case: Case, messages: Sequence[Message] | None = None, instruction: str | None = None
) -> str:
    """Testing Prompt-1 verbatim (or a prompt variant's ``instruction``,
    ``normlab.hsii.variants``), then the case (or the case's history extended)."""
    history = case.messages if messages is None else messages
    head = PROMPTS.load("testing") if instruction is None else instruction
    return f"{head}\n{case_line(case.topic, history, case.background)}"


def scene_prompt(news: NewsParagraph) -> str:
    """Prompt-1 verbatim, then the news paragraph."""
    return f"{PROMPTS.load('scene_from_news')}\n{news.title}\n{news.text}"


def dialogue_prompt(background: Background) -> str:
    """Prompt-2 verbatim, then the scene dict (the "setting case")."""
    scene = json.dumps(background.model_dump(), ensure_ascii=False)
    return f"{PROMPTS.load('dialogue_from_scene')}\n{scene}"


def statement_dict(statement: Statement | None, raw: str) -> str:
    """A statement as the judge sees it: the parsed dict, or the raw reply if it never parsed."""
    if statement is None:
        return raw
    return json.dumps(
        {
            "role_from": ASSISTANT,
            "role_to": ", ".join(statement.targets),
            "content": statement.content,
        },
        ensure_ascii=False,
    )


def statement_line(statement: Statement | None, raw: str = "") -> str:
    """A statement as a person reads it, ``→ TARGET: content``; the raw reply if it never parsed."""
    if statement is None:
        return raw
    return f"→ {', '.join(statement.targets)}: {statement.content}"


def history_text(messages: Sequence[Message]) -> str:
    """The history as numbered lines that say who speaks to whom (``[1] A → B: …``), for people
    reading a case (reports, human grading); models get ``case_line``."""
    turns = [
        Turn(turn_id=index, actor=f"{m.role_from} → {m.role_to}", content=m.content)
        for index, m in enumerate(messages, start=1)
    ]
    return render_transcript(turns, "numbered", empty="(no history)")


def judge_prompt(case: Case, messages: Sequence[Message], a: str, b: str) -> str:
    return PROMPTS.render(
        "judge",
        {
            "case": case_line(case.topic, messages, case.background),
            "statement_a": a,
            "statement_b": b,
        },
    )


def persona_prompt(case: Case, character: str, messages: Sequence[Message]) -> str:
    history = "\n".join(f"{m.role_from} -> {m.role_to}: {m.content}" for m in messages)
    return PROMPTS.render(
        "persona",
        {
            "character": character,
            "scene": case.background.scene,
            "characters": ", ".join(case.characters),
            "relationships": case.background.relationships,
            "history": history,
        },
    )


class Cot(BaseModel):
    id: str
    source: str
    steps: list[str]


@cache
def load_cots() -> list[Cot]:
    raw = json.loads((files("normlab.hsii") / "data" / "cots.json").read_text(encoding="utf-8"))
    return [Cot.model_validate(item) for item in raw]
