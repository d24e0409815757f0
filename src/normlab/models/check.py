"""``normlab models check``: one smoke call showing that a model answers, how fast, at what cost."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

from normlab.core.errors import NormlabError
from normlab.core.secrets import guard_inspect_logs

CHECK_PROMPT = "Reply with one short friendly sentence greeting a new member of a group chat."


@dataclass(frozen=True)
class CheckResult:
    model: str
    reply: str
    latency_s: float
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int


class ModelCheckError(NormlabError):
    """The model did not answer the check call (unreachable, refused, or too slow)."""

    exit_code = 2


async def check_model(model_name: str, max_tokens: int = 48, timeout_s: int = 30) -> CheckResult:
    """One call, failing fast: an endpoint that does not answer within ``timeout_s`` (or
    refuses) is reported at once, where a run would keep retrying it for minutes."""
    guard_inspect_logs()  # the call's HTTP line goes to Inspect's trace file
    started = time.perf_counter()
    try:
        model = get_model(model_name, memoize=False)
        output = await asyncio.wait_for(
            model.generate(
                [ChatMessageUser(content=CHECK_PROMPT)],
                config=GenerateConfig(
                    max_tokens=max_tokens,
                    temperature=0.0,
                    attempt_timeout=timeout_s,
                    timeout=timeout_s,
                    max_retries=0,
                ),
            ),
            timeout=timeout_s + 1,
        )
    except NormlabError:
        raise
    except TimeoutError:
        raise ModelCheckError(f"{model_name}: no answer within {timeout_s} s") from None
    except Exception as raised:  # any provider's failure, reported on one line
        error = _cause(raised)
        cause = " ".join(str(error).split())[:300] or type(error).__name__
        elapsed = time.perf_counter() - started
        raise ModelCheckError(
            f"{model_name}: no answer after {elapsed:.1f} s ({type(error).__name__}: {cause})"
        ) from None
    latency = time.perf_counter() - started
    usage = output.usage
    cached = (usage.input_tokens_cache_read or 0) if usage else 0
    return CheckResult(
        model=model_name,
        reply=output.completion.strip(),
        latency_s=latency,
        input_tokens=(usage.input_tokens + cached) if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        cached_input_tokens=cached,
    )


def _cause(error: BaseException) -> BaseException:
    """The provider's own error inside Inspect's retry wrapper (tenacity's ``RetryError``)."""
    last_attempt = getattr(error, "last_attempt", None)
    inner = last_attempt.exception() if last_attempt is not None else None
    return inner if isinstance(inner, BaseException) else error
