"""The reports' note of scenarios no author wrote: those exported from a CRSEC society.

LoSoNA and SCENE reports show one table when any scenario they read carries a
``ScenarioProvenance``, so a result on an emergent norm is
never read as one on an authored norm, and can be traced to its run.
"""

from __future__ import annotations

from collections.abc import Iterable

from normlab.core.provenance import ScenarioProvenance
from normlab.report.html import HtmlReport, Table, format_percent, format_rate
from normlab.stats import Rate

HEADING = "Scenarios exported from a CRSEC society"


def provenance_table(scenarios: Iterable[tuple[str, ScenarioProvenance]]) -> Table | None:
    """One row per exported scenario (each once); None when there is none."""
    rows = [
        [
            scenario_id,
            origin.run,
            origin.society,
            origin.norm_id,
            format_rate(Rate.of(origin.adherent, origin.agents)),
            f"{origin.hour} ({origin.hour_label})" if origin.hour_label else str(origin.hour),
            format_percent(origin.threshold, 0),
            "; ".join(origin.generated) or "–",
            _demonstrations(origin),
            "; ".join(origin.dropped) or "–",
        ]
        for scenario_id, origin in dict(scenarios).items()
    ]
    if not rows:
        return None
    return Table(
        caption="Norms no author wrote: each scenario's norm emerged in a simulated society "
        "(normlab crsec export), in an author's words or, where its id starts with own_, in "
        "the society's own. Held and adhering: the share of the society's agents holding it "
        "and adhering to it at the end of the hour it reached the threshold [Wilson 95% CI] "
        "(k/n agents); the generator wrote only the fields listed, the rest is the run's own; "
        "demonstrations: the marked turns, the society's (verbatim) or the generator's",
        header=[
            "scenario",
            "run",
            "society",
            "norm",
            "held and adhering",
            "hour reached",
            "threshold",
            "written by the generator",
            "demonstrations",
            "left out of the run's",
        ],
        rows=sorted(rows),
    )


def _demonstrations(origin: ScenarioProvenance) -> str:
    """``society: turns 4, 9; generator: turn 15`` (– where none was recorded)."""
    parts = []
    for source in ("society", "generator"):
        turns = [str(d.turn_id) for d in origin.demonstrations if d.source == source]
        if turns:
            parts.append(f"{source}: turn{'s' if len(turns) > 1 else ''} {', '.join(turns)}")
    return "; ".join(parts) or "–"


def add_provenance_section(
    report: HtmlReport, scenarios: Iterable[tuple[str, ScenarioProvenance]]
) -> None:
    """The table under its heading, when any scenario was exported from a society."""
    table = provenance_table(scenarios)
    if table is not None:
        report.heading(HEADING)
        report.table(table)
