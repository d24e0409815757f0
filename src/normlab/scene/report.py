"""SCENE report: repair rates, adaptation, opposing pairs, fidelity, usage, sample episodes.

Figures: repair rate by model and by sanction modality (Wilson 95% CIs),
Spearman ρ(d, b) by model (bootstrap 95% CIs), compliance per norm pole for the
opposing pairs. Tables carry every k/n. Sample transcripts show the judge's
labels beside each turn, like the paper's Appendix C, with the staged precedent's labels
inside its staged mark so that the marks add up to the counts above them. A norm-learning
subject is set beside its model alone (repair, ρ(d, b), compliance per pole, with
agent − base), with what it inferred and its norm database reply by reply. Scenarios
exported from a CRSEC society (``normlab crsec export``) are listed with their provenance.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from normlab.core.logs import variants_by_run
from normlab.core.provenance import ScenarioProvenance
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
from normlab.report.provenance import add_provenance_section
from normlab.scene.agent_report import add_agent_section
from normlab.scene.analysis import (
    EpisodeRecord,
    ModelResult,
    SceneAnalysis,
    SceneRun,
)
from normlab.scene.meta import SampleMeta
from normlab.scene.prompts import marked_transcript
from normlab.scene.rules import BehaviourView, label_lists, staged_turns
from normlab.scene.schemas import Episode, EpisodeLabels

SAMPLE_TRANSCRIPTS = 3


def label_notes(labels: EpisodeLabels) -> dict[int, list[str]]:
    """Every label of each turn (the list classifier can give a turn two), a sanction with its
    observed form when known, so the reader can check the shape match against the tuple."""
    notes: dict[int, list[str]] = defaultdict(list)
    forms = labels.sanction_modalities or {}
    for name, turns in label_lists(labels):
        for turn in turns:
            form = forms.get(turn) if name == "SANCTION" else None
            notes[turn].append(f"{name} ({form})" if form else name)
    return dict(notes)


def annotated_transcript(episode: Episode, labels: EpisodeLabels) -> str:
    """The chat with the judge's labels after each labelled turn (``## LABEL``), by round.

    The staged precedent's turns carry their labels inside the staged mark instead: the
    metrics set them apart (they are evidence for the subject, counted only as demonstrations
    for d), so the ``##`` marks are exactly the breaches, sanctions and repairs counted.
    """
    return marked_transcript(episode, label_notes(labels), rounds=True)


def staged_summary(episode: Episode, labels: EpisodeLabels) -> str:
    """What the labeller said of the staged precedent, for the sample's header: counted apart
    from the subject's breaches and sanctions (A.6: evidence the subject is meant to see)."""
    staged = staged_turns(episode)
    if not staged:
        return ""
    counts = [
        f"{len(staged.intersection(turns))} {name}"
        for name, turns in label_lists(labels)
        if staged.intersection(turns)
    ]
    labelled = f", labelled {', '.join(counts)}" if counts else ""
    return (
        f"; staged precedent: {len(staged)} turns{labelled} (set apart: never the subject's "
        f"breaches or sanctions, counted only as demonstrations for d)"
    )


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
        "sanctioned episodes whose sanctions all took the tuple's modality and no other (B.6, "
        "B.7: 'ONLY'; from each sanction's observed form; episodes with a form unknown and no "
        "mismatch left out)",
        header=["model", "SP breach", "sanction delivered", "shape match"],
        rows=rows,
    )


def _role_rows(
    analysis: SceneAnalysis, cells: Callable[[ModelResult], dict[str, list[str]]]
) -> list[list[str]]:
    """One row per model and role: the model, the role, then the role's ``cells``."""
    return [
        [model, role, *row]
        for model, summary in analysis.models.items()
        for role, row in cells(summary).items()
    ]


def failures_table(analysis: SceneAnalysis) -> Table:
    return Table(
        caption="Replies that could not be used, by role: parse failures (after the repair "
        "retry; played as no-ops or recorded as missing labels) and truncations (cut at the "
        "output cap after the larger-cap retry)",
        header=["model", "role", "parse failures", "truncations"],
        rows=_role_rows(
            analysis,
            lambda summary: {
                role: [str(item.parse_failures), str(item.truncations)]
                for role, item in summary.call_failures.items()
            },
        ),
    )


