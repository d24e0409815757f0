"""One way to get a JSON object matching a pydantic schema out of any model.

Every structured model call in normlab (judges, classifiers, generators) goes
through [`generate_structured`][normlab.models.generate_structured]:

1. request JSON, with the schema attached as Inspect's ``response_schema`` so
   providers that support constrained output (OpenAI, Gemini, vLLM, llama.cpp…)
   enforce it;
2. parse leniently: code fences, prose around the object, control characters
   inside strings (``json.loads(strict=False)``);
3. a response that is no reply at all (a body that is not JSON or cut off in
   transit, an empty message) is retried up to ``UNUSABLE_RETRIES`` times
   and counted in ``retries``; Inspect itself retries rate limits, server errors,
   dropped connections and attempts past their timeout (every call gets an
   ``attempt_timeout``, ``attempt_timeout``), so a
   hung endpoint never hangs a run;
4. a reply cut off by its output cap is retried once with a larger cap and
   counted as a truncation, apart from parse failures;
5. on a parse failure, one repair retry that shows the model its reply and the error;
6. if that fails too, return a result with ``value=None`` and the error, so the
   caller records a parse failure instead of inventing or dropping a label.
"""

from __future__ import annotations

import ast
import functools
import json
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
from inspect_ai.model import (
    CachePolicy,
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
)
from inspect_ai.util import json_schema
from pydantic import BaseModel, ValidationError
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    retry_if_result,
    stop_after_attempt,
    wait_incrementing,
)

from normlab.core.errors import NormlabError
from normlab.core.jsonio import validation_field
from normlab.models.timeouts import attempt_timeout

SchemaT = TypeVar("SchemaT", bound=BaseModel)

REPAIR_PROMPT = (
    "Your previous reply could not be used: {error}\n"
    "Reply again with only the JSON object, matching the required fields and types, "
    "and nothing else."
)

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


class ReplyParseError(ValueError):
    """A model reply that is not a JSON object of the expected shape."""


_QUOTED_KEY = re.compile(r"""(?P<quote>['"])(?P<key>[A-Za-z_][\w-]*)(?P=quote)\s*:\s*""")


def _loose_value(raw: str) -> Any:
    """One value of a ``loose_object``: text between matching quotes is kept as it is
    (apostrophes and all), anything else read as a literal when it is one."""
    text = raw.strip().rstrip(",").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text


def loose_object(text: str) -> dict[str, Any] | None:
    """A ``{'key': 'value', …}`` object written the way the papers' own prompts print their
    output format, read even when it is no valid literal: a single-quoted value holding an
    apostrophe (``'content': 'I'll send it.'``) breaks ``ast``, yet a reader sees the essential
    elements. Each quoted key's value runs to the next quoted key (or the closing brace)."""
    start, end = text.find("{"), text.rfind("}")
    if not 0 <= start < end:
        return None
    body = text[start + 1 : end]
    keys = list(_QUOTED_KEY.finditer(body))
    if not keys or body[: keys[0].start()].strip():
        return None
    values: dict[str, Any] = {}
    for found, following in zip(keys, [*keys[1:], None], strict=True):
        raw = body[found.end() : following.start() if following else len(body)]
        values[found["key"]] = _loose_value(raw)
    return values


def load_object(text: str) -> dict[str, Any] | None:
    """``text`` as a dict: a JSON object, else a Python-literal dict, else a
    ``loose_object``; None if none of them."""
    return strict_object(text) or loose_object(text)


def strict_object(text: str) -> dict[str, Any] | None:
    """``text`` as a dict: a JSON object, else a Python-literal dict; None if neither."""
    try:
        value = json.loads(text, strict=False)
    except (ValueError, RecursionError):
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict) else None


