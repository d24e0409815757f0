"""SCENE report, the norm-learning subject's part: the subject set beside its model alone
(repair, ρ(d, b), compliance per pole, with agent − base), with what it inferred and its
norm database reply by reply. Apart from ``normlab.scene.report`` because only runs with
``--agent`` have it."""

from __future__ import annotations

from normlab.agents import inference_table, memory_trace
from normlab.report import (
    BarSeries,
    HtmlReport,
    Table,
    format_delta,
    format_estimate,
    format_number,
    format_rate,
    grouped_bar_chart,
)
from normlab.scene.analysis import AgentComparison, SceneAnalysis, SceneRun
from normlab.stats import Estimate, Rate

TRACED_EPISODES = 3
"""Episodes whose norm database is traced reply by reply (as many as sample transcripts)."""


def _rho(estimate: Estimate) -> str:
    return format_estimate(estimate, digits=2, percent=False)


def comparison_rows(comparison: AgentComparison) -> list[list[str]]:
    head = [comparison.model, comparison.agent]
    scope = f"{comparison.scenarios} ({comparison.episodes[0]} / {comparison.episodes[1]})"
    rows = [
        [
            *head,
            "repair rate",
            format_rate(comparison.repair.base),
            format_rate(comparison.repair.agent),
            format_delta(comparison.repair.delta),
            scope,
        ],
        [
            *head,
            "ρ(d, b)",
            f"{_rho(comparison.adaptation.base)} (n={comparison.adaptation.base.n})",
            f"{_rho(comparison.adaptation.agent)} (n={comparison.adaptation.agent.n})",
            format_number(comparison.adaptation.delta.value, digits=2),
            scope,
        ],
        [
            *head,
            "compliance (no subject breach)",
            format_rate(comparison.compliance.base),
            format_rate(comparison.compliance.agent),
            format_delta(comparison.compliance.delta),
            scope,
        ],
    ]
    for pole in comparison.poles:
        rows.append(
            [
                *head,
                f"compliance, pole {pole.pole}",
                format_rate(pole.base),
                format_rate(pole.agent),
                format_delta(pole.delta),
                scope,
            ]
        )
    return rows


def agent_table(analysis: SceneAnalysis) -> Table:
    """Base model vs the same model with the agent, over the scenarios both ran."""
    return Table(
        caption="The norm-learning subject vs its model alone, over the scenarios both ran "
        "(every labelled episode): repair and compliance as k/n [Wilson 95% CI], ρ(d, b) "
        "[bootstrap 95% CI]; delta = agent − base, in pp for rates, paired over scenarios "
        "[95% bootstrap CI] for repair and compliance, a point difference for ρ and for the "
        "poles (few episodes per pole)",
        header=[
            "model",
            "agent",
            "measure",
            "base",
            "with agent",
            "delta",
            "scenarios (episodes base / agent)",
        ],
        rows=[
            row for comparison in analysis.agents.values() for row in comparison_rows(comparison)
        ],
    )


def agent_inference_table(analysis: SceneAnalysis) -> Table:
    return inference_table(
        ((subject, "all episodes", c.inference) for subject, c in analysis.agents.items()),
        "episode",
    )


def agent_figure(analysis: SceneAnalysis) -> bytes:
    groups: list[str] = []
    base: list[Rate | None] = []
    treated: list[Rate | None] = []
    several = len(analysis.agents) > 1
    for subject, comparison in analysis.agents.items():
        prefix = f"{subject}\n" if several else ""
        measures = [
            ("repair", comparison.repair.base, comparison.repair.agent),
            ("compliance", comparison.compliance.base, comparison.compliance.agent),
            *((f"pole {p.pole}", p.base, p.agent) for p in comparison.poles),
        ]
        for name, base_rate, treated_rate in measures:
            groups.append(prefix + name)
            base.append(base_rate)
            treated.append(treated_rate)
    return grouped_bar_chart(
        groups,
        [BarSeries.of_rates("base", base), BarSeries.of_rates("with agent", treated)],
        "Norm-learning subject vs its model alone",
        "rate",
        (0, 1),
    )


def add_agent_section(report: HtmlReport, run: SceneRun, analysis: SceneAnalysis) -> None:
    """The comparison, what the agent inferred, and its norm database in a few episodes."""
    report.heading("Norm-learning subject vs base model")
    report.paragraph(
        "The norm-learning subject wraps the same model in CRSEC's architecture (identify "
        "normative information in the chat before each action, the immediate evaluation, "
        "compliance with qualified norms). Whether that helps is what this section measures; "
        "it is not assumed.",
        "note",
    )
    if any(comparison.scenarios for comparison in analysis.agents.values()):
        report.table(agent_table(analysis))
        report.figure(
            agent_figure(analysis),
            "Repair and compliance (overall and per pole), base vs with agent, over the "
            "scenarios both ran (Wilson 95% CIs).",
        )
    else:
        report.paragraph(
            "No base run of the same model on these scenarios was given: pass both runs' logs "
            "to compare.",
            "note",
        )
    report.table(agent_inference_table(analysis))
    traced = [record for record in run.records if record.episode.norm_memory is not None]
    for record in traced[:TRACED_EPISODES]:
        memory = record.episode.norm_memory
        if memory is None:
            continue
        held = record.norm_inference
        verdict = (
            "unjudged"
            if held is None
            else f"held the hidden norm at its last reply: {'yes' if held.held else 'no'}"
        )
        report.paragraph(f"{record.episode_id or record.outcome.scenario_id}: {verdict}", "note")
        report.preformatted(memory_trace(memory))