def prompt_reuse_table(analysis: SceneAnalysis) -> Table:
    return Table(
        caption="Prompt reuse by role: share of prompt characters repeating the same caller's "
        "previous prompt (append-only layout; what a prefix cache can reuse)",
        header=["model", "role", "shared prefix"],
        rows=_role_rows(
            analysis,
            lambda summary: {
                role: ["–" if share is None else f"{share:.0%}"]
                for role, share in summary.prompt_reuse.items()
            },
        ),
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


def exported_scenarios(run: SceneRun) -> list[tuple[str, ScenarioProvenance]]:
    """The scenarios of the run's samples that were exported from a CRSEC society."""
    found = []
    for item in run.samples.samples:
        meta = SampleMeta.of(item.sample)
        if meta is not None and meta.scenario.provenance is not None:
            found.append((meta.scenario.scenario_id, meta.scenario.provenance))
    return found


def build_report(run: SceneRun, analysis: SceneAnalysis) -> HtmlReport:
    report = HtmlReport("SCENE results")
    role_models: dict[str, set[str]] = {"subject": set(analysis.models)}
    for record in run.records:
        for role, model in record.roles.items():
            role_models.setdefault(role, set()).add(model)
    add_common_sections(
        report,
        role_models,
        run.samples.paths,
        run.samples.skipped,
        analysis.data,
        variants_by_run(run.samples),
    )
    report.paragraph(
        "Headline: every labelled episode (§5.4: fidelity qualifies the behavioural measures, "
        "it does not exclude episodes). Each behavioural metric is also shown on VALID "
        "episodes only (B.7).",
        "note",
    )
    report.table(episodes_table(analysis))
    add_provenance_section(report, exported_scenarios(run))
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
    if analysis.agents:
        add_agent_section(report, run, analysis)
    report.heading("Fidelity")
    report.table(fidelity_table(analysis))
    report.table(failures_table(analysis))
    add_usage_section(report, analysis.usage, "episode")
    report.table(prompt_reuse_table(analysis))
    report.heading("Sample episodes")
    report.paragraph(
        "Each turn's labels follow it as ## LABEL (a sanction with its observed form); the "
        "counts above each transcript are those marks. The precedent sub-script's staged turns "
        "carry their labels inside their (staged precedent; labelled …) mark instead: they are "
        "evidence the subject sees, counted only as demonstrations for d.",
        "note",
    )
    for record in run.records[:SAMPLE_TRANSCRIPTS]:
        add_sample_episode(report, record)
    return report


SHAPE_MATCH = {True: "yes", False: "no", None: "–"}
"""The episode's shape match: –, no sanction of a subject breach or a form unknown."""


def add_sample_episode(report: HtmlReport, record: EpisodeRecord) -> None:
    """The episode's tuple, verdict and counts, then its transcript: the counts are those of
    the transcript's ``##`` marks (staged turns are summed apart, as the metrics set them)."""
    outcome, t = record.outcome, record.outcome.tuple
    report.paragraph(
        f"{outcome.scenario_id} — subject {outcome.subject}; event={t.event}, "
        f"norm={t.norm}, elicitor={t.elicitor}, sanction={t.sanction}, "
        f"precedent={t.precedent}; validity {outcome.validity}; {outcome.breaches} breaches, "
        f"{outcome.sanctions} sanctions, {outcome.repaired} repaired, "
        f"shape match {SHAPE_MATCH[outcome.sanction_shape_match]}"
        f"{staged_summary(record.episode, record.labels)} (labeller: {outcome.labeller})",
        "note",
    )
    report.preformatted(annotated_transcript(record.episode, record.labels))


def write_report(run: SceneRun, analysis: SceneAnalysis, out_dir: Path) -> Path:
    return build_report(run, analysis).write(out_dir / "report.html")