def extract_json_object(text: str) -> Any:
    """Parse the JSON object in ``text``, tolerating fences and surrounding prose.

    A Python-literal dict (single quotes, ``True``) is accepted too: several papers'
    prompts print their output format that way, and models copy it.
    """
    candidates = [match.strip() for match in _FENCE.findall(text)]
    candidates.append(text.strip())
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    last_error = "no JSON object found"
    for candidate in candidates:
        try:
            return json.loads(candidate, strict=False)
        except json.JSONDecodeError as error:
            last_error = f"invalid JSON ({error.msg} at line {error.lineno})"
        except RecursionError:
            last_error = "invalid JSON (nested too deeply)"
        except ValueError:  # an integer past Python's digit limit: no lenient reading either
            raise ReplyParseError("invalid JSON (a number too long to read)") from None
    for candidate in candidates:
        value = load_object(candidate)
        if value is not None:
            return value
    raise ReplyParseError(last_error)


def parse_reply(text: str, schema: type[SchemaT]) -> SchemaT:
    """Lenient parse of one reply into ``schema``; raises ``ReplyParseError``."""
    data = extract_json_object(text)
    try:
        return schema.model_validate(data)
    except ValidationError as error:
        location, message = validation_field(error)
        raise ReplyParseError(f"field '{location or '(root)'}': {message}") from error


@dataclass
class StructuredResult(Generic[SchemaT]):
    """Outcome of a call: the parsed value (or ``None`` and why not), every reply, usage.

    A reply cut off by its output cap (stop reason ``max_tokens``) is a
    *truncation*, kept apart from parse failures: it is retried once with a
    larger cap, and ``truncated`` says whether the final reply was still cut.
    """

    value: SchemaT | None
    replies: list[str] = field(default_factory=list)
    error: str | None = None
    usage: ModelUsage = field(default_factory=ModelUsage)
    stop_reasons: list[str] = field(default_factory=list)
    truncations: int = 0
    truncated: bool = False
    retries: int = 0
    """Responses that were no reply (unparseable body, empty message) and were asked again."""

    @property
    def parse_failed(self) -> bool:
        return self.value is None

    @property
    def attempts(self) -> int:
        return len(self.replies)

    @property
    def text(self) -> str:
        """The final reply's text (for free-text calls)."""
        return self.replies[-1] if self.replies else ""

    def after(self, earlier: StructuredResult[SchemaT]) -> StructuredResult[SchemaT]:
        """This result with ``earlier`` attempts' replies, usage and truncations counted in."""
        return StructuredResult(
            value=self.value,
            replies=[*earlier.replies, *self.replies],
            error=self.error,
            usage=earlier.usage + self.usage,
            stop_reasons=[*earlier.stop_reasons, *self.stop_reasons],
            truncations=earlier.truncations + self.truncations,
            truncated=self.truncated,
            retries=earlier.retries + self.retries,
        )


TRUNCATION_CAP_FACTOR = 2
"""A reply cut by its cap is retried once with this many times the cap."""
DEFAULT_CAP = 512


UNUSABLE_RETRIES = 4
"""How often a response that is no reply at all is asked again before the call fails."""
UNUSABLE_BACKOFF_S = 0.25


class UnusableResponseError(NormlabError):
    """A model endpoint kept sending responses that are no reply (see ``UNUSABLE_RETRIES``)."""


@functools.cache
def unusable_errors() -> tuple[type[BaseException], ...]:
    """Exceptions meaning the response arrived but was no reply (not a transport error,
    which Inspect retries itself): a body that is not JSON, or does not fit the API.

    Looked up on first use, not at import: the OpenAI SDK costs a quarter of a second to
    import, which Inspect's entry point and every command would otherwise pay."""
    errors: list[type[BaseException]] = [json.JSONDecodeError, UnicodeDecodeError]
    try:
        from openai import APIResponseValidationError

        errors.append(APIResponseValidationError)
    except ImportError:  # pragma: no cover - openai is a dependency, but not of Inspect
        pass
    return tuple(errors)


def _is_empty(output: ModelOutput) -> bool:
    """No text and no tool call, and not because the cap cut it (that is a truncation)."""
    return (
        not output.completion.strip()
        and not output.message.tool_calls
        and output.stop_reason != "max_tokens"
    )


