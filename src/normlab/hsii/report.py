"""HSII report: Table 1 and Table 2 shapes with n and intervals, Figures 3 and 5, sample cases.

- Table 1: r1–r4 and the HSII score per model, each with its 95% bootstrap
  interval over cases, the counts behind each rate, and the form of the score
  (Table 1's or Eq. 1's as printed) named in the caption;
- breakdowns per domain and per number of characters;
- Table 2 (when COT logs are included): success without and with COT, solved
  within the cap, COT complexity and rounds to 0.70, the cap beside every row;
- Figures 3 and 5 (the dataset map and cluster radar) from ``clusters.json``
  beside the logs, else the shipped bank's;
- sample cases: the history (who speaks to whom), the subject's pick and
  statement beside the golden, the judge's reasons, and the long run.
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.jsonio import read_json, validate_row
from normlab.core.logs import LogSample, variants_by_run
from normlab.hsii.analysis import HsiiAnalysis, HsiiRun, StageResult
from normlab.hsii.clusters import ClusterAnalysis, for_cases, map_figure, radar_figure
from normlab.hsii.cot import TARGET_ACCURACY
from normlab.hsii.dataset import DATA
from normlab.hsii.meta import SampleMeta
from normlab.hsii.prompts import history_text, statement_line
from normlab.hsii.rules import Outcome
from normlab.hsii.scorer import golden_statement
from normlab.report import (
    HtmlReport,
    Table,
    add_common_sections,
    add_usage_section,
    format_number,
)

CLUSTERS_FILE = "clusters.json"
SHIPPED_CLUSTERS = DATA / CLUSTERS_FILE
SAMPLE_CASES = 4


def _cell(value: float | None, interval: tuple[float | None, float | None]) -> str:
    if value is None:
        return "–"
    lo, hi = interval
    bounds = "[–]" if lo is None or hi is None else f"[{lo:.3f}, {hi:.3f}]"
    return f"{value:.3f} {bounds}"


def _outcomes(counts: dict[Outcome, int]) -> str:
    """Ties, unresolved and missing comparisons among the right-target cases (none of them a
    win): what r3 and r4 leave out of their numerators, shown rather than hidden."""
    return "/".join(str(counts.get(outcome, 0)) for outcome in ("tie", "unresolved", "missing"))


def _stage_row(label: list[str], result: StageResult) -> list[str]:
    return [
        *label,
        str(result.n),
        str(result.dialogues),
        _cell(result.r1, result.ci.get("r1", (None, None))),
        _cell(result.r2, result.ci.get("r2", (None, None))),
        _cell(result.r3, result.ci.get("r3", (None, None))),
        _cell(result.r4, result.ci.get("r4", (None, None))),
        _cell(result.hsii, result.ci.get("hsii", (None, None))),
        _cell(result.hsii_printed, result.ci.get("hsii_printed", (None, None))),
        f"{result.n1}/{result.n2}",
        _outcomes(result.first_outcomes),
        _outcomes(result.long_outcomes),
    ]


STAGE_HEADER = [
    "n",
    "dialogues",
    "r1",
    "r2",
    "r3",
    "r4",
    "HSII (Table 1 form)",
    "HSII (Eq. 1 printed)",
    "n1/n2",
    "r3 tie/unres./missing",
    "r4 tie/unres./missing",
]


def table_one(analysis: HsiiAnalysis) -> Table:
    rows = [_stage_row([model], result) for model, result in analysis.models.items()]
    any_result = next(iter(analysis.models.values()), None)
    weights = (
        f"α = {any_result.alpha:g}, β = {any_result.beta:g}, γ = {any_result.gamma:g}, "
        f"tie weight {any_result.tie_weight:g}"
        if any_result
        else ""
    )
    return Table(
        caption="Table 1 shape: r1 = parsed/n, r2 = right target/parsed, r3 and r4 = wins/right "
        "target (judge in both orders, ToolEval rule), each with a 95% bootstrap interval that "
        "resamples dialogues (a dialogue's cases together). Of the right-target cases, the "
        "comparisons that were ties, unresolved (a verdict unusable after its repair) or missing "
        "(never judged, or no long run) are counted beside r3 and r4: none is a win (a tie "
        f"counts at the tie weight). Headline score form: {analysis.formula} ('table': "
        "ι = r1(1 + αβ r2 (r3 + γ r4)), "
        f"which every row of the paper's Table 1 follows; 'printed': Eq. 1). {weights}",
        header=["model", *STAGE_HEADER],
        rows=rows,
    )


def breakdown_table(analysis: HsiiAnalysis, kind: str) -> Table:
    rows = []
    for model, result in analysis.models.items():
        groups = result.by_domain if kind == "domain" else result.by_characters
        rows += [_stage_row([model, name], group) for name, group in groups.items()]
    return Table(
        caption=f"By {kind} (diagnostic: few cases per cell)",
        header=["model", kind, *STAGE_HEADER],
        rows=rows,
    )


def table_two(analysis: HsiiAnalysis) -> Table:
    rows = [
        [
            model,
            str(result.n),
            str(result.cap),
            _cell(result.without_cot.value, result.without_cot.ci),
            _cell(result.with_cot.value, result.with_cot.ci),
            f"{result.unparsed[0]}/{result.unparsed[1]}",
            _cell(result.solved.value, result.solved.ci),
            _cell(result.complexity.value, result.complexity.ci),
            "not within the cap"
            if result.rounds_to_target is None
            else str(result.rounds_to_target),
        ]
        for model, result in analysis.cot.items()
    ]
    return Table(
        caption="Table 2 shape: target-selection success without COT (round 0) and with COT "
        "(round 1) among the answers that named a target (so 'without COT' equals r2 = n2/n1; "
        "'no target' counts the answers left out, round 0/round 1), share solved within the "
        "cap N∞, COT complexity (mean rounds, unsolved counted "
        f"at the cap) and rounds until cumulative accuracy reaches {TARGET_ACCURACY:.2f}; "
        "95% bootstrap intervals over (case, COT) pairs",
        header=[
            "model",
            "n",
            "cap N∞",
            "without COT",
            "with COT",
            "no target",
            "solved",
            "complexity",
            "rounds to 0.70",
        ],
        rows=rows,
    )


def add_sample_case(report: HtmlReport, item: LogSample) -> None:
    meta = item.sample.metadata_as(SampleMeta)
    case, result = meta.case, meta.recorded()
    score = (item.sample.scores or {}).get("hsii_stages")
    details = (score.metadata or {}) if score else {}
    report.heading(f"{case.case_id} — {case.domain or case.topic}", level=3)
    report.paragraph(
        f"Subject {item.log.eval.model}. Characters: {', '.join(case.characters)}.", "note"
    )
    report.preformatted(history_text(case.messages))
    picked = (
        "(no target and statement recovered)"
        if result.parsed is None
        else f"{statement_line(result.parsed)} "
        f"[parsed by rule '{result.parsed.rule}'; target right: {result.target_ok}]"
    )
    report.preformatted(f"subject:  {picked}\ngolden:   {statement_line(golden_statement(case))}")
    for stage in ("first", "long"):
        comparison = details.get(stage)
        if isinstance(comparison, dict):
            verdicts = ", ".join(str(v) for v in comparison.get("verdicts", []))
            reasons = " | ".join(str(r) for r in comparison.get("reasons", []))
            report.paragraph(
                f"{stage} statement vs {comparison.get('other')}: {verdicts}. {reasons}"
            )
    if result.long_run is not None:
        lines = [f"{t.speaker} → {t.addressee}: {t.content}" for t in result.long_run.turns]
        lines.append(f"decision round, subject: {result.long_run.subject_raw}")
        lines.append(f"decision round, reference: {result.long_run.reference_raw}")
        report.preformatted("\n".join(lines))


def load_clusters(run: HsiiRun) -> tuple[ClusterAnalysis | None, str]:
    """A ``clusters.json`` beside the logs, else the shipped bank's."""
    for path in run.files:
        candidate = path.parent / CLUSTERS_FILE
        if candidate.is_file():
            return validate_row(ClusterAnalysis, read_json(candidate), candidate), str(candidate)
    if SHIPPED_CLUSTERS.is_file():
        return (
            validate_row(ClusterAnalysis, read_json(SHIPPED_CLUSTERS), SHIPPED_CLUSTERS),
            "the shipped case bank",
        )
    return None, ""


