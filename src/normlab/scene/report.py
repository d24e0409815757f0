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
    format_estimate,
    grouped_bar_chart,
)
from normlab.scene.analysis import EpisodeOutcome, Rate, SceneAnalysis
from normlab.scene.episode import Episode, render_entry
from normlab.scene.judging import EpisodeLabels

EMBEDDED_BANNER = (
    "Some roles in this run were played by the embedded Qwen2.5-Coder-0.5B model. It is a "
    "plumbing check: its personas, labels and audits are not evidence about the subject."
)


def format_rho(rho: float | None, ci: tuple[float | None, float | None]) -> str:
    lo, hi = ci
    if rho is None:
        return "–"
    interval = "[–]" if lo is None or hi is None else f"[{lo:+.2f}, {hi:+.2f}]"
    return f"{rho:+.2f} {interval}"


def annotated_transcript(episode: Episode, labels: EpisodeLabels) -> str:
    """The chat with the judge's label after each labelled turn (subject turns starred)."""
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
    lines = []
    for entry in episode.entries:
        star = "*" if entry.actor == episode.subject else ""
        text = render_entry(entry).replace(f"] {entry.actor}", f"] {entry.actor}{star}", 1)
        lines.append(
            f"r{entry.round} {text}"
            + (f"   ## {marks[entry.turn_id]}" if entry.turn_id in marks else "")
        )
    return "\n".join(lines)


def _rate(rate: Rate) -> str:
    return f"{format_estimate(rate.rate, rate.ci)} ({rate.k}/{rate.n})"


def headline_table(analysis: SceneAnalysis) -> Table:
    rows = []
    for model, summary in analysis.models.items():
        rho = summary.adaptation
        rows.append(
            [
                model,
                ", ".join(summary.labellers),
                str(summary.episodes),
                " ".join(f"{k}:{v}" for k, v in sorted(summary.validity.items())),
                _rate(summary.repair),
                _rate(summary.repair_partial),
                format_rho(rho.rho, rho.ci),
                str(rho.n_episodes),
            ]
        )
    return Table(
        caption="Repair rate (Wilson 95% CI, k/n sanctions) and adaptation ρ(d, b) "
        "(bootstrap 95% CI over episodes)",
        header=[
            "model",
            "labeller",
            "episodes",
            "validity",
            "repair (headline)",
            "repair (partial episodes)",
            "ρ(d, b)",
            "n for ρ",
        ],
        rows=rows,
    )


def sanction_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [model, sanction, _rate(rate)]
        for model, summary in analysis.models.items()
        for sanction, rate in summary.repair_by_sanction.items()
    ]
    return Table(
        caption="Repair rate per sanction modality",
        header=["model", "sanction", "repair"],
        rows=rows,
    )


def pairs_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [model, pair.pole_a, _rate(pair.compliance_a), pair.pole_b, _rate(pair.compliance_b)]
        for model, summary in analysis.models.items()
        for pair in summary.opposing_pairs
    ]
    return Table(
        caption="Compliance per norm pole (share of episodes without a subject breach)",
        header=["model", "pole a", "compliance a", "pole b", "compliance b"],
        rows=rows,
    )


def fidelity_table(analysis: SceneAnalysis) -> Table:
    rows = [
        [
            model,
            _rate(summary.persona_breach),
            _rate(summary.sanction_delivered),
            _rate(summary.sanction_shape_match),
            str(summary.unlabelled_episodes),
        ]
        for model, summary in analysis.models.items()
    ]
    return Table(
        caption="Fidelity: episodes with a scripted-persona breach; breached episodes with a "
        "sanction; with the sanction shape of the tuple",
        header=["model", "SP breach", "sanction delivered", "shape match", "unlabelled episodes"],
        rows=rows,
    )


def usage_table(analysis: SceneAnalysis) -> Table:
    rows = []
    for model, summary in analysis.models.items():
        for role, usage in summary.usage_by_role.items():
            share = "–" if usage.shared_prefix_share is None else f"{usage.shared_prefix_share:.0%}"
            cached = "–" if usage.cached_input_share is None else f"{usage.cached_input_share:.0%}"
            rows.append(
                [
                    model,
                    role,
                    f"{usage.calls_per_episode:.1f}",
                    f"{usage.input_tokens_per_episode:.0f}",
                    f"{usage.output_tokens_per_episode:.0f}",
                    share,
                    cached,
                ]
            )
    return Table(
        caption="Model calls and tokens per episode by role; shared prefix: share of prompt "
        "characters repeating the same caller's previous prompt (append-only layout); cached: "
        "share of input tokens the provider served from its prompt cache",
        header=[
            "model",
            "role",
            "calls",
            "input tokens",
            "output tokens",
            "shared prefix",
            "cached",
        ],
        rows=rows,
    )


