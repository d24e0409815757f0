"""What a sequential study's report says per cell: units run of planned, why it stopped, the
sequence's interval beside the fixed-n interval, and what stopping saved; per pair of subjects,
the paired difference's sequence and whether it is decided.

The saving is an estimate: the units not run, each at the mean calls, tokens and dollars of the
units that were (their usage as the logs hold it, priced as the plan prices it).
"""

from __future__ import annotations

from itertools import combinations

from pydantic import BaseModel

from normlab.report import Table
from normlab.stats import Interval
from normlab.study.schema import Study
from normlab.study.sequential.looks import (
    ALPHA,
    REASONS,
    CellState,
    Order,
    Sequence,
    batched,
    excludes_zero,
    order_for,
    paired_sequence,
    read_state,
    sequence,
)
from normlab.study.systems import SYSTEMS, Cell, cells


class Saving(BaseModel):
    """The unrun units at the run ones' mean."""

    calls: int
    input_tokens: int
    output_tokens: int
    cost: float | None
    """US dollars; ``None`` where a model's price is unknown."""


class SequentialCell(BaseModel):
    system: str
    subject: str
    unit: str
    units_run: int
    units_planned: int
    reason: str
    """Why it stopped: half-width reached, decided, max-cost, all units, or not stopped yet."""
    value: float | None
    sequence_ci: Interval
    """The confidence sequence's interval after the units run (valid at any stop)."""
    fixed_ci: Interval
    """The headline's fixed-n interval over the same units (valid only at an n fixed in
    advance), as the study report computes it."""
    calls: int
    cost: float | None
    saved: Saving


class SequentialPair(BaseModel):
    system: str
    first: str
    second: str
    units: int
    delta: float | None
    ci: Interval
    """The paired difference's sequence at 0.05 / pairs (Bonferroni over the system's pairs)."""
    decided: bool


class SequentialReport(BaseModel):
    """A sequential run's cells and pairs, with the rule it last ran under (what ``study
    report --json`` holds as ``sequential``)."""

    halfwidth: float | None
    decided: bool
    max_cost: float | None
    batch: int | None
    cells: list[SequentialCell]
    pairs: list[SequentialPair]


def _saving(usage: object, units_run: int, planned: int, cost: float | None) -> Saving:
    from normlab.models.usage import RunUsage

    left = planned - units_run
    if not isinstance(usage, RunUsage) or not units_run or left <= 0:
        return Saving(calls=0, input_tokens=0, output_tokens=0, cost=0.0 if left <= 0 else None)
    share = left / units_run
    roles = usage.roles.values()
    return Saving(
        calls=round(share * sum(r.calls + r.cache_hits for r in roles)),
        input_tokens=round(share * sum(r.input_tokens + r.cache_hit_input_tokens for r in roles)),
        output_tokens=round(
            share * sum(r.output_tokens + r.cache_hit_output_tokens for r in roles)
        ),
        cost=None if cost is None else round(share * cost, 4),
    )


def _unit_name(system: str) -> str:
    described = batched(system)
    return "unit" if described is None else described.look


