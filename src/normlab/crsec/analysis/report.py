"""The CRSEC report: Figure 2's panels with bands, emergence, ablations, norm databases, cost.

Every table is a function of the analysis, so the terminal (``analyze``) and the HTML page
(``report``) print the same thing. Transcript and norm text is escaped by the HTML writer.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from normlab.core.outputs import replace_file
from normlab.crsec.analysis.figure2 import (
    EMERGENCE_MEASURES,
    CrsecAnalysis,
    GroupResult,
    RunResult,
)
from normlab.crsec.emergence import EMERGENCE_SHARE
from normlab.crsec.sim.rundir import SUMMARY
from normlab.report import (
    HtmlReport,
    LineSeries,
    Table,
    add_common_sections,
    add_usage_section,
    format_estimate,
    format_percent,
    line_panels,
)
from normlab.stats import Band, Estimate, Rate

MEASURE_NAMES = {
    "holding": "hold as a qualified norm",
    "plan": "comply in plans",
    "actions": "comply in actions",
    "adhering": "adhere (plan or actions, no violation)",
    "both": "hold and adhere",
}
MEASURE_COLUMNS = {
    "holding": "hold",
    "plan": "plans",
    "actions": "actions",
    "adhering": "adhere",
    "both": "hold and adhere",
}
"""Each measure's short name in a table's header."""
EMERGENCE_COLUMNS = {
    "both": "emerged: hold and adhere > 70% (hour)",
    "holding": "curve (i) hold > 70% (hour)",
    "adhering": "curve (ii) adhere > 70% (hour)",
}
"""The emergence table's hour columns: the norm's emergence, then each Figure 2(b) curve's
first hour over 70% read alone (never emergence: ``normlab.crsec.emergence``)."""
COUNT_NAMES = {
    "conflicts": "social conflicts",
    "norm_thoughts": "norm-related thoughts",
    "norm_chats": "norm-related chats",
}


def _series(label: str, bands: list[Band], dashed: bool = False) -> LineSeries:
    return LineSeries(
        label,
        [band.mean for band in bands],
        [band.low for band in bands],
        [band.high for band in bands],
        dashed=dashed,
    )


def _hours(labels: list[str]) -> list[float]:
    return [float(hour + 1) for hour in range(len(labels))]


MAX_HOUR_TICKS = 12


def _hour_ticks(labels: list[str]) -> list[tuple[float, str]]:
    """The hours on the x axis named as the tables name them (``09–10``, with ``d2`` for a
    second day), at most ``MAX_HOUR_TICKS`` of them: never fractions of an hour."""
    days = {label.split(" ")[1] for label in labels if label.startswith("day ")}
    step = max(1, -(-len(labels) // MAX_HOUR_TICKS))
    ticks = []
    for index in range(0, len(labels), step):
        label = labels[index]
        day, _, span = label.removeprefix("day ").partition(" ")
        short = span.replace(":00", "") if span else label
        ticks.append((float(index + 1), short if len(days) <= 1 else f"d{day} {short}"))
    return ticks


def figure_2a(group: GroupResult) -> bytes:
    """Conflicts, norm-related thoughts and chats per simulated hour (mean and min–max band)."""
    lines = [_series(name, group.counts[key]) for key, name in COUNT_NAMES.items()]
    return line_panels(
        _hours(group.hours),
        [(f"{group.label}: {group.runs} run(s)", lines)],
        "simulated hour",
        "count per hour",
        xticks=_hour_ticks(group.hours),
    )


def figure_2b(group: GroupResult, targets: dict[str, str]) -> bytes:
    """Per target norm: shares holding and adhering per hour (mean and min–max band)."""
    panels = []
    for target, statement in targets.items():
        lines = [
            _series("hold", group.series["holding"][target]),
            _series("adhere", group.series["adhering"][target], dashed=True),
        ]
        panels.append((statement, lines))
    return _share_panels(group.hours, panels, f"share of agents ({group.runs} run(s))")


def figure_ablations(groups: list[GroupResult], targets: dict[str, str], measure: str) -> bytes:
    """One panel per target norm, one line per setting: the settings' emergence curves, on
    the hours any setting has (a setting that stopped early, such as a newcomer arm at its
    budget beside its finished control, has no point where it has no hour)."""
    labels = {
        hour: label
        for group in groups
        for hour, label in zip(group.indices, group.hours, strict=True)
    }
    axis = sorted(labels)
    panels = []
    for target, statement in targets.items():
        lines = []
        for group in groups:
            by_hour = dict(zip(group.indices, group.series[measure][target], strict=True))
            bands = [by_hour.get(hour, Band.of([])) for hour in axis]
            lines.append(_series(group.label, bands))
        panels.append((statement, lines))
    return _share_panels(
        [labels[hour] for hour in axis], panels, f"share of agents that {MEASURE_NAMES[measure]}"
    )


def _share_panels(
    labels: list[str], panels: list[tuple[str, list[LineSeries]]], ylabel: str
) -> bytes:
    """Shares per simulated hour (``labels``), with the paper's 70% line: Figure 2(b) and the
    ablations' curves are read side by side, so they share their axes."""
    return line_panels(
        _hours(labels),
        panels,
        "simulated hour",
        ylabel,
        ylim=(-0.02, 1.02),
        xticks=_hour_ticks(labels),
        threshold=EMERGENCE_SHARE,
    )


