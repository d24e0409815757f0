"""How every CRSEC operation calls a model: tagged, seeded, recorded, budgeted.

Each call goes through the shared [`ModelClient`][normlab.models.ModelClient] (role
``agent`` for the society, ``judge`` for the metrics) with the acting agent as its
actor, so usage, parse failures, truncations and prefix reuse are counted the
same way as in the benchmarks. Every call carries a seed derived from the run's
seed, the tick, the agent and the operation: providers that honour seeds, and
the scripted model, then answer the same way in a resumed run as in an
uninterrupted one. Each call's prompt, reply and usage become a ``call`` event (its
``CallData``, built here),
appended in the fixed order the simulation applies results, never in the order
the concurrent calls happened to finish.

A call's ``retries`` are its client record's ([`CallRecord`][normlab.models.CallRecord]):
every request that failed and was made again.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from pydantic import BaseModel

from normlab.core.fields import taken_from
from normlab.models import CallRecord, ModelClient, StructuredResult
from normlab.norms.records import CallData

SchemaT = TypeVar("SchemaT", bound=BaseModel)
T = TypeVar("T")
R = TypeVar("R")

AGENT_ROLE = "agent"
AGENT_MAX_TOKENS = 300


def call_seed(*parts: object) -> int:
    """A stable 31-bit seed from the call's identity."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class LoggedCall:
    """One call and the agent who made it (a conversation's log holds both speakers')."""

    agent: str
    data: CallData


@dataclass
class CallLog:
    """The calls one agent (or one conversation) made in one phase of a tick, in order."""

    entries: list[LoggedCall] = field(default_factory=list)

    def add(
        self,
        agent: str,
        phase: str,
        operation: str,
        messages: Sequence[ChatMessage],
        result: StructuredResult[Any],
        record: CallRecord,
    ) -> None:
        """Everything about the call but its timing, so a resumed run logs it identically (given
        a model that answers by seed and no faults to retry)."""
        data = taken_from(
            CallData,
            record,
            phase=phase,
            operation=operation,
            system=messages[0].text if len(messages) > 1 else "",
            prompt=messages[-1].text,
            replies=result.replies,
            parsed=result.value.model_dump() if isinstance(result.value, BaseModel) else None,
        )
        self.entries.append(LoggedCall(agent, data))


@dataclass
class Caller:
    """One agent's access to the models during one phase of one tick."""

    client: ModelClient
    agent: str
    seed: int
    tick: int
    phase: str
    """The tick's phase (``detect``, ``talk``, ``reflect``…); ``reflect/1`` for the second of
    calls made at once ([`each`][normlab.norms.Caller.each]). Each call event names it."""
    log: CallLog = field(default_factory=CallLog)
    counter: int = 0
    role: str = AGENT_ROLE
    max_tokens: int = AGENT_MAX_TOKENS
    temperature: float | None = None
    cap: int | None = None
    """One output cap for every call (``--max-tokens``: reasoning models think inside it)."""
    prefix: str = ""
    """The agent's stable system message (description, then qualified norms): the prompt prefix
    a provider's or llama.cpp's cache reuses from one of this agent's calls to the next."""

    def branch(self, index: int) -> Caller:
        """A branch of this caller for the ``index``-th of calls made at once: its own seeds
        (``phase/index``) and its own log, which [`merge`][normlab.norms.Caller.merge] appends to
        this one's."""
        return dataclasses.replace(self, log=CallLog(), counter=0, phase=f"{self.phase}/{index}")

    def merge(self, branches: Sequence[Caller]) -> None:
        """The branches' calls, appended in the branches' order (never in the order they
        finished), so the event log is the same however the calls raced."""
        for branch in branches:
            self.log.entries.extend(branch.log.entries)

    async def each(self, items: Sequence[T], unit: Callable[[Caller, T], Awaitable[R]]) -> list[R]:
        """``unit`` for every item at once, each on a [`branch`][normlab.norms.Caller.branch] of
        this caller, merged in the items' order."""
        branches = [self.branch(index) for index in range(len(items))]
        results = await asyncio.gather(
            *(unit(branch, item) for branch, item in zip(branches, items, strict=True))
        )
        self.merge(branches)
        return list(results)

    async def ask(
        self, operation: str, prompt: str, schema: type[SchemaT], max_tokens: int | None = None
    ) -> SchemaT | None:
        """One structured call; ``None`` (recorded) when the reply never parsed."""
        self.counter += 1
        messages: list[ChatMessage] = [ChatMessageUser(content=prompt)]
        if self.prefix:
            messages.insert(0, ChatMessageSystem(content=self.prefix))
        config = GenerateConfig(
            max_tokens=self.cap or max_tokens or self.max_tokens,
            temperature=self.temperature,
            seed=call_seed(self.seed, self.tick, self.phase, self.agent, operation, self.counter),
        )
        result = await self.client.structured(
            self.role, self.agent, messages, schema, config, operation=operation
        )
        record = self.client.records[-1]
        self.log.add(self.agent, self.phase, operation, messages, result, record)
        return result.value
