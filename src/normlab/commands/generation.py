"""The shared end of every ``generate`` command: run the generator over its requests, append
each checked result to the output file as it lands, and report what was not written and why."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import typer
from pydantic import BaseModel

from normlab.core.batch import run_batch_to_jsonl
from normlab.core.outputs import output_file
from normlab.models import Generated
from normlab.runs.console import say, say_outcomes

if TYPE_CHECKING:
    from inspect_ai.model import Model

RequestT = TypeVar("RequestT")
ValueT = TypeVar("ValueT", bound=BaseModel)


def write_generated(
    requests: Sequence[RequestT],
    generate: Callable[[RequestT], Awaitable[Generated[ValueT]]],
    generator: Model,
    out: Path,
    description: str,
) -> list[Generated[ValueT]]:
    """Generate for every request; exit 1 after listing the ones that stayed invalid."""
    output_file(out, "--out")  # before the first model call, not when its result lands
    outcomes = run_batch_to_jsonl(
        requests,
        generate,
        lambda outcome: outcome.value,
        out,
        concurrency=generator.api.max_connections(),
        description=description,
    )
    failed = [outcome for outcome in outcomes if outcome.value is None]
    say_outcomes(outcomes, lambda value: "")
    say(f"{len(outcomes) - len(failed)} of {len(outcomes)} written to {out.resolve()}")
    if failed:
        raise typer.Exit(code=1)
    return outcomes
