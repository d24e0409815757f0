"""LoSoNA report: the paper's Figures 2–4 and tables, with n and intervals everywhere.

- Figure 2: accuracy-at-K by model × condition, 95% scenario-bootstrap CIs.
- Figure 3: paired delta vs naive per model and condition, 95% CIs.
- Figure 4: recovered naive failures vs introduced regressions (k/n).
- The norm-learning subject (``normlab.agents``) against its model alone: paired
  accuracy-at-K deltas over the same scenarios, what it inferred, and its norm database.
- Scenarios exported from a CRSEC society (``normlab crsec export``): their provenance.
Development conditions (the oracle) never enter these; a banner says so when
they are present, and another when the judge is the embedded 0.5B model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from normlab.agents import inference_table, memory_trace
from normlab.core.logs import variants_by_run
from normlab.losona.analysis import BASELINE_CONDITION, LosonaRun, headline_conditions
from normlab.losona.meta import SampleMeta
from normlab.losona.prompts import DEVELOPMENT_CONDITIONS
from normlab.losona.results import LosonaAnalysis, PairedResult
from normlab.report import (
    BarSeries,
    HtmlReport,
    Table,
    add_common_sections,
    add_usage_section,
    format_count,
    format_delta,
    format_estimate,
    format_rate,
    grouped_bar_chart,
)
from normlab.report.provenance import add_provenance_section


def headline_table(analysis: LosonaAnalysis) -> Table:
    rows = []
    for model, result in analysis.models.items():
        for condition in headline_conditions(result):
            cell = result.conditions[condition]
            rows.append(
                [
                    model,
                    condition,
                    format_estimate(cell.accuracy),
                    format_estimate(cell.compliance),
                    format_estimate(cell.consistency),
                    str(cell.n_scenarios),
                    str(cell.k),
                    str(cell.n_trials),
                    str(cell.absent_trials)
                    + (
                        f" ({len(cell.absent_scenarios)} scenarios with none)"
                        if cell.absent_scenarios
                        else ""
                    ),
                    str(cell.parse_failures),
                    f"{cell.judge_truncations} / {cell.subject_truncations}",
                    str(cell.scenarios_with_missing_label),
                ]
            )
    return Table(
        caption="Accuracy-at-K, compliance and consistency by model (and judge, when several "
        "labelled it) and condition: estimate [95% bootstrap CI over scenarios]; a trial whose "
        "judge reply was unusable (parse failure or truncation, after re-judging) counts as not "
        "a pass (§5.3), and so does a planned trial that is absent (K: the run's epochs, or for "
        "imported records the condition's largest trial count)",
        header=[
            "model",
            "condition",
            "accuracy-at-K",
            "compliance",
            "consistency",
            "n scenarios",
            "K",
            "n trials",
            "absent trials",
            "parse failures",
            "truncated judge / subject",
            "scenarios with a missing label",
        ],
        rows=rows,
    )


def absent_table(analysis: LosonaAnalysis) -> Table:
    """The scenario × condition units a log's header planned and not one trial of which was
    read (a run killed early, every epoch errored, a lost shard): each counts as K missing
    labels, so it fails, rather than dropping out of the mean."""
    return Table(
        caption="Planned scenarios with no trial read: each counts K absent trials (not a "
        "pass, §5.3), in its condition's accuracy, compliance and paired deltas",
        header=["model", "condition", "scenario", "absent trials"],
        rows=[
            [model, condition, scenario_id, str(cell.k)]
            for model, result in analysis.models.items()
            for condition, cell in result.conditions.items()
            for scenario_id in cell.absent_scenarios
        ],
    )


def _paired_cells(paired: PairedResult) -> list[str]:
    """A paired comparison's cells: delta, recovered, regressed, n scenarios."""
    return [
        format_delta(paired.delta),
        format_count(paired.recovered),
        format_count(paired.regressed),
        str(paired.n_scenarios),
    ]


def paired_table(analysis: LosonaAnalysis) -> Table:
    rows = []
    for model, result in analysis.models.items():
        for condition, paired in result.paired.items():
            if condition not in headline_conditions(result):
                continue
            rows.append([model, f"{condition} − {BASELINE_CONDITION}", *_paired_cells(paired)])
    return Table(
        caption="Paired effect vs naive over the same scenarios (accuracy-at-K): "
        "delta [95% paired bootstrap CI]; recovered = k/n of naive failures, "
        "regressed = k/n of naive successes",
        header=["model", "contrast", "delta", "recovered", "regressed", "n scenarios"],
        rows=rows,
    )


def breakdown_table(analysis: LosonaAnalysis, kind: str) -> Table:
    rows = []
    for model, result in analysis.models.items():
        cells = result.by_norm if kind == "norm" else result.by_event
        for condition in headline_conditions(result):
            for name, cell in cells.get(condition, {}).items():
                rows.append(
                    [
                        model,
                        condition,
                        name,
                        format_rate(cell),
                        str(cell.n),
                    ]
                )
    return Table(
        caption=f"Accuracy-at-K per {kind}: estimate [Wilson 95% CI] "
        "(diagnostic: few scenarios per cell)",
        header=["model", "condition", kind, "accuracy-at-K", "n scenarios"],
        rows=rows,
    )