def summarize(study: Study) -> SequentialReport | None:
    """Every cell that ran in batches, and every pair of them on one system; ``None`` when
    none did."""
    from normlab.study.sequential.run import Look, look

    found: list[tuple[Cell, CellState, Look, Order]] = []
    for cell in cells(study):
        state = read_state(cell)
        if state is not None:
            found.append((cell, state, look(study, cell), order_for(cell, study.seed or 0)))
    if not found:
        return None
    rows: list[SequentialCell] = []
    for cell, state, seen, order in found:
        spec = SYSTEMS[cell.system]
        seq = sequence(order, seen.measured, state.units_run)
        headline = spec.headline(seen.run, seen.analysis) if seen.run is not None else None
        usage = spec.usage(seen.analysis) if seen.analysis is not None else None
        rows.append(
            SequentialCell(
                system=cell.system,
                subject=cell.subject.name,
                unit=_unit_name(cell.system),
                units_run=state.units_run,
                units_planned=len(order.units),
                reason=REASONS.get(state.reason, state.reason),
                value=seq.value,
                sequence_ci=seq.ci,
                fixed_ci=headline.estimate.ci if headline else (None, None),
                calls=seen.calls,
                cost=seen.cost,
                saved=_saving(usage, state.units_run, len(order.units), seen.cost),
            )
        )
    pairs: list[SequentialPair] = []
    for system in dict.fromkeys(cell.system for cell, *_ in found):
        mine = [entry for entry in found if entry[0].system == system]
        both = list(combinations(mine, 2))
        for (one, s1, l1, order), (two, s2, l2, _) in both:
            count = min(s1.units_run, s2.units_run)
            found_pair: Sequence = paired_sequence(
                order, l1.measured, l2.measured, count, ALPHA / len(both)
            )
            pairs.append(
                SequentialPair(
                    system=system,
                    first=one.subject.name,
                    second=two.subject.name,
                    units=found_pair.units,
                    delta=found_pair.value,
                    ci=found_pair.ci,
                    decided=excludes_zero(found_pair),
                )
            )
    rule = found[0][1].rule
    return SequentialReport(
        halfwidth=rule.halfwidth,
        decided=rule.decided,
        max_cost=rule.max_cost,
        batch=rule.batch,
        cells=rows,
        pairs=pairs,
    )


def _interval(value: float | None, ci: Interval) -> str:
    lo, hi = ci
    if value is None or lo is None or hi is None:
        return "—"
    return f"{value:.3f} [{lo:.3f}, {hi:.3f}]"


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.2f}"


def summary_table(report: SequentialReport) -> Table:
    """One row per cell: units run of planned, why it stopped, the two intervals, the saving."""
    rows = [
        [
            cell.system,
            cell.subject,
            f"{cell.units_run} of {cell.units_planned} {cell.unit}s",
            cell.reason,
            _interval(cell.value, cell.sequence_ci),
            _interval(cell.value, cell.fixed_ci),
            f"{cell.saved.calls:,} calls, {cell.saved.input_tokens:,} / "
            f"{cell.saved.output_tokens:,} tokens, {_money(cell.saved.cost)}",
        ]
        for cell in report.cells
    ]
    header = ["system", "subject", "units run", "stopped", "sequence 95%", "fixed-n 95%", "saved"]
    rule = f"half-width ≤ {report.halfwidth}" if report.halfwidth else "every unit"
    if report.decided:
        rule += ", or decided"
    if report.max_cost is not None:
        rule += f", within ${report.max_cost:,.2f}"
    return Table(f"Sequential run ({rule})", header, rows)


def pair_table(report: SequentialReport) -> Table:
    rows = [
        [
            pair.system,
            f"{pair.first} − {pair.second}",
            str(pair.units),
            _interval(pair.delta, pair.ci),
            "yes" if pair.decided else "no",
        ]
        for pair in report.pairs
    ]
    header = ["system", "pair", "shared units", "paired sequence", "decided (excludes 0)"]
    return Table("Sequential run: paired differences", header, rows)


NOTE = (
    "The sequence's interval (hedged capital, Waudby-Smith & Ramdas 2024) covers at every "
    "stop, however the stop was chosen; the fixed-n interval is valid only at an n fixed in "
    "advance, so after a stop chosen on the data it covers less than 95%. A pair's sequence "
    "is at 0.05 over its system's pairs (Bonferroni). Saved: the units not run, each at the "
    "mean of those run."
)


def sequential_blocks(report: SequentialReport) -> list[Table | str]:
    """The tables and the note, in order, for the terminal, the HTML report and the web app."""
    found: list[Table | str] = [summary_table(report)]
    if report.pairs:
        found.append(pair_table(report))
    return [*found, NOTE]
