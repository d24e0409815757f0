"""Calls and tokens per model role, read back from Inspect logs.

Inspect records every model call as a ``model`` event with the role that made it
(``None`` for the eval's own model, which normlab calls the subject). Summing
those events gives the per-role numbers that closing notes and cost reports need,
including how much of the input was served from a prompt cache, and the dollar
cost where Inspect knows the model's price (the embedded and scripted models
have none).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

SUBJECT_ROLE = "subject"


@dataclass
class RoleUsage:
    calls: int = 0
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    """US dollars, summed over calls Inspect could price (None when it priced none)."""

    @property
    def cached_share(self) -> float:
        """Share of input tokens served from the provider's prompt cache."""
        return self.cached_input_tokens / self.input_tokens if self.input_tokens else 0.0


def usage_by_role(log_paths: Iterable[Path]) -> dict[str, RoleUsage]:
    """Per-role calls and tokens over every sample of the given ``.eval`` logs."""
    from inspect_ai.log import read_eval_log

    totals: dict[str, RoleUsage] = {}
    for path in log_paths:
        log = read_eval_log(str(path))
        for sample in log.samples or []:
            for event in sample.events:
                if event.event != "model":
                    continue
                role = event.role or SUBJECT_ROLE
                usage = totals.setdefault(role, RoleUsage())
                usage.calls += 1
                if event.output.usage is not None:
                    cached = event.output.usage.input_tokens_cache_read or 0
                    usage.input_tokens += event.output.usage.input_tokens + cached
                    usage.cached_input_tokens += cached
                    usage.output_tokens += event.output.usage.output_tokens
                    if event.output.usage.total_cost is not None:
                        usage.cost = (usage.cost or 0.0) + event.output.usage.total_cost
    return totals