def _conditions_in(analysis: LosonaAnalysis) -> list[str]:
    seen: list[str] = []
    for result in analysis.models.values():
        for condition in headline_conditions(result):
            if condition not in seen:
                seen.append(condition)
    return seen


def accuracy_figure(analysis: LosonaAnalysis) -> bytes:
    models = list(analysis.models)
    series = []
    for condition in _conditions_in(analysis):
        cells = [analysis.models[m].conditions.get(condition) for m in models]
        series.append(
            BarSeries(
                label=condition,
                values=[c.accuracy.value if c else None for c in cells],
                intervals=[c.accuracy.ci if c else (None, None) for c in cells],
            )
        )
    return grouped_bar_chart(
        models, series, "Accuracy-at-K by model and condition", "accuracy-at-K", ylim=(0.0, 1.0)
    )


def _pp(value: float | None) -> float | None:
    return None if value is None else 100 * value


def _delta_series(label: str, cells: Sequence[PairedResult | None]) -> BarSeries:
    """One bar per cell: a paired delta with its interval, in percentage points."""
    return BarSeries(
        label=label,
        values=[_pp(c.delta.value) if c else None for c in cells],
        intervals=[(_pp(c.delta.ci[0]), _pp(c.delta.ci[1])) if c else (None, None) for c in cells],
        annotations=[
            f"{100 * c.delta.value:+.1f} pp" if c and c.delta.value is not None else ""
            for c in cells
        ],
    )


def delta_figure(analysis: LosonaAnalysis) -> bytes:
    models = list(analysis.models)
    series = []
    for condition in _conditions_in(analysis):
        if condition == BASELINE_CONDITION:
            continue
        cells = [analysis.models[m].paired.get(condition) for m in models]
        series.append(_delta_series(condition, cells))
    return grouped_bar_chart(
        models,
        series,
        "Paired delta vs naive",
        "Δ accuracy-at-K (percentage points)",
        ylim=(-100.0, 100.0),
        baseline=0.0,
    )


def recovery_figure(analysis: LosonaAnalysis) -> bytes:
    groups: list[str] = []
    recovered: list[float | None] = []
    regressed: list[float | None] = []
    recovered_counts: list[str] = []
    regressed_counts: list[str] = []
    for model, result in analysis.models.items():
        for condition, paired in result.paired.items():
            if condition not in headline_conditions(result):
                continue
            groups.append(f"{model}\n{condition}")
            for (k, n), shares, counts in (
                (paired.recovered, recovered, recovered_counts),
                (paired.regressed, regressed, regressed_counts),
            ):
                shares.append(k / n if n else None)
                counts.append(f"{k}/{n}")
    return grouped_bar_chart(
        groups,
        [
            BarSeries("recovered naive failures", recovered, annotations=recovered_counts),
            BarSeries("introduced regressions", regressed, annotations=regressed_counts),
        ],
        "Recovered failures and introduced regressions vs naive",
        "share of naive failures / successes",
        ylim=(0.0, 1.0),
    )


def agent_table(analysis: LosonaAnalysis) -> Table:
    """Base model vs the same model with the agent, paired over the scenarios both ran."""
    rows = []
    for subject, comparison in analysis.agents.items():
        base, treated = analysis.models.get(comparison.model), analysis.models[subject]
        for condition, paired in comparison.paired.items():
            if condition in DEVELOPMENT_CONDITIONS:
                continue
            rows.append(
                [
                    comparison.model,
                    comparison.agent,
                    condition,
                    format_estimate(base.conditions[condition].accuracy) if base else "–",
                    format_estimate(treated.conditions[condition].accuracy),
                    *_paired_cells(paired),
                ]
            )
    return Table(
        caption="The norm-learning subject vs its model alone, per condition (accuracy-at-K, "
        "each over its own scenarios [95% bootstrap CI]); delta = agent − base over the "
        "scenarios both ran [95% paired bootstrap CI]; recovered = k/n of the base model's "
        "failures the agent passes, regressed = k/n of its successes the agent fails",
        header=[
            "model",
            "agent",
            "condition",
            "base",
            "with agent",
            "delta",
            "recovered",
            "regressed",
            "n scenarios",
        ],
        rows=rows,
    )


def has_agent_pairs(analysis: LosonaAnalysis) -> bool:
    return any(comparison.paired for comparison in analysis.agents.values())


def agent_inference_table(analysis: LosonaAnalysis) -> Table:
    return inference_table(
        (
            (subject, condition, summary)
            for subject, comparison in analysis.agents.items()
            for condition, summary in comparison.inference.items()
            if condition not in DEVELOPMENT_CONDITIONS
        ),
        "trial",
    )


