"""HSII's data program (§5.1, Figures 6–7): news paragraph → scene → dialogue → cases.

Two calls per paragraph, each with the paper's prompt verbatim and the input
appended as the paper does: Prompt-1 turns the news into a scene {scene,
characters, relationships}; Prompt-2 turns the scene into a multi-character
dialogue {topic, messages, background}. Each reply is parsed leniently (the
prompts' own format is a single-quoted dict), normalised (speaker names matched to
the scene's characters, the assistant's name spelt as the paper spells it,
indexes renumbered) and checked by the linter (``normlab.hsii.lint``); findings
go back to the model for repair, and a candidate that stays invalid is reported,
never written. Dialogues are then cut into cases ([`cut_dialogue`][normlab.hsii.cut_dialogue]).
"""

from __future__ import annotations

from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model
from pydantic import BaseModel, Field, field_validator

from normlab.hsii.aliases import fill_aliases, reply_spellings
from normlab.hsii.dataset import cut_dialogue
from normlab.hsii.lint import MAX_CHARACTERS, MIN_CHARACTERS, check_dialogue
from normlab.hsii.names import normalise_name
from normlab.hsii.parse import resolve_target
from normlab.hsii.prompts import dialogue_prompt, scene_prompt
from normlab.hsii.schemas import ASSISTANT, Background, Dialogue, Message, NewsParagraph
from normlab.models import Generated, generate_checked

GENERATOR_CONFIG = GenerateConfig(temperature=0.8, max_tokens=3000)


class SceneDraft(BaseModel):
    """Prompt-1's reply; characters may come as a list or a comma-separated string."""

    scene: str
    characters: list[str]
    relationships: str

    @field_validator("characters", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part.strip() for part in value.replace(";", ",").split(",") if part.strip()]
        return value

    @field_validator("relationships", mode="before")
    @classmethod
    def _flatten(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return " ".join(f"{key}: {text}" for key, text in value.items())
        if isinstance(value, list):
            return " ".join(str(item) for item in value)
        return value


class DialogueDraft(BaseModel):
    """Prompt-2's reply: topic and messages are taken (the background is the scene), and
    aliases when the model gives them (Prompt-2 does not ask for them)."""

    topic: str
    messages: list[Message] = Field(min_length=1)
    aliases: dict[str, list[str]] = Field(default_factory=dict)

    @field_validator("aliases", mode="before")
    @classmethod
    def _only_lists(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return {}
        return {
            str(name): [str(alias) for alias in (listed if isinstance(listed, list) else [listed])]
            for name, listed in value.items()
        }


def scene_findings(draft: SceneDraft) -> tuple[Background | None, list[str]]:
    background = Background(
        scene=draft.scene, characters=draft.characters, relationships=draft.relationships
    )
    findings = []
    if not MIN_CHARACTERS <= len(draft.characters) <= MAX_CHARACTERS:
        findings.append(
            f"characters: {len(draft.characters)} given; a scene has "
            f"{MIN_CHARACTERS}–{MAX_CHARACTERS} characters (requirement 3)"
        )
    if any("assistant" in normalise_name(name) for name in draft.characters):
        findings.append("characters: do not list the intelligent assistant among the characters")
    return (None if findings else background), findings


def _speaker(name: str, background: Background) -> str:
    """A speaker or addressee spelt as the scene spells it (the assistant as the paper does)."""
    if "assistant" in normalise_name(name):
        return ASSISTANT
    return resolve_target(name, background.characters) or name


def to_dialogue(draft: DialogueDraft, background: Background, news: NewsParagraph) -> Dialogue:
    """The reply as a dialogue: speakers spelt as the cast, turns renumbered, aliases filled
    (``normlab.hsii.aliases``: the reply's own spellings and aliases, then the cast's)."""
    spoken = [
        (written, _speaker(written, background))
        for message in draft.messages
        for written in (message.role_from, message.role_to)
    ]
    given = reply_spellings(spoken, background.characters)
    for name, listed in draft.aliases.items():
        character = resolve_target(name, background.characters)
        if character is not None:
            given.setdefault(character, []).extend(listed)
    messages = [
        Message(
            role_from=_speaker(message.role_from, background),
            role_to=_speaker(message.role_to, background),
            content=message.content,
            index=str(position),
        )
        for position, message in enumerate(draft.messages, start=1)
    ]
    return Dialogue(
        dialogue_id=f"dlg-{news.id}",
        source_id=news.id,
        domain=news.domain,
        topic=draft.topic.split()[0] if draft.topic.split() else news.domain,
        background=background,
        aliases=fill_aliases(background.characters, given),
        messages=messages,
    )


def dialogue_findings(
    draft: DialogueDraft, background: Background, news: NewsParagraph
) -> tuple[Dialogue | None, list[str]]:
    dialogue = to_dialogue(draft, background, news)
    findings = [f"{field}: {message}" for field, message in check_dialogue(dialogue, news.text)]
    if not findings and not cut_dialogue(dialogue):
        findings.append(
            "messages: the assistant must answer one character after at least two messages"
        )
    return (None if findings else dialogue), findings


async def generate_dialogue(
    model: Model, news: NewsParagraph, repairs: int = 1
) -> Generated[Dialogue]:
    """Prompt-1 then Prompt-2 for one paragraph; each stage linted and repaired."""
    scene_messages: list[ChatMessage] = [ChatMessageUser(content=scene_prompt(news))]
    scene = await generate_checked(
        model, scene_messages, SceneDraft, scene_findings, GENERATOR_CONFIG, repairs
    )
    if scene.value is None:
        return Generated(news.id, None, [f"scene: {p}" for p in scene.problems], scene.calls)
    background = scene.value

    def check(draft: DialogueDraft) -> tuple[Dialogue | None, list[str]]:
        return dialogue_findings(draft, background, news)

    dialogue_messages: list[ChatMessage] = [ChatMessageUser(content=dialogue_prompt(background))]
    dialogue = await generate_checked(
        model, dialogue_messages, DialogueDraft, check, GENERATOR_CONFIG, repairs
    )
    return Generated(
        news.id,
        dialogue.value,
        [f"dialogue: {p}" for p in dialogue.problems] if dialogue.value is None else [],
        scene.calls + dialogue.calls,
    )