def format_final(estimate: Estimate) -> str:
    """A final share: over runs with its interval; one run's (no interval) as k of n agents."""
    if isinstance(estimate, Rate) and estimate.ci == (None, None) and estimate.value is not None:
        return f"{format_percent(estimate.value)} ({estimate.k} of {estimate.n} agents)"
    return format_estimate(estimate)


def emergence_table(analysis: CrsecAnalysis) -> Table:
    rows = []
    for group in analysis.groups:
        for target in analysis.targets:
            row = [group.label, target.statement]
            for measure in EMERGENCE_MEASURES:
                estimate = group.emergence[target.id][measure]
                hour = (
                    "never"
                    if estimate.value is None
                    else format_estimate(estimate, 1, percent=False, signed=False)
                )
                row.append(f"{hour} ({group.reached[target.id][measure]})")
            for measure in MEASURE_COLUMNS:
                row.append(format_final(group.final[target.id][measure]))
            rows.append(row)
    first = analysis.groups[0]
    return Table(
        caption="Emergence: first simulated hour at whose end over 70% of agents both hold and "
        "adhere to the norm (the paper's \"widely accepted and adhered to by a significant "
        'majority", §3.2); beside it, the first hour over 70% of each Figure 2(b) curve read '
        "alone, (i) holding and (ii) adhering, which is not emergence "
        f"(hour 1 is {first.hours[0]}, the figures' x-axis tick {_hour_ticks(first.hours)[0][1]}; "
        "mean over the runs that got there, 95% bootstrap CI, n runs; the runs that did not "
        "are censored at their last hour, left out of the mean and counted beside it), and the "
        "final shares (mean over runs with a bootstrap CI over runs; one run: k of n agents, "
        "no interval, since one run's agents talk to each other and are not independent)",
        header=[
            "setting",
            "norm",
            *(EMERGENCE_COLUMNS[measure] for measure in EMERGENCE_MEASURES),
            *(f"final: {name}" for name in MEASURE_COLUMNS.values()),
        ],
        rows=rows,
    )


COUNT_COLUMNS = {
    "conflicts": "conflicts",
    "norm_thoughts": "norm thoughts",
    "norm_chats": "norm chats",
    "chats": "chats",
    "accepted": "norms accepted",
    "unanswered": "unanswered observations",
}
"""The per-hour table's counts: each with its column's header."""


def counts_table(group: GroupResult) -> Table:
    rows = []
    for hour, label in enumerate(group.hours):
        row = [label]
        for key in COUNT_COLUMNS:
            band = group.counts[key][hour]
            if band.mean is None:
                row.append("–")
            elif group.runs == 1:
                row.append(f"{band.mean:.0f}")
            else:
                row.append(f"{band.mean:.1f} [{band.low:.0f}–{band.high:.0f}]")
        rows.append(row)
    return Table(
        caption=f"Per simulated hour ({group.label}; mean [min–max] over {group.runs} run(s); "
        "unanswered observations: those a DetectConflict reply left out or never answered in "
        "a reply that parsed, judged neither in conflict nor not)",
        header=["hour", *COUNT_COLUMNS.values()],
        rows=rows,
    )