def agent_delta_figure(analysis: LosonaAnalysis) -> bytes:
    conditions = _conditions_in(analysis)
    series = []
    for subject, comparison in analysis.agents.items():
        cells = [comparison.paired.get(condition) for condition in conditions]
        series.append(_delta_series(subject, cells))
    return grouped_bar_chart(
        conditions,
        series,
        "Norm-learning subject vs its model alone",
        "Δ accuracy-at-K, agent − base (percentage points)",
        ylim=(-100.0, 100.0),
        baseline=0.0,
    )


SAMPLE_TRACES = 3


def add_agent_section(report: HtmlReport, run: LosonaRun, analysis: LosonaAnalysis) -> None:
    """The comparison, what the agent inferred, and a few of its norm databases, reply by
    reply (read back from the samples' metadata)."""
    report.heading("Norm-learning subject vs base model")
    report.paragraph(
        "The norm-learning subject wraps the same model in CRSEC's architecture (identify "
        "normative information, the immediate evaluation, compliance with qualified norms). "
        "Whether that helps is what this section measures; it is not assumed.",
        "note",
    )
    if has_agent_pairs(analysis):
        report.table(agent_table(analysis))
        report.figure(
            agent_delta_figure(analysis),
            "Paired delta, agent − base, per condition (95% paired bootstrap CIs).",
        )
    else:
        report.paragraph(
            "No base run of the same model was given: pass both runs' logs to compare.", "note"
        )
    report.table(agent_inference_table(analysis))
    shown = 0
    for item in run.samples.samples:
        meta = SampleMeta.of(item.sample)
        if meta is None or meta.norm_memory is None or shown >= SAMPLE_TRACES:
            continue
        shown += 1
        report.paragraph(
            f"{meta.scenario_id} ({meta.condition}, trial "
            f"{item.sample.epoch}): reply {item.sample.output.completion!r}",
            "note",
        )
        report.preformatted(memory_trace(meta.norm_memory))


def settings_table(analysis: LosonaAnalysis) -> Table:
    """What each model ran at: temperatures (§6) and the judge prompt used."""
    return Table(
        caption="Sampling settings: the temperature each model ran at ('provider default': none "
        "sent) and the judge prompt (Appendix C, with or without our edge-case addenda)",
        header=["subject model", "subject temperature", "judge", "judge temperature", "addenda"],
        rows=[
            [
                result.subject,
                ", ".join(result.temperatures.get("subject", [])),
                result.judge,
                ", ".join(result.temperatures.get("judge", [])),
                result.judge_addenda,
            ]
            for result in analysis.models.values()
        ],
    )


def has_headline_pairs(analysis: LosonaAnalysis) -> bool:
    """True when some model has a paired delta for a reported (non-development) condition."""
    return any(
        condition in headline_conditions(result)
        for result in analysis.models.values()
        for condition in result.paired
    )


def build_report(run: LosonaRun, analysis: LosonaAnalysis, sources: list[str]) -> HtmlReport:
    report = HtmlReport("LoSoNA results")
    judges = sorted({result.judge for result in analysis.models.values()})
    subjects = sorted({result.subject for result in analysis.models.values()})
    add_common_sections(
        report,
        {"subject": subjects, "judge": judges},
        sources,
        run.samples.skipped,
        analysis.data,
        variants_by_run(run.samples),
    )
    if analysis.development_conditions:
        report.banner(
            "Development-only conditions present ("
            + ", ".join(analysis.development_conditions)
            + "): they are excluded from every table and figure below."
        )
    report.paragraph(
        f"Subject models: {', '.join(subjects)}. Judge models: {', '.join(judges)}.",
        "note",
    )
    report.table(settings_table(analysis))
    report.heading("Accuracy-at-K")
    report.table(headline_table(analysis))
    absent = absent_table(analysis)
    if absent.rows:
        report.table(absent)
    report.figure(accuracy_figure(analysis), "Figure 2: accuracy-at-K, 95% scenario-bootstrap CIs.")
    if has_headline_pairs(analysis):
        report.heading("Effect of prompting vs naive")
        report.table(paired_table(analysis))
        report.figure(delta_figure(analysis), "Figure 3: paired delta vs naive, 95% CIs.")
        report.figure(
            recovery_figure(analysis),
            "Figure 4: recovered naive failures (k/n of naive failures) and introduced "
            "regressions (k/n of naive successes); counts in the table above.",
        )
    if analysis.agents:
        add_agent_section(report, run, analysis)
    add_provenance_section(
        report,
        ((key, item.provenance) for key, item in run.scenarios.items() if item.provenance),
    )
    report.heading("Per norm")
    report.table(breakdown_table(analysis, "norm"))
    report.heading("Per event")
    report.table(breakdown_table(analysis, "event"))
    add_usage_section(report, analysis.usage, "trial")
    return report


def write_report(run: LosonaRun, analysis: LosonaAnalysis, out_dir: Path) -> Path:
    sources = [str(path) for path in run.files]
    return build_report(run, analysis, sources).write(out_dir / "report.html")
