"""An episode's record: the visible chat, and the full event stream behind it (paper §4.3).

``entries`` is what participants see: messages and reactions, numbered by
``turn_id`` (the id reactions target and labels cite) and grouped by
``round`` (the orchestrator turn; the paper's ``[tN]``). ``log`` is everything
the runtime did, visible or not: no-ops, prompts, what the subject was shown,
orchestration decisions, parse failures, and every model call with its usage
and the prefix it shared with the same caller's previous prompt.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from normlab.scene.taxonomy import SceneTuple

Phase = Literal["opening", "precedent", "elicitor", "episode"]
LogKind = Literal[
    "entry",
    "no-op",
    "prompt",
    "subject_view",
    "orchestration",
    "parse_failure",
    "model_call",
    "termination",
]


class ChatEntry(BaseModel):
    turn_id: int
    round: int
    actor: str
    action: Literal["message", "react"]
    content: str
    target_turn_id: int | None = None
    phase: Phase


class LogEvent(BaseModel):
    kind: LogKind
    round: int
    actor: str
    detail: dict[str, Any] = Field(default_factory=dict)


class ModelCallRecord(BaseModel):
    """One model call: who made it, its size, and how much it shared with that caller's last."""

    role: str
    actor: str
    prompt_chars: int
    shared_prefix_chars: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    attempts: int


class Episode(BaseModel):
    scenario_id: str
    tuple: SceneTuple
    subject: str
    entries: list[ChatEntry] = Field(default_factory=list)
    log: list[LogEvent] = Field(default_factory=list)
    calls: list[ModelCallRecord] = Field(default_factory=list)
    rounds: int = 0
    termination: str = ""

    def subject_entries(self) -> list[ChatEntry]:
        return [entry for entry in self.entries if entry.actor == self.subject]


def render_entry(entry: ChatEntry) -> str:
    if entry.action == "react":
        return (
            f"[{entry.turn_id}] {entry.actor} reacted {entry.content} to [{entry.target_turn_id}]"
        )
    return f"[{entry.turn_id}] {entry.actor}: {entry.content}"


def render_transcript(entries: list[ChatEntry]) -> str:
    """One line per entry, ``[turn_id] actor: text`` or ``[id] actor reacted 😬 to [target]``."""
    return "\n".join(render_entry(entry) for entry in entries) if entries else "(no messages yet)"
