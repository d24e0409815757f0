"""The role- and actor-tagged model client: every call a system makes that is not the eval's own.

SCENE's personas, HSII's persona and reference, CRSEC's ten agents: each call
belongs to a *role* (which model plays it) and an *actor* (which participant
speaks). The client resolves roles to models, sends plain or structured calls
([`generate_structured`][normlab.models.generate_structured]: schema, lenient parse,
repair retry, truncation retry), optionally through Inspect's cache, and keeps
one [`CallRecord`][normlab.models.CallRecord] per call: tokens, attempts, parse failures and how
much of the prompt repeats that caller's previous prompt (what a prompt cache can
reuse). It works the same inside an Inspect solver, where ``get_model(role=…)``
binds the eval's model roles and Inspect records ``role_usage``, and from a plain
asyncio loop (the CRSEC simulation), where the records are the usage.

A record's ``retries`` are the requests that failed and were made again: rate limits,
server errors, attempts past their timeout and dropped connections (which Inspect and
the provider's SDK retry) and responses that were no reply (which normlab retries).
Inside an eval Inspect counts them per sample; outside one, each call gets a transcript
of its own whose model events are that call's attempts.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TypeVar

from inspect_ai.event import ModelEvent
from inspect_ai.log import Transcript
from inspect_ai.model import CachePolicy, ChatMessage, GenerateConfig, Model, get_model
from pydantic import BaseModel

from normlab.core.secrets import guard_inspect_logs, redact_urls
from normlab.models.prefix_scheduler import shared_prefix_length
from normlab.models.roles import DEFAULT_MODEL
from normlab.models.sample_context import own_transcript, sample_attempt
from normlab.models.structured import StructuredResult, generate_structured
from normlab.models.usage import RoleUsage, usage_by

SchemaT = TypeVar("SchemaT", bound=BaseModel)

DETERMINISTIC_CACHE = CachePolicy(expiry=None, per_epoch=False)
"""For calls whose answer must not change on a rerun (judges at temperature 0)."""


class CallRecord(BaseModel):
    """One logical call (with its repair and truncation retries) by one actor in one role."""

    role: str
    actor: str
    operation: str = ""
    prompt_chars: int
    shared_prefix_chars: int
    input_tokens: int
    cached_input_tokens: int
    output_tokens: int
    attempts: int = 1
    retries: int = 0
    """Responses that were no reply and were asked again (``normlab.models.structured``)."""
    parse_failed: bool = False
    truncated: bool = False
    error: str | None = None
    cost: float | None = None


@contextlib.contextmanager
def _call_transcript() -> Iterator[Transcript | None]:
    """The call's own transcript outside an eval's sample (the CRSEC simulation); ``None``
    inside one, where the sample's transcript must keep the call, so that Inspect counts it,
    its usage and its retries.

    Inspect has no public way to scope a transcript outside a sample
    (``normlab.models.sample_context``); without one, each task's first call makes a
    transcript that keeps every attempt of the task's calls.
    """
    if sample_attempt() is not None:
        yield None
        return
    with own_transcript() as transcript:
        yield transcript


def _requests_made(transcript: Transcript) -> int:
    """HTTP requests behind the attempts in ``transcript``: one per attempt Inspect made
    (failed or not), plus those the provider's SDK repeated within it."""
    return sum(
        1 + (event.retries or 0) for event in transcript.events if isinstance(event, ModelEvent)
    )


def role_model(role: str) -> Model:
    """The model bound to ``role``: the eval's role binding inside Inspect, else the default."""
    return get_model(role=role, default=DEFAULT_MODEL)


def prompt_text(messages: Sequence[ChatMessage]) -> str:
    return "\n".join(message.text for message in messages)