def add_clusters_section(report: HtmlReport, run: HsiiRun) -> None:
    """Figures 3 and 5 for the cases this run answered: their places on the clustering of a
    ``clusters.json`` beside the logs (else the shipped bank's), or a note when that
    clustering does not hold them all; never another set's clusters shown as the run's."""
    clusters, source = load_clusters(run)
    used = {record.case_id: record.domain for record in run.records}
    if clusters is None or not used:
        return
    report.heading("Dataset clusters")
    shown = for_cases(clusters, used)
    if shown is None:
        report.paragraph(
            f"The run's cases are not all among the {clusters.cases} cases of {source}, so no "
            "clusters are shown: run 'normlab hsii clusters --cases FILE --out DIR' on them and "
            f"put its {CLUSTERS_FILE} beside the logs.",
            "note",
        )
        return
    report.paragraph(
        f"The run's {shown.cases} cases on the clustering of the {clusters.cases} cases of "
        f"{source}: {len(shown.clusters)} of its {len(clusters.clusters)} clusters, noise "
        f"{shown.noise_share:.0%}. The clustering ({clusters.encoder} embeddings, DBSCAN eps "
        f"{clusters.eps:.3f}, min samples {clusters.min_samples}) over all its cases: "
        f"silhouette {format_number(clusters.silhouette)}, agreement with domains (ARI) "
        f"{format_number(clusters.domain_agreement)}.",
        "note",
    )
    report.figure(map_figure(shown), "Figure 3 shape: the run's cases on a 2-D map, by cluster.")
    report.figure(radar_figure(shown), "Figure 5 shape: each cluster's share of the run's cases.")


def build_report(run: HsiiRun, analysis: HsiiAnalysis) -> HtmlReport:
    report = HtmlReport("HSII results")
    roles: dict[str, set[str]] = {"subject": set(analysis.models)}
    for log in run.samples.logs:
        for role, config in (log.eval.model_roles or {}).items():
            roles.setdefault(role, set()).add(str(getattr(config, "model", config)))
    add_common_sections(
        report, roles, run.files, run.samples.skipped, analysis.data, variants_by_run(run.samples)
    )
    report.heading("Stages and the HSII score")
    report.table(table_one(analysis))
    report.table(breakdown_table(analysis, "domain"))
    report.table(breakdown_table(analysis, "characters"))
    if analysis.cot:
        report.heading("COT complexity")
        report.table(table_two(analysis))
    add_clusters_section(report, run)
    add_usage_section(report, analysis.usage, "case")
    scored = [
        item
        for item in run.samples.samples
        if (meta := SampleMeta.of(item.sample)) is not None
        and meta.hsii is not None
        and item.sample.scores
    ]
    if scored:
        report.heading("Sample cases")
        for item in scored[:SAMPLE_CASES]:
            add_sample_case(report, item)
    return report


def write_report(run: HsiiRun, analysis: HsiiAnalysis, out_dir: Path) -> Path:
    return build_report(run, analysis).write(out_dir / "report.html")