def operations_table(analysis: CrsecAnalysis) -> Table:
    totals: dict[str, list[float]] = {}
    for run in analysis.runs:
        for operation, usage in run.by_operation.items():
            item = totals.setdefault(operation, [0, 0, 0, 0, 0.0, 0])
            item[0] += usage.calls
            item[1] += usage.input_tokens
            item[2] += usage.cached_input_tokens
            item[3] += usage.output_tokens
            item[4] = item[4] + (usage.cost or 0.0)
            item[5] += usage.retries
    runs = max(1, len(analysis.runs))
    rows = [
        [
            operation,
            f"{calls:.0f}",
            f"{calls / runs:.0f}",
            f"{inputs:.0f}",
            "–" if not inputs else f"{cached / inputs:.0%}",
            f"{outputs:.0f}",
            f"${cost:.4f}" if cost else "–",
            f"{retries:.0f}",
        ]
        for operation, (calls, inputs, cached, outputs, cost, retries) in sorted(totals.items())
    ]
    return Table(
        caption="Agent calls, tokens and cost by operation, over all runs (per run: calls / runs; "
        "retries: requests made again after a rate limit, server error, timeout, dropped "
        "connection or a response that was no reply)",
        header=[
            "operation",
            "calls",
            "per run",
            "input tokens",
            "cached",
            "output",
            "cost",
            "retries",
        ],
        rows=rows,
    )


def hours_usage_table(run: RunResult) -> Table:
    rows = [
        [
            metrics.label,
            str(metrics.usage.calls),
            str(metrics.usage.input_tokens),
            str(metrics.usage.output_tokens),
            "cost unknown" if metrics.usage.unpriced_calls else f"${metrics.usage.cost:.4f}",
        ]
        for metrics in run.counts
    ]
    return Table(
        caption=f"Agent calls, tokens and cost per simulated hour ({run.folder})",
        header=["hour", "calls", "input tokens", "output tokens", "cost"],
        rows=rows,
    )


RUN_COLUMNS: dict[str, Callable[[RunResult], str]] = {
    "run": lambda run: run.folder,
    "setting": lambda run: run.label,
    "seed": lambda run: str(run.seed),
    "finished": lambda run: "yes" if run.finished else "no (resume it)",
    "hours": lambda run: str(len(run.hours)),
    "agent calls": lambda run: str(run.usage.calls),
    "prefix reuse": lambda run: format_percent(run.prefix_share),
    "parse failures / truncations / retries": lambda run: (
        f"{run.usage.parse_failures} / {run.usage.truncations} / {run.usage.retries}"
    ),
    "judge verdicts": lambda run: (
        f"{run.judge_calls} new, {run.judge_cached} cached, {run.judge_failures} failed"
    ),
}
"""The runs table's columns: each header with what its cell shows of a run."""


def runs_table(analysis: CrsecAnalysis) -> Table:
    return Table(
        caption="Runs (prefix reuse: share of each agent's prompt characters that repeat its "
        "previous prompt, what a prompt cache can reuse)",
        header=list(RUN_COLUMNS),
        rows=[[cell(run) for cell in RUN_COLUMNS.values()] for run in analysis.runs],
    )


def database_table(run: RunResult, agent: str) -> Table:
    rows = []
    for norm in run.norm_databases.get(agent, []):
        if norm["activated"] and norm["valid"]:
            status = "qualified"
        elif norm["valid"]:
            status = "valid, folded into an abstract norm"
        else:
            status = f"rejected: {norm.get('rejection') or '?'}"
        rows.append(
            [
                f"#{norm['id']}",
                norm["content"],
                norm["type"],
                str(norm["utility"]),
                norm["origin"],
                norm["time"],
                status,
            ]
        )
    return Table(
        caption=f"{agent}: personal norm database at the end",
        header=["id", "content", "type", "utility", "origin", "since", "status"],
        rows=rows,
    )


