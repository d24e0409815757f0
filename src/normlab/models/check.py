"""``normlab models check``: one smoke call showing that a model answers, how fast, at what cost."""

from __future__ import annotations

import time
from dataclasses import dataclass

from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

CHECK_PROMPT = "Reply with one short friendly sentence greeting a new member of a group chat."


@dataclass(frozen=True)
class CheckResult:
    model: str
    reply: str
    latency_s: float
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int


async def check_model(model_name: str, max_tokens: int = 48) -> CheckResult:
    model = get_model(model_name)
    started = time.perf_counter()
    output = await model.generate(
        [ChatMessageUser(content=CHECK_PROMPT)],
        config=GenerateConfig(max_tokens=max_tokens, temperature=0.0),
    )
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