def _usable_retrying(model: Model, result: StructuredResult[SchemaT]) -> AsyncRetrying:
    """Tenacity's policy for responses that are no reply: up to ``UNUSABLE_RETRIES``
    more tries, waiting 0.25 s, 0.5 s, … between them, each counted in ``result.retries``.

    Once the tries are spent an empty message is returned as it is (the caller records it
    as a reply that did not parse) and an unreadable body becomes one
    ``UnusableResponseError`` naming the model and the last error.
    """

    def count_retry(state: RetryCallState) -> None:
        result.retries += 1

    def give_up(state: RetryCallState) -> ModelOutput:
        outcome = state.outcome
        assert outcome is not None  # tenacity gives up only after an attempt
        error = outcome.exception()
        if error is None:
            output: ModelOutput = outcome.result()
            return output
        raise UnusableResponseError(
            f"{model}: no usable response after {UNUSABLE_RETRIES + 1} tries "
            f"({type(error).__name__}: {str(error)[:200]})"
        ) from error

    return AsyncRetrying(
        stop=stop_after_attempt(UNUSABLE_RETRIES + 1),
        wait=wait_incrementing(start=UNUSABLE_BACKOFF_S, increment=UNUSABLE_BACKOFF_S),
        retry=retry_if_exception_type(unusable_errors()) | retry_if_result(_is_empty),
        before_sleep=count_retry,
        retry_error_callback=give_up,
        sleep=anyio.sleep,
    )


async def _generate_usable(
    model: Model,
    conversation: list[ChatMessage],
    config: GenerateConfig,
    cache: bool | CachePolicy,
    result: StructuredResult[SchemaT],
) -> ModelOutput:
    """``model.generate``, asked again (counted in ``result.retries``) while the response is
    no reply; an empty message is returned as it is once the retries are spent."""
    output: ModelOutput = await _usable_retrying(model, result)(
        model.generate, conversation, config=config, cache=cache
    )
    return output


@functools.cache
def response_schema(schema: type[BaseModel]) -> ResponseSchema:
    """The schema as Inspect's ``response_schema``, built once per schema (not per call)."""
    return ResponseSchema(name=schema.__name__, json_schema=json_schema(schema))


def request_config(
    schema: type[BaseModel] | None, config: GenerateConfig | None, model: Model | None = None
) -> GenerateConfig:
    """``config`` with the schema attached and normlab's per-attempt timeout (unless it sets
    its own), in one merge: each merge deep-copies the config, schema included.

    A provider that queues requests inside its own ``generate`` (the embedded model, whose
    slots a CPU serves one reply at a time) times its attempts itself, from the moment a
    request gets a slot: Inspect's timer would also count the wait in that queue, and time
    out requests that are merely waiting behind a slow CPU.
    """
    base = config or GenerateConfig()
    timed_by_provider = model is not None and getattr(model.api, "times_own_attempts", False)
    extra = GenerateConfig(
        response_schema=response_schema(schema) if schema else None,
        attempt_timeout=(
            None if base.attempt_timeout is not None or timed_by_provider else attempt_timeout()
        ),
    )
    return base.merge(extra)


def _larger_cap(config: GenerateConfig) -> GenerateConfig:
    return config.merge(
        GenerateConfig(max_tokens=TRUNCATION_CAP_FACTOR * (config.max_tokens or DEFAULT_CAP))
    )


async def _generate_once(
    model: Model,
    conversation: list[ChatMessage],
    config: GenerateConfig,
    cache: bool | CachePolicy,
    result: StructuredResult[SchemaT],
) -> str:
    """One reply, retried once with a larger cap if it was cut off; updates ``result``."""
    output = await _generate_usable(model, conversation, config, cache, result)
    for retry in (False, True):
        if output.usage is not None:
            result.usage = result.usage + output.usage
        result.replies.append(output.completion)
        result.stop_reasons.append(output.stop_reason)
        result.truncated = output.stop_reason == "max_tokens"
        if not result.truncated or retry:
            break
        result.truncations += 1
        config = _larger_cap(config)
        output = await _generate_usable(model, conversation, config, cache, result)
    if result.truncated:
        result.truncations += 1
    return output.completion