class Section(Protocol):
    """A section a part of CRSEC built on the society adds to its report, after Figure 2 and the
    emergence table (the newcomer experiment's: ``normlab.crsec.newcomer.report``)."""

    @property
    def models(self) -> dict[str, set[str]]:
        """The models it adds to the report's roles (a newcomer's subject)."""

    @property
    def settings(self) -> str:
        """What the report calls the society's settings under it (``per newcomer``)."""

    def add(self, report: HtmlReport) -> None: ...


def write_report(analysis: CrsecAnalysis, out: Path, section: Section | None = None) -> Path:
    """``report.html`` and ``metrics.json``; with ``section`` (``normlab crsec newcomer``: the
    analysis is then of the society the newcomer joined), that section too."""
    report = HtmlReport("CRSEC: norm emergence in a society of agents")
    models = {
        "agent": {run.models.get("agent", "?") for run in analysis.runs},
        "judge": {analysis.judge_model},
    }
    if section is not None:
        models.update(section.models)
    add_common_sections(report, models, [run.folder for run in analysis.runs])
    unfinished = [run.folder for run in analysis.runs if not run.finished]
    if unfinished:
        report.banner(
            f"Not finished (stopped by a budget or killed): {', '.join(unfinished)}. "
            "Resume with normlab crsec resume."
        )
    targets = {target.id: target.statement for target in analysis.targets}
    report.heading("Figure 2: emergence over time")
    for group in analysis.groups:
        report.figure(
            figure_2a(group),
            f"Figure 2(a), {group.label}: social conflicts, norm-related thoughts and chats per "
            "simulated hour (line: mean over runs; band: min–max).",
        )
        report.figure(
            figure_2b(group, targets),
            f"Figure 2(b), {group.label}: share of agents holding each norm as a qualified "
            "personal norm (solid, the paper's curve (i)) and adhering to it in plans or actions "
            "(dashed, curve (ii)); dotted: 70%. A norm has emerged once over 70% of the agents "
            "each hold it and adhere to it (the table below): one curve over the line is not "
            "emergence.",
        )
    report.table(emergence_table(analysis))
    if section is not None:
        section.add(report)
    if len(analysis.groups) > 1:
        report.heading("Ablations" if section is None else f"The society, {section.settings}")
        for measure in ("holding", "adhering"):
            report.figure(
                figure_ablations(analysis.groups, targets, measure),
                f"Share of agents that {MEASURE_NAMES[measure]}, per setting (mean, min–max).",
            )
    report.heading("Per hour")
    for group in analysis.groups:
        report.table(counts_table(group))
    report.heading("Runs, calls and cost")
    report.table(runs_table(analysis))
    report.table(operations_table(analysis))
    report.table(hours_usage_table(analysis.runs[0]))
    add_usage_section(report, analysis.usage, "simulated hour")
    report.heading("Personal norm databases at the end")
    for group in analysis.groups:
        first = next(run for run in analysis.runs if run.label == group.label)
        report.paragraph(f"{group.label}: {first.folder}", "note")
        for agent in first.norm_databases:
            report.table(database_table(first, agent))
    report.heading("Definitions")
    report.paragraph(
        "Holding: the judge finds one of the agent's qualified norms expresses the target norm. "
        "Complying: the judge finds the hour's plan or subtasks explicitly compliant (trivial "
        "compliance, such as a non-smoker not smoking, does not count). Adhering: compliant in "
        "the plan or the actions and violating in neither. Emergence: the first simulated "
        "hour at whose end over 70% of agents both hold and adhere to the norm (the one "
        "definition the export and the newcomer's settled norms use too). Conflicts: "
        "observations a DetectConflict call found in conflict with the observer's norms; "
        "norm-related chats and thoughts: those in which normative information was "
        "identified (all counted from events.jsonl).",
        "note",
    )
    out.mkdir(parents=True, exist_ok=True)
    replace_file(out / SUMMARY, analysis.model_dump_json(indent=1))
    return report.write(out / "report.html")
