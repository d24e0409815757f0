"""SCENE report: repair rates, adaptation, opposing pairs, fidelity, usage, sample episodes.

Figures: repair rate by model and by sanction modality (Wilson 95% CIs),
Spearman ρ(d, b) by model (bootstrap 95% CIs), compliance per norm pole for the
opposing pairs. Tables carry every k/n. Sample transcripts show the judge's
labels beside each turn, like the paper's Appendix C.
"""

from __future__ import annotations

from pathlib import Path

from normlab.report import (
    BarSeries,
    HtmlReport,
    Table,
    add_common_sections,
    add_usage_section,
    format_estimate,
    format_rate,
    grouped_bar_chart,
)
from normlab.scene.analysis import (
    BehaviourView,
    EpisodeRecord,
    ModelResult,
    SceneAnalysis,
    SceneRun,
)
from normlab.scene.prompts import marked_transcript
from normlab.scene.schemas import Episode, EpisodeLabels

SAMPLE_TRANSCRIPTS = 3


def annotated_transcript(episode: Episode, labels: EpisodeLabels) -> str:
    """The chat with the judge's label after each labelled turn, by round."""
    marks: dict[int, str] = {}
    for name, turns in (
        ("DEMONSTRATION", labels.demonstrations),
        ("BREACH", labels.breaches),
        ("SANCTION", labels.sanctions),
        ("REPAIR", labels.repairs),
        ("SP BREACH", labels.persona_breaches),
    ):
        for turn in turns or []:
            marks[turn] = name
    return marked_transcript(episode, marks, rounds=True)


VIEWS = (
    ("all_episodes", "all episodes (headline, §5.4)"),
    ("valid_only", "VALID only (B.7)"),
)


def views(summary: ModelResult) -> list[tuple[str, BehaviourView]]:
    return [(label, getattr(summary, name)) for name, label in VIEWS]


def headline_table(analysis: SceneAnalysis) -> Table:
    rows = []
    for model, summary in analysis.models.items():
        for label, view in views(summary):
            rho = view.adaptation
            rows.append(
                [
                    model,
                    label,
                    str(view.episodes),
                    format_rate(view.repair),
                    format_estimate(rho, digits=2, percent=False),
                    str(rho.n),
                ]
            )
    return Table(
        caption="Repair rate (Wilson 95% CI, k/n sanctions) and adaptation ρ(d, b) (bootstrap "
        "95% CI over episodes), on all episodes (the headline: fidelity qualifies, it does not "
        "exclude, §5.4) and on VALID episodes only (B.7)",
        header=["model", "episodes counted", "n", "repair", "ρ(d, b)", "n for ρ"],
        rows=rows,
    )


def episodes_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [
            model,
            ", ".join(summary.labellers),
            str(summary.episodes),
            " ".join(f"{k}:{v}" for k, v in summary.validity.items()),
            str(summary.unlabelled_episodes),
            ", ".join(f"{k}={v}" for k, v in summary.sweep.items()) or "–",
        ]
        for model, summary in analysis.models.items()
    ]
    return Table(
        caption="Episodes: fidelity verdicts (UNKNOWN: the auditor's reply was unusable), "
        "episodes the labeller could not label, and how the sweep chose its episodes",
        header=["model", "labeller", "episodes", "validity", "unlabelled", "sweep"],
        rows=rows,
    )


def sanction_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [model, label, sanction, format_rate(rate)]
        for model, summary in analysis.models.items()
        for label, view in views(summary)
        for sanction, rate in view.repair_by_sanction.items()
    ]
    return Table(
        caption="Repair rate per sanction modality",
        header=["model", "episodes counted", "sanction", "repair"],
        rows=rows,
    )


def pairs_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [
            model,
            label,
            pair.pole_a,
            format_rate(pair.compliance_a),
            pair.pole_b,
            format_rate(pair.compliance_b),
        ]
        for model, summary in analysis.models.items()
        for label, view in views(summary)
        for pair in view.opposing_pairs
    ]
    return Table(
        caption="Compliance per norm pole (share of episodes without a subject breach)",
        header=["model", "episodes counted", "pole a", "compliance a", "pole b", "compliance b"],
        rows=rows,
    )


def fidelity_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [
            model,
            format_rate(summary.fidelity.persona_breach),
            format_rate(summary.fidelity.sanction_delivered),
            format_rate(summary.fidelity.sanction_shape_match),
        ]
        for model, summary in analysis.models.items()
    ]
    return Table(
        caption="Fidelity over all labelled episodes (§5.4): episodes with a scripted-persona "
        "breach (the staged precedent excluded); breached episodes that drew a sanction; "
        "sanctioned episodes whose sanction took the tuple's modality (from each sanction's "
        "observed form)",
        header=["model", "SP breach", "sanction delivered", "shape match"],
        rows=rows,
    )


def failures_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [model, role, str(item.parse_failures), str(item.truncations)]
        for model, summary in analysis.models.items()
        for role, item in summary.call_failures.items()
    ]
    return Table(
        caption="Replies that could not be used, by role: parse failures (after the repair "
        "retry; played as no-ops or recorded as missing labels) and truncations (cut at the "
        "output cap after the larger-cap retry)",
        header=["model", "role", "parse failures", "truncations"],
        rows=rows,
    )