def _rate_series(label: str, rates: list[Rate | None]) -> BarSeries:
    """Bars of rates with their Wilson CIs, each labelled k/n (so 0/n and n/a read apart)."""
    return BarSeries(
        label,
        [r.rate if r else None for r in rates],
        [r.ci if r else (None, None) for r in rates],
        annotations=[f"{r.k}/{r.n}" if r else "" for r in rates],
    )


def all_roles_table(analysis: SceneAnalysis) -> Table:
    rows = []
    for model, roles in analysis.all_roles_per_episode.items():
        for role, usage in roles.items():
            rows.append(
                [
                    model,
                    role,
                    f"{usage.calls:.1f}",
                    f"{usage.input_tokens:.0f}",
                    f"{usage.cached_input_share:.0%}",
                    f"{usage.output_tokens:.0f}",
                    "unknown" if usage.cost is None else f"${usage.cost:.4f}",
                ]
            )
    return Table(
        caption="Every role per episode, judge and auditor included (Inspect's model events); "
        "cost where Inspect knows the model's price",
        header=["model", "role", "calls", "input tokens", "cached", "output tokens", "cost"],
        rows=rows,
    )


def repair_figure(analysis: SceneAnalysis) -> bytes:
    models = list(analysis.models)
    sanctions = sorted({s for m in analysis.models.values() for s in m.repair_by_sanction})
    series = [_rate_series("all sanctions", [analysis.models[m].repair for m in models])]
    for sanction in sanctions:
        rates = [analysis.models[m].repair_by_sanction.get(sanction) for m in models]
        series.append(_rate_series(sanction, rates))
    return grouped_bar_chart(models, series, "Repair rate after sanctioning", "repair rate", (0, 1))


def rho_figure(analysis: SceneAnalysis) -> bytes:
    models = list(analysis.models)
    adaptation = [analysis.models[m].adaptation for m in models]
    return grouped_bar_chart(
        models,
        [
            BarSeries(
                "ρ(d, b)",
                [a.rho for a in adaptation],
                [a.ci for a in adaptation],
                annotations=[
                    f"{a.rho:+.2f} (n={a.n_episodes})"
                    if a.rho is not None
                    else f"n/a (n={a.n_episodes})"
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
        for pair in summary.opposing_pairs:
            prefix = f"{model}\n" if several else ""
            groups.append(f"{prefix}{pair.pole_a} /\n{pair.pole_b}")
            pole_a.append(pair.compliance_a)
            pole_b.append(pair.compliance_b)
    return grouped_bar_chart(
        groups,
        [_rate_series("pole a", list(pole_a)), _rate_series("pole b", list(pole_b))],
        "Opposing pairs: compliance per pole",
        "compliance",
        (0, 1),
    )


def build_report(
    analysis: SceneAnalysis,
    transcripts: list[tuple[EpisodeOutcome, str]],
    sources: list[str],
    embedded_roles: bool,
) -> HtmlReport:
    report = HtmlReport("SCENE results")
    if embedded_roles:
        report.banner(EMBEDDED_BANNER)
    report.paragraph(f"Sources: {', '.join(sources)}.", "note")
    report.heading("Repair and adaptation")
    report.table(headline_table(analysis))
    report.figure(repair_figure(analysis), "Repair rate by model and sanction (Wilson 95% CIs).")
    report.table(sanction_table(analysis))
    report.figure(rho_figure(analysis), "Spearman ρ(d, b) by model (bootstrap 95% CIs).")
    report.heading("Opposing norm pairs")
    report.table(pairs_table(analysis))
    report.figure(pairs_figure(analysis), "Compliance per norm pole (Wilson 95% CIs).")
    report.heading("Fidelity")
    report.table(fidelity_table(analysis))
    report.heading("Cost")
    report.table(all_roles_table(analysis))
    report.table(usage_table(analysis))
    report.heading("Sample episodes")
    for outcome, transcript in transcripts:
        t = outcome.tuple
        report.paragraph(
            f"{outcome.scenario_id} — subject {outcome.subject_model}; event={t.event}, "
            f"norm={t.norm}, elicitor={t.elicitor}, sanction={t.sanction}, "
            f"precedent={t.precedent}; validity {outcome.validity}; {outcome.breaches} breaches, "
            f"{outcome.sanctions} sanctions, {outcome.repaired} repaired "
            f"(labeller: {outcome.labeller})",
            "note",
        )
        report.preformatted(transcript)
    return report


def write_report(
    analysis: SceneAnalysis,
    transcripts: list[tuple[EpisodeOutcome, str]],
    sources: list[str],
    embedded_roles: bool,
    out_dir: Path,
) -> Path:
    return build_report(analysis, transcripts, sources, embedded_roles).write(
        out_dir / "report.html"
    )
