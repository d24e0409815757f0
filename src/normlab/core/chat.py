"""Group-chat participants, turns and the one transcript rendering every benchmark uses."""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field


class Participant(BaseModel):
    """A member of a group chat: a name the others use and a short bio."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    bio: str = ""


class Turn(BaseModel):
    """One message in a transcript, numbered in chat order."""

    model_config = ConfigDict(extra="ignore")

    turn_id: int
    actor: str = Field(min_length=1)
    content: str
    is_elicitor: bool = False


def render_turn(turn: Turn) -> str:
    """``Actor: content``, the line shape the papers' prompts use for chat messages."""
    return f"{turn.actor}: {turn.content}"


def render_transcript(turns: Iterable[Turn]) -> str:
    """Render turns one per line, in the order given."""
    return "\n".join(render_turn(turn) for turn in turns)
