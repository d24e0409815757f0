"""The one multi-party transcript every normlab system uses, and its renderer.

A turn is one thing a participant did in a group conversation: a message, a
reaction to an earlier turn (SCENE's emoji) or a no-op (SCENE's silence, which
participants never see but metrics count). Each system uses the fields it
needs:

- LoSoNA: ``turn_id, actor, content`` and ``is_elicitor``;
- SCENE: ``round`` (the orchestrator turn), ``kind``, ``target_turn_id`` for
  reactions, ``phase`` (opening, precedent, elicitor, episode);
- HSII: ``addressees`` (every HSII message has a ``role_to``);
- CRSEC: conversations between agents, with ``round``.

One renderer draws a transcript in each paper's line style, so a prompt that
prints a chat is a function of the turns and a style name, never a local
formatting loop.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, field_validator, model_validator

TurnKind = Literal["message", "reaction", "no-op"]
Visibility = Literal["public", "hidden"]
RenderStyle = Literal["plain", "numbered", "addressed"]


INVISIBLE_CATEGORIES = ("Cc", "Cf", "Zl", "Zp")
"""Control and format characters (U+200B zero-width space, U+202E bidi override …)."""


def check_name(name: str) -> str:
    """A ``ValueError`` for a name with invisible characters or spaces at its ends: "Marcus\u200b"
    beside "Marcus" prints alike but is another participant to every lookup."""
    hidden = [c for c in name if unicodedata.category(c) in INVISIBLE_CATEGORIES]
    if hidden:
        raise ValueError(f"name {name!r} holds an invisible character (U+{ord(hidden[0]):04X})")
    if name != name.strip():
        raise ValueError(f"name {name!r} has spaces at its start or end")
    return name


def check_turn_id(value: Any) -> Any:
    """``true`` is no turn id (JSON booleans would pass as 1 and 0)."""
    if isinstance(value, bool):
        raise ValueError("a turn id is a whole number, not true or false")
    return value


class Participant(BaseModel):
    """A member of a group chat: a name the others use and a short bio."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    """The name the others use: no invisible characters or spaces at its ends."""
    bio: str = ""
    """What the others (and the subject) are told about the member."""

    _visible = field_validator("name")(check_name)


class Turn(BaseModel):
    """One turn of a multi-party conversation, numbered in chat order."""

    model_config = ConfigDict(extra="ignore")

    turn_id: int
    """Unique within the transcript: labels, reactions and demonstrations point at it."""
    actor: str = Field(min_length=1)
    """Who took the turn."""
    content: str = ""
    """The message, or the emoji of a reaction; empty for a no-op."""
    kind: TurnKind = "message"
    """``message``, ``reaction`` or ``no-op``."""
    target_turn_id: int | None = None
    """For a reaction: the turn reacted to."""
    addressees: list[str] = Field(default_factory=list)
    """Whom the turn is said to (HSII's ``role_to``); empty when the chat is addressed to all."""
    round: int | None = None
    """The round the turn belongs to (SCENE's orchestrator rounds, CRSEC's conversations)."""
    phase: str | None = None
    """Where in a SCENE episode the turn falls: the scaffold's opening, the precedent
    sub-script, the elicitor or the episode."""
    visibility: Visibility = "public"
    """``hidden``: kept for the record but shown to no participant."""
    is_elicitor: StrictBool = False
    """Strict: in a scenario file ``1`` or ``"yes"`` is a malformed field, not a flag."""

    _visible = field_validator("actor")(check_name)
    _whole = field_validator("turn_id", "target_turn_id", mode="before")(check_turn_id)

    @model_validator(mode="before")
    @classmethod
    def _read_older_spellings(cls, data: Any) -> Any:
        """SCENE logs before the shared transcript spelled ``kind`` as ``action: react``."""
        if isinstance(data, dict) and "action" in data and "kind" not in data:
            data = dict(data)
            action = data.pop("action")
            data["kind"] = "reaction" if action == "react" else action
        return data

    @property
    def visible(self) -> bool:
        return self.visibility == "public" and self.kind != "no-op"


def check_turn_ids(turn_ids: Iterable[int]) -> None:
    """A ``ValueError`` (a schema error naming the field) when a transcript numbers two turns
    alike: labels, reactions and demonstrations point at turns by id."""
    seen: set[int] = set()
    for turn_id in turn_ids:
        if turn_id in seen:
            raise ValueError(f"duplicate turn_id {turn_id} in transcript")
        seen.add(turn_id)


def render_turn(turn: Turn, style: RenderStyle = "plain") -> str:
    """One turn in a paper's line style.

    - ``plain`` (LoSoNA, Appendix C): ``Actor: content``;
    - ``numbered`` (SCENE, Appendix B): ``[id] Actor: content`` and
      ``[id] Actor reacted 👍 to [target]``;
    - ``addressed`` (HSII, Tables 3–5): one dict per message with ``role_from``,
      ``role_to``, ``content`` and ``index``.
    """
    if style == "addressed":
        return json.dumps(
            {
                "role_from": turn.actor,
                "role_to": ", ".join(turn.addressees),
                "content": turn.content,
                "index": str(turn.turn_id),
            },
            ensure_ascii=False,
        )
    if turn.kind == "reaction":
        return f"[{turn.turn_id}] {turn.actor} reacted {turn.content} to [{turn.target_turn_id}]"
    if style == "numbered":
        return f"[{turn.turn_id}] {turn.actor}: {turn.content}"
    return f"{turn.actor}: {turn.content}"


def render_transcript(turns: Iterable[Turn], style: RenderStyle = "plain", empty: str = "") -> str:
    """The turns participants can see, one per line in ``style``; ``empty`` when there are none."""
    lines = [render_turn(turn, style) for turn in turns if turn.visible]
    return "\n".join(lines) if lines else empty
