"""How many llama.cpp slots the embedded model should use: the same requests, 1 slot or 2.

    python -m benchmarks.embedded_slots [--slots 1 2] [--requests 8] [--out results.json]

Sends ``--requests`` chat requests at once through the embedded provider (Inspect's
``get_model("embedded/…", n_parallel=N)``), each ~1,500 prompt tokens sharing one long
prefix and a 150-token reply at temperature 0 with a fixed seed, and reports the wall time,
output tokens and prompt tokens served from the cache for each slot count. On two CPU cores
one slot was the faster (the default; ``-M n_parallel=N`` sets another).
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import TYPE_CHECKING, Any

from benchmarks import command, emit

if TYPE_CHECKING:
    from inspect_ai.model import ModelOutput

PREFIX = " ".join(f"Line {i}: the team discussed item {i} at length." for i in range(120))


async def answered(
    prompts: list[str], max_tokens: int, server: dict[str, Any]
) -> tuple[list[ModelOutput], float]:
    """The embedded model's answers to ``prompts``, all sent at once (greedy, seeded), on a
    server with ``server``'s settings; and the seconds they took together."""
    from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model

    import normlab._registry  # noqa: F401  (registers the embedded provider)

    model = get_model("embedded/qwen2.5-coder-0.5b", **server)
    config = GenerateConfig(temperature=0, seed=1, max_tokens=max_tokens)
    started = time.perf_counter()
    outputs = await asyncio.gather(
        *(model.generate([ChatMessageUser(content=p)], config=config) for p in prompts)
    )
    return outputs, time.perf_counter() - started


async def measure(slots: int, requests: int) -> dict[str, Any]:
    prompts = [
        f"{PREFIX}\n\nQuestion {k % 4}: summarize what happened in {k} sentences."
        for k in range(requests)
    ]
    outputs, seconds = await answered(prompts, 150, {"n_parallel": slots})
    usages = [output.usage for output in outputs if output.usage is not None]
    return {
        "slots": slots,
        "seconds": round(seconds, 1),
        "output_tokens": sum(u.output_tokens for u in usages),
        "uncached_input_tokens": sum(u.input_tokens for u in usages),
        "cached_input_tokens": sum(u.input_tokens_cache_read or 0 for u in usages),
    }


def main() -> None:
    parser = command(__doc__)
    parser.add_argument("--slots", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--requests", type=int, default=8)
    arguments = parser.parse_args()
    # Each slot count gets a server of its own (servers are kept per setting).
    results = [asyncio.run(measure(slots, arguments.requests)) for slots in arguments.slots]
    emit({"runs": results, "cpu_count": os.cpu_count()}, arguments.out)


if __name__ == "__main__":
    main()
