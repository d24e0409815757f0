"""A deterministic scripted model for tests and offline dry runs.

Registered for Inspect as the ``scripted`` provider: ``scripted/PATH`` (or
``scripted/NAME -M script=PATH``) answers every call from a JSON script file:

    {"rules": [{"match": "<regex>", "replies": ["first", "second", ...]}, ...],
     "default": "reply when no rule matches"}

A rule with ``"template": true`` fills its reply from the match's groups (``\\g<name>``).

The first rule whose regex is found in the conversation (all message texts
joined by blank lines) answers. When a rule has several replies, which one
answers never depends on what else the process ran, so a resumed run (a new
process) reproduces an uninterrupted one:

* inside an Inspect sample, epoch e's n-th call with the same prompt gets reply
  e - 1 + n (cycling), counted within that attempt at the sample: the K epochs
  of a sample get a fixed multiset of replies in whatever order they run;
* a call that carries a seed (``GenerateConfig.seed``, as every CRSEC call does)
  gets the reply the seed picks;
* any other call (outside a sample, with no seed) counts per prompt in the process.

Token usage is always set (whitespace-separated words), because Inspect's own
mock model would try to fetch a tokenizer, which fails offline. A reply longer than the call's
``max_tokens`` words is cut there with stop reason ``max_tokens``, as a real
model's would be, so truncation handling runs in tests.
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, StopReason, modelapi
from pydantic import BaseModel, ConfigDict, Field, field_validator

from normlab.core.errors import InputError
from normlab.core.jsonio import read_json, validate_row
from normlab.models.provider import TextReplyModelAPI
from normlab.models.sample_context import sample_attempt


class ScriptRule(BaseModel):
    """Answer with ``replies`` (in turn) when ``match`` is found in the prompt."""

    model_config = ConfigDict(extra="forbid")

    match: str
    replies: list[str] = Field(min_length=1)
    delay: float | None = Field(default=None, ge=0.0)
    """Seconds this rule's replies take (default: the script's ``delay``)."""
    template: bool = False
    """The reply names the match's groups (``\\g<name>``): a dry-run script answers a bank
    of prompts it was not written for, naming a participant each prompt holds."""

    @field_validator("match")
    @classmethod
    def _compiles(cls, value: str) -> str:
        try:
            re.compile(value)
        except re.error as error:
            raise ValueError(f"invalid regex: {error}") from error
        return value


class Script(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rules: list[ScriptRule] = Field(default_factory=list)
    default: str | None = None
    delay: float = Field(default=0.0, ge=0.0)
    """Seconds each reply takes (for tests that interrupt a run part-way)."""


def load_script(path: Path) -> Script:
    return validate_row(Script, read_json(path), path)


class ScriptedResponder:
    """The pure part of the scripted model: prompt text in, reply text out."""

    def __init__(self, script: Script, source: str) -> None:
        self.script = script
        self.source = source
        self._patterns = [re.compile(rule.match) for rule in script.rules]
        self._seen: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()

    @property
    def prompts_seen(self) -> list[str]:
        """Every distinct prompt answered so far (for tests that check what a model was shown)."""
        with self._lock:
            return list(dict.fromkeys(prompt for _, prompt in self._seen))

    def reply(self, prompt: str) -> str:
        return self.answer(prompt)[0]

    def answer(
        self, prompt: str, seed: int | None = None, scope: tuple[str, int] | None = None
    ) -> tuple[str, float]:
        """The reply to ``prompt`` and how many seconds it takes: picked by ``seed`` if given,
        else by the call's rank among same-prompt calls in ``scope`` (an attempt at a sample
        and its epoch) offset by the epoch, else by its rank in the process."""
        attempt, epoch = scope or ("", 1)
        with self._lock:
            rank = self._seen[(attempt, prompt)]
            self._seen[(attempt, prompt)] += 1
        occurrence = seed if seed is not None else epoch - 1 + rank
        for rule, pattern in zip(self.script.rules, self._patterns, strict=True):
            found = pattern.search(prompt)
            if found:
                delay = self.script.delay if rule.delay is None else rule.delay
                reply = rule.replies[occurrence % len(rule.replies)]
                return (found.expand(reply) if rule.template else reply), delay
        if self.script.default is not None:
            return self.script.default, self.script.delay
        raise InputError(self.source, f"no rule matches the prompt: {prompt[:120]!r}…")


@modelapi(name="scripted")
class ScriptedModel(TextReplyModelAPI):
    """Inspect provider answering from a script file; see the module docstring."""

    def setup(self, config: GenerateConfig, script: str | None = None, **model_args: Any) -> None:
        path = Path(script or self.model_name)
        if not path.is_file():
            raise InputError(path, "scripted model: script file not found")
        self.responder = ScriptedResponder(load_script(path), str(path))

    def max_connections(self) -> int:
        return 16

    async def answer(
        self, input: list[ChatMessage], prompt: str, config: GenerateConfig
    ) -> tuple[str, StopReason]:
        reply, delay = self.responder.answer(prompt, config.seed, sample_attempt())
        if delay:
            await anyio.sleep(delay)
        words = reply.split(" ")
        if config.max_tokens is not None and len(words) > config.max_tokens:
            return " ".join(words[: config.max_tokens]), "max_tokens"
        return reply, "stop"