class ModelClient:
    """Calls tagged with role and actor; see the module docstring.

    ``models`` maps a role to its model, or is a function resolving one
    (default [`role_model`][normlab.models.role_model]); ``"subject"`` is whatever the caller binds.
    """

    def __init__(
        self,
        models: Mapping[str, Model] | Callable[[str], Model] = role_model,
        on_call: Callable[[CallRecord], None] | None = None,
    ) -> None:
        # Outside an eval (the CRSEC simulation) no run has guarded Inspect's log lines yet.
        guard_inspect_logs()
        self._models = models
        self._resolved: dict[str, Model] = {}
        self._last_prompt: dict[tuple[str, str], str] = {}
        self.records: list[CallRecord] = []
        self.on_call = on_call

    def model(self, role: str) -> Model:
        if role not in self._resolved:
            if isinstance(self._models, Mapping):
                self._resolved[role] = self._models[role]
            else:
                self._resolved[role] = self._models(role)
        return self._resolved[role]

    def _record(
        self,
        role: str,
        actor: str,
        operation: str,
        messages: Sequence[ChatMessage],
        result: StructuredResult[SchemaT] | StructuredResult[BaseModel],
        structured: bool,
        transcript: Transcript | None,
    ) -> CallRecord:
        prompt = prompt_text(messages)
        caller = (role, actor)
        shared = shared_prefix_length(prompt, self._last_prompt.get(caller, ""))
        self._last_prompt[caller] = prompt
        usage = RoleUsage.of(result.usage)
        retries = result.retries
        if transcript is not None:
            # Every request that brought no usable reply was made again.
            retries = max(retries, _requests_made(transcript) - len(result.replies))
        record = CallRecord(
            role=role,
            actor=actor,
            operation=operation,
            prompt_chars=len(prompt),
            shared_prefix_chars=shared,
            input_tokens=usage.input_tokens,
            cached_input_tokens=usage.cached_input_tokens,
            output_tokens=usage.output_tokens,
            attempts=result.attempts,
            retries=retries,
            parse_failed=structured and result.value is None,
            truncated=result.truncated,
            error=None if result.error is None else redact_urls(result.error),
            cost=usage.cost,
        )
        self.records.append(record)
        if self.on_call is not None:
            self.on_call(record)
        return record

    async def structured(
        self,
        role: str,
        actor: str,
        messages: Sequence[ChatMessage],
        schema: type[SchemaT],
        config: GenerateConfig | None = None,
        *,
        operation: str = "",
        cache: bool | CachePolicy = False,
        repair_retries: int = 1,
    ) -> StructuredResult[SchemaT]:
        """A JSON reply parsed into ``schema``, or a recorded parse failure (``value=None``)."""
        with _call_transcript() as transcript:
            result = await generate_structured(
                self.model(role),
                messages,
                schema,
                config,
                repair_retries=repair_retries,
                cache=cache,
            )
        self._record(role, actor, operation, messages, result, True, transcript)
        return result

    async def text(
        self,
        role: str,
        actor: str,
        messages: Sequence[ChatMessage],
        config: GenerateConfig | None = None,
        *,
        operation: str = "",
        cache: bool | CachePolicy = False,
    ) -> StructuredResult[BaseModel]:
        """A free-text reply (``replies[-1]``), retried once with a larger cap if cut off."""
        with _call_transcript() as transcript:
            result: StructuredResult[BaseModel] = await generate_structured(
                self.model(role), messages, None, config, repair_retries=0, cache=cache
            )
        self._record(role, actor, operation, messages, result, False, transcript)
        return result

    def usage(
        self, by: Callable[[CallRecord], str] = lambda record: record.role
    ) -> dict[str, RoleUsage]:
        """Calls, tokens and cost summed by role (default) or any key of the records."""
        return usage_by(self.records, by)


def prefix_shares(
    records: Iterable[CallRecord], by: Callable[[CallRecord], str] = lambda record: record.role
) -> dict[str, float | None]:
    """Per key (default: role), the share of prompt characters that repeat the same caller's
    previous prompt: the part a prefix cache (llama.cpp's, a provider's) can reuse."""
    chars: dict[str, list[int]] = {}
    for record in records:
        total = chars.setdefault(by(record), [0, 0])
        total[0] += record.shared_prefix_chars
        total[1] += record.prompt_chars
    return {
        key: shared / whole if whole else None for key, (shared, whole) in sorted(chars.items())
    }