async def generate_structured(
    model: Model,
    messages: Sequence[ChatMessage],
    schema: type[SchemaT] | None,
    config: GenerateConfig | None = None,
    repair_retries: int = 1,
    cache: bool | CachePolicy = False,
) -> StructuredResult[SchemaT]:
    """Call ``model`` until its reply parses into ``schema`` (1 + ``repair_retries`` tries).

    With ``schema=None`` the call is free text: no parsing, only the truncation retry.
    """
    conversation = list(messages)
    call_config = request_config(schema, config, model)
    result: StructuredResult[SchemaT] = StructuredResult(value=None)
    for attempt in range(1 + repair_retries):
        reply = await _generate_once(model, conversation, call_config, cache, result)
        if schema is None:
            result.error = "reply cut off at the output cap" if result.truncated else None
            return result
        try:
            result.value = parse_reply(reply, schema)
            result.error = None
            return result
        except ReplyParseError as error:
            result.error = str(error)
            if result.truncated:
                result.error = f"reply cut off at the output cap ({error})"
                return result  # a larger cap was already tried; a repair would be cut too
        if attempt < repair_retries:
            conversation = [
                *conversation,
                ChatMessageAssistant(content=reply),
                ChatMessageUser(content=REPAIR_PROMPT.format(error=result.error)),
            ]
    return result


ResultT = TypeVar("ResultT")

FINDINGS_PROMPT = (
    "Your reply breaks these requirements:\n{findings}\n"
    "Reply again with the whole JSON object, fixing every point."
)


@dataclass
class Generated(Generic[ResultT]):
    """What a data generator made for one request: a checked value, or why there is none."""

    label: str
    """What was asked for (a tuple, a cell), for progress lines."""
    value: ResultT | None
    problems: list[str] = field(default_factory=list)
    calls: int = 0


@dataclass
class CheckedResult(Generic[ResultT]):
    """A value that parsed and passed the caller's checks, or the problems that remained."""

    value: ResultT | None
    problems: list[str] = field(default_factory=list)
    calls: int = 0


async def generate_checked(
    model: Model,
    messages: list[ChatMessage],
    schema: type[SchemaT],
    check: Callable[[SchemaT], tuple[ResultT | None, list[str]]],
    config: GenerateConfig | None = None,
    repairs: int = 1,
) -> CheckedResult[ResultT]:
    """[`generate_structured`][normlab.models.generate_structured], then ``check``; its findings go
    back for ``repairs`` rounds.

    For outputs that must satisfy more than a schema (a linted scenario, an
    unedited scaffold): the model sees its reply and the list of problems, and
    tries again. What still fails is returned with its problems, never used.
    """

    async def ask(conversation: list[ChatMessage]) -> StructuredResult[SchemaT]:
        return await generate_structured(model, conversation, schema, config=config)

    return await repair_checked(ask, messages, check, repairs)


async def repair_checked(
    ask: Callable[[list[ChatMessage]], Awaitable[StructuredResult[SchemaT]]],
    messages: Sequence[ChatMessage],
    check: Callable[[SchemaT], tuple[ResultT | None, list[str]]],
    repairs: int = 1,
) -> CheckedResult[ResultT]:
    """The check-and-repair loop of [`generate_checked`][normlab.models.generate_checked] around any
    structured call: ``ask`` gets the conversation so far and returns its
    [`StructuredResult`][normlab.models.StructuredResult]."""
    outcome: CheckedResult[ResultT] = CheckedResult(value=None)
    conversation = list(messages)
    for _ in range(1 + repairs):
        result = await ask(conversation)
        outcome.calls += result.attempts
        if result.value is None:
            outcome.problems = [f"reply is not valid JSON for the schema: {result.error}"]
            return outcome
        value, problems = check(result.value)
        outcome.problems = problems
        if not problems:
            outcome.value = value
            return outcome
        findings = "\n".join(f"- {problem}" for problem in problems)
        conversation = [
            *conversation,
            ChatMessageAssistant(content=result.replies[-1]),
            ChatMessageUser(content=FINDINGS_PROMPT.format(findings=findings)),
        ]
    return outcome
