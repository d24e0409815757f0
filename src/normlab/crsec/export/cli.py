"""``normlab crsec export RUN --to losona|scene --out FILE``: a society's emergent norms as test
cases for the two benchmarks.

Light at import (``normlab crsec --help`` answers at once): the command imports the
analysis, the builders and Inspect when it runs.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from normlab.core.errors import InputError, at_least
from normlab.core.outputs import apart_from_inputs, output_file, replace_file
from normlab.crsec.export.threshold import DEFAULT_MIN_SHARE, check_threshold
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.console import note, reports_errors, say, say_outcomes

if TYPE_CHECKING:
    from inspect_ai.model import Model

    from normlab.crsec.export.emerged import EmergedNorm, Selection
    from normlab.models import Generated

TARGETS = ("losona", "scene")

Builder = Callable[["Model", "EmergedNorm", "Selection", int], Awaitable["Generated[Any]"]]


async def _export(
    run: Path, min_share: float, judge: str, generator: str, builder: Builder, repairs: int
) -> tuple[Selection, list[Generated[Any]]]:
    from inspect_ai.model import get_model

    from normlab.crsec.export.emerged import select_emerged
    from normlab.models import ModelClient

    selection = await select_emerged(
        run, min_share, ModelClient({"judge": get_model(judge)}), judge
    )
    if not selection.emerged:
        return selection, []
    model = get_model(generator, role="generator")
    built = [builder(model, emerged, selection, repairs) for emerged in selection.emerged]
    return selection, list(await asyncio.gather(*built))


@reports_errors
def export_command(
    run: Annotated[Path, typer.Argument(help="A finished CRSEC run directory.")],
    to: Annotated[str, typer.Option("--to", help="The benchmark: losona or scene.")],
    out: Annotated[Path, typer.Option(help="JSONL file the scenarios are written to (replaced).")],
    min_share: Annotated[
        float,
        typer.Option(
            "--min-share",
            "--min-adherence",
            help="A norm emerged when the share of agents that hold it and adhere to it was "
            "over this at the end of some simulated hour, as the emergence table counts (1: "
            "every agent; --min-adherence: its old name).",
        ),
    ] = DEFAULT_MIN_SHARE,
    generator: Annotated[
        str, typer.Option(help="Model that writes what the run does not hold.")
    ] = DEFAULT_MODEL,
    judge: Annotated[
        str | None,
        typer.Option(help="The emergence metrics' judge (default: the run's; verdicts cached)."),
    ] = None,
    repairs: Annotated[
        int, typer.Option(help="Repair rounds after the benchmark's linter finds a problem.")
    ] = 2,
) -> None:
    """Export the norms the society converged on (the society file's, and its own words), with
    the conversations and observations that spread them, as LoSoNA or SCENE scenarios; every
    one passes the benchmark's linter."""
    from normlab.crsec.export.emerged import finished_run, judge_model
    from normlab.crsec.export.losona import export_losona
    from normlab.crsec.export.scene import export_scene
    from normlab.models.preflight import check_models

    if to not in TARGETS:
        raise InputError("--to", f"choose {' or '.join(TARGETS)}, not {to!r}", field="to")
    check_threshold(min_share)
    at_least("--repairs", repairs, 0)
    finished_run(run)
    # Before the first model call, not when its result lands; never into the run it reads
    # (--out RUN/events.jsonl replaced the run's events with the scenarios).
    apart_from_inputs(out, [run])
    output_file(out, "--out")
    judged_by = judge_model(run, judge)
    # The judge, as for ``analyze``, is called only for verdicts the run's cache lacks, but
    # its client is built either way: a missing key is named here, with the judge's model
    # (it was the provider's own error, exit 1, the code that means "resume").
    check_models({"--generator": generator})
    check_models({"--judge": judged_by}, reach=False)
    builder: Builder = export_losona if to == "losona" else export_scene
    selection, outcomes = asyncio.run(
        _export(run, min_share, judged_by, generator, builder, repairs)
    )
    if not selection.emerged:
        say(
            f"nothing to export: no norm of {run} was held and adhered to by {min_share:.0%} "
            f"of its agents (highest: {selection.missed_line()}); --min-share sets the "
            "threshold"
        )
        raise typer.Exit(code=1)
    for emerged in selection.emerged:
        origin, evidence = emerged.provenance, emerged.evidence
        words = f" ({emerged.whose_words()})" if emerged.own else ""
        note(
            f"emerged: {origin.norm_id}{words}, {origin.adherent}/{origin.agents} agents holding "
            f"and adhering by {origin.hour_label} (hour {origin.hour}); "
            f"{len(evidence.conversations)} conversations "
            f"({len(evidence.demonstrating())} with a line the judge ties to it, of "
            f"{evidence.lines_asked} candidate lines asked), "
            f"{len(evidence.conflicts)} conflicts observed"
        )
    asked = sum(emerged.evidence.lines_asked for emerged in selection.emerged)
    note(
        f"demonstration turns: {asked} candidate lines asked of the judge, "
        f"{selection.demonstration_calls} judge calls (the rest from the run's judge cache)"
    )
    written = [outcome.value for outcome in outcomes if outcome.value is not None]
    say_outcomes(outcomes, lambda value: f": {value.scenario_id}")
    if written:
        rows = (json.dumps(value.model_dump(mode="json"), ensure_ascii=False) for value in written)
        replace_file(out, "".join(f"{row}\n" for row in rows))
    say(f"{len(written)} of {len(outcomes)} written to {out.resolve()}")
    if len(written) < len(outcomes):
        raise typer.Exit(code=1)