def prompt_reuse_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [model, role, "–" if share is None else f"{share:.0%}"]
        for model, result in analysis.models.items()
        for role, share in result.prompt_reuse.items()
    ]
    return Table(
        caption="Prompt reuse by role: share of prompt characters repeating the same caller's "
        "previous prompt (append-only layout; what a prefix cache can reuse)",
        header=["model", "role", "shared prefix"],
        rows=rows,
    )


def repair_figure(analysis: SceneAnalysis) -> bytes:
    models = list(analysis.models)
    headline = [analysis.models[m].all_episodes for m in models]
    sanctions = sorted({s for view in headline for s in view.repair_by_sanction})
    series = [
        BarSeries.of_rates("all sanctions", [view.repair for view in headline]),
        BarSeries.of_rates(
            "all sanctions, VALID only", [analysis.models[m].valid_only.repair for m in models]
        ),
    ]
    for sanction in sanctions:
        rates = [view.repair_by_sanction.get(sanction) for view in headline]
        series.append(BarSeries.of_rates(sanction, rates))
    return grouped_bar_chart(models, series, "Repair rate after sanctioning", "repair rate", (0, 1))


def rho_figure(analysis: SceneAnalysis) -> bytes:
    models = list(analysis.models)
    adaptation = [analysis.models[m].all_episodes.adaptation for m in models]
    return grouped_bar_chart(
        models,
        [
            BarSeries(
                "ρ(d, b)",
                [a.value for a in adaptation],
                [a.ci for a in adaptation],
                annotations=[
                    f"{a.value:+.2f} (n={a.n})" if a.value is not None else f"n/a (n={a.n})"
                    for a in adaptation
                ],
            )
        ],
        "Adaptation: Spearman ρ(d, b)",
        "ρ",
        (-1, 1),
        baseline=0.0,
    )


def pairs_figure(analysis: SceneAnalysis) -> bytes:
    groups, pole_a, pole_b = [], [], []
    several = len(analysis.models) > 1
    for model, summary in analysis.models.items():
        for pair in summary.all_episodes.opposing_pairs:
            prefix = f"{model}\n" if several else ""
            groups.append(f"{prefix}{pair.pole_a} /\n{pair.pole_b}")
            pole_a.append(pair.compliance_a)
            pole_b.append(pair.compliance_b)
    return grouped_bar_chart(
        groups,
        [BarSeries.of_rates("pole a", list(pole_a)), BarSeries.of_rates("pole b", list(pole_b))],
        "Opposing pairs: compliance per pole",
        "compliance",
        (0, 1),
    )


def build_report(run: SceneRun, analysis: SceneAnalysis) -> HtmlReport:
    report = HtmlReport("SCENE results")
    role_models: dict[str, set[str]] = {"subject": set(analysis.models)}
    for record in run.records:
        for role, model in record.roles.items():
            role_models.setdefault(role, set()).add(model)
    add_common_sections(report, role_models, run.samples.paths, run.samples.skipped)
    report.paragraph(
        "Headline: every labelled episode (§5.4: fidelity qualifies the behavioural measures, "
        "it does not exclude episodes). Each behavioural metric is also shown on VALID "
        "episodes only (B.7).",
        "note",
    )
    report.table(episodes_table(analysis))
    report.heading("Repair and adaptation")
    report.table(headline_table(analysis))
    report.figure(
        repair_figure(analysis),
        "Repair rate by model and sanction, all episodes; all sanctions also on VALID "
        "episodes only (Wilson 95% CIs).",
    )
    report.table(sanction_table(analysis))
    report.figure(
        rho_figure(analysis), "Spearman ρ(d, b) by model, all episodes (bootstrap 95% CIs)."
    )
    report.heading("Opposing norm pairs")
    report.table(pairs_table(analysis))
    report.figure(
        pairs_figure(analysis), "Compliance per norm pole, all episodes (Wilson 95% CIs)."
    )
    report.heading("Fidelity")
    report.table(fidelity_table(analysis))
    report.table(failures_table(analysis))
    add_usage_section(report, analysis.usage, "episode")
    report.table(prompt_reuse_table(analysis))
    report.heading("Sample episodes")
    for record in run.records[:SAMPLE_TRANSCRIPTS]:
        add_sample_episode(report, record)
    return report


def add_sample_episode(report: HtmlReport, record: EpisodeRecord) -> None:
    outcome, t = record.outcome, record.outcome.tuple
    report.paragraph(
        f"{outcome.scenario_id} — subject {outcome.subject_model}; event={t.event}, "
        f"norm={t.norm}, elicitor={t.elicitor}, sanction={t.sanction}, "
        f"precedent={t.precedent}; validity {outcome.validity}; {outcome.breaches} breaches, "
        f"{outcome.sanctions} sanctions, {outcome.repaired} repaired "
        f"(labeller: {outcome.labeller})",
        "note",
    )
    report.preformatted(annotated_transcript(record.episode, record.labels))


def write_report(run: SceneRun, analysis: SceneAnalysis, out_dir: Path) -> Path:
    return build_report(run, analysis).write(out_dir / "report.html")
