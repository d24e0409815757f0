"""A person answers HSII cases at the terminal, as ``human/<name>`` (Table 1's human row).

The person sees what a model sees, laid out for reading: the scene, the
characters and their relationships, and the history with who speaks to whom;
then picks whom to address (by number or name) and writes the statement. The
answer is handed to the task as the dict Testing Prompt-1 asks for, so it is
parsed, matched, judged and continued (the long run) exactly like a model's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

import anyio
from inspect_ai.model import ChatMessage

from normlab.hsii.schemas import ASSISTANT, Background, Message
from normlab.models.human import Answerer

Ask = Callable[[str], str]


def case_settings(messages: list[ChatMessage]) -> tuple[Background, list[Message]]:
    """The case line at the end of Testing Prompt-1 (``ValueError`` if there is none)."""
    last = messages[-1].text.rstrip().splitlines()[-1]
    data = json.loads(last)
    return Background.model_validate(data["background"]), [
        Message.model_validate(m) for m in data["messages"]
    ]


def characters(messages: list[ChatMessage]) -> list[str] | None:
    """The characters a person may address in the web app's seat when the prompt is Testing
    Prompt-1, else ``None`` (a plain text answer: Prompt-2's statement)."""
    try:
        background, _ = case_settings(messages)
    except (ValueError, KeyError, IndexError):
        return None
    return list(background.characters)


def form_reply(form: Mapping[str, str]) -> str:
    """The web form as the subject's reply: Testing Prompt-1's dict where a character was
    picked, the statement alone otherwise."""
    content, target = form.get("content", ""), form.get("target", "")
    return reply(target, content) if target else content


def screen(background: Background, history: list[Message]) -> str:
    lines = [
        "",
        "=" * 72,
        f"SCENE: {background.scene}",
        f"RELATIONSHIPS: {background.relationships}",
        "",
        "CONVERSATION:",
        *(f"  [{i}] {m.role_from} -> {m.role_to}: {m.content}" for i, m in enumerate(history, 1)),
        "",
        f"You are the {ASSISTANT}. Whom do you talk to next?",
        *(f"  {i}. {name}" for i, name in enumerate(background.characters, 1)),
    ]
    return "\n".join(lines)


def answer(messages: list[ChatMessage], show: Callable[[str], None], ask: Ask) -> str:
    background, history = case_settings(messages)
    show(screen(background, history))
    choice = ask("Address (number or name)").strip()
    target = choice
    if choice.isdigit() and 1 <= int(choice) <= len(background.characters):
        target = background.characters[int(choice) - 1]
    return reply(target, ask("Your statement").strip())


def reply(target: str, content: str) -> str:
    """The person's pick as the dict Testing Prompt-1 asks for."""
    return json.dumps({"role_from": ASSISTANT, "role_to": target, "content": content})


def terminal_answerer() -> Answerer:
    """Ask at the terminal (blocking reads run in a worker thread, off the event loop)."""

    def ask(question: str) -> str:
        # Plain input(), not the command line's prompt helpers: the web app imports this
        # module too, and the answer must not be empty, so ask again until it is not.
        while not (text := input(f"{question}: ").strip()):
            pass
        return text

    def show(text: str) -> None:
        print(text, flush=True)

    async def respond(messages: list[ChatMessage]) -> str:
        return await anyio.to_thread.run_sync(answer, messages, show, ask)

    return respond
