"""``normlab models check``: one small call showing that a model answers, how fast, at what cost."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from normlab.commands.options import ModelOption
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import reports_errors, say

app = typer.Typer(no_args_is_help=True)


@app.command("check")
@reports_errors
def models_check(
    model: ModelOption = DEFAULT_MODEL,
    timeout: Annotated[
        int, typer.Option(min=1, help="Seconds to wait for the answer before failing.")
    ] = 30,
) -> None:
    """Make one small call and print the reply, latency and tokens."""
    from normlab.models.check import check_model

    result = asyncio.run(check_model(model, timeout_s=timeout))
    say(f"model:   {result.model}")
    say(f"reply:   {result.reply}")
    say(f"latency: {result.latency_s:.2f} s")
    say(
        f"tokens:  {result.input_tokens} in ({result.cached_input_tokens} cached), "
        f"{result.output_tokens} out"
    )
