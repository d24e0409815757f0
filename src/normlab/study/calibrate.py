"""``study plan --calibrate``: the embedded model's prompt and generation rates, timed on this
machine, for a plan's wall time of a local model (``normlab.study.plan.local_seconds``)."""

from __future__ import annotations

from normlab.models.roles import EMBEDDED_MODEL

CALIBRATION_PROMPT = "Here is a list of numbers to read carefully: " + " ".join(
    str(i) for i in range(1, 400)
)
"""About 1,200 tokens of prompt for the calibration's prompt-rate call."""


def calibrate_embedded(model: str = EMBEDDED_MODEL) -> dict[str, float]:
    """The embedded model's prompt and generation rates on this machine, from two calls after
    a warm-up (which loads it): a long prompt answered with one token (its prompt rate), then a
    short prompt answered at length (its generation rate, the short prompt's time taken off at
    the first rate). Each reads llama.cpp's token counts from the reply's usage."""
    import time

    import anyio
    from inspect_ai.model import GenerateConfig, get_model

    async def timed(prompt: str, tokens: int) -> tuple[float, int, int]:
        started = time.perf_counter()
        output = await engine.generate(
            prompt, config=GenerateConfig(max_tokens=tokens, temperature=0)
        )
        usage = output.usage
        prompt_tokens = (usage.input_tokens + (usage.input_tokens_cache_read or 0)) if usage else 0
        return time.perf_counter() - started, prompt_tokens, usage.output_tokens if usage else 0

    async def measure() -> dict[str, float]:
        await timed("Say OK.", 2)
        seconds, prompt_tokens, _ = await timed(CALIBRATION_PROMPT + " How many?", 1)
        prompt_rate = prompt_tokens / seconds
        seconds, prompt_tokens, made = await timed(
            "Write a long story about a lighthouse keeper.", 96
        )
        generating = max(seconds - prompt_tokens / prompt_rate, 1e-3)
        return {"prompt": prompt_rate, "generation": max(made, 1) / generating}

    engine = get_model(model)
    return anyio.run(measure)
