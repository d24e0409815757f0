"""The CRSEC report's Newcomer section: adoption curves, conflicts and sanctions per hour,
the norms the newcomer holds, the society's drift, and the norm-memory agent against the base
model (``normlab.crsec.newcomer.analysis``).

Every table is a function of the summary, so ``normlab crsec newcomer`` prints in the terminal
what the page shows. Norm text is escaped by the HTML writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from normlab.crsec.newcomer.analysis import NewcomerSummary, SubjectSummary
from normlab.crsec.newcomer.measure import DRIFT_MEASURES, NewcomerRun
from normlab.crsec.newcomer.setup import CONTROL
from normlab.report import (
    HtmlReport,
    LineSeries,
    Table,
    format_delta,
    format_estimate,
    format_rate,
    line_panels,
)
from normlab.stats import Estimate

MEASURE_WORDS = {"holding": "hold", "adhering": "adhere"}


def _line(label: str, values: Sequence[Estimate], length: int) -> LineSeries:
    padded: list[Estimate | None] = [*values, *([None] * (length - len(values)))]
    return LineSeries(
        label,
        [None if e is None else e.value for e in padded],
        [None if e is None else e.ci[0] for e in padded],
        [None if e is None else e.ci[1] for e in padded],
    )


def _name(summary: NewcomerSummary, subject: SubjectSummary) -> str:
    """A subject in a figure's legend: the agent alone when every subject is one model."""
    one_model = len({s.model for s in summary.subjects}) == 1
    return subject.agent if one_model else subject.subject


def _arms(summary: NewcomerSummary) -> list[SubjectSummary]:
    """The newcomer arms (the control has no newcomer to measure)."""
    return [subject for subject in summary.subjects if subject.agent != CONTROL]


def figure_adoption(summary: NewcomerSummary) -> bytes:
    """Per arm: the share of runs whose newcomer had adopted by each hour (Wilson 95%)."""
    arms = _arms(summary)
    length = max(len(subject.adoption_curve) for subject in arms)
    lines = [_line(_name(summary, s), s.adoption_curve, length) for s in arms]
    return line_panels(
        [float(hour) for hour in range(length)],
        [("adopted by the end of the hour (its own verdicts)", lines)],
        "simulated hours since the newcomer arrived",
        "share of runs",
        ylim=(-0.02, 1.02),
        xticks=[(float(hour), str(hour)) for hour in range(length)],
    )


def figure_pressure(summary: NewcomerSummary) -> bytes:
    """Per arm: settled norms the newcomer violated, conflicts it caused and sanctions it met,
    per hour (mean, 95% bootstrap interval over runs)."""
    arms = _arms(summary)
    length = max(len(subject.conflicts) for subject in arms)
    panels = [
        (title, [_line(_name(summary, s), getattr(s, field), length) for s in arms])
        for title, field in (
            ("norms it violated", "violations"),
            ("conflicts it caused", "conflicts"),
            ("sanctions", "sanctions"),
        )
    ]
    return line_panels(
        [float(hour) for hour in range(1, length + 1)],
        panels,
        "simulated hour since the newcomer arrived",
        "per hour",
        xticks=[(float(hour), str(hour)) for hour in range(1, length + 1)],
    )


def _mean(estimate: Estimate, digits: int = 1) -> str:
    text = format_estimate(estimate, digits, percent=False, signed=False)
    return f"{text} (n={estimate.n})" if estimate.value is not None else text


def _delta(estimate: Estimate) -> str:
    """A difference of shares in points with its interval and n."""
    text = format_delta(estimate)
    return f"{text} (n={estimate.n})" if estimate.value is not None else text


def _holds(subject: SubjectSummary, targets: dict[str, str]) -> str:
    if subject.holds is None:
        return "no norm database"
    return "; ".join(f"{targets[t]} {format_rate(rate)}" for t, rate in subject.holds.items())


def subjects_table(summary: NewcomerSummary) -> Table:
    rows = [
        [
            subject.subject,
            ", ".join(map(str, subject.seeds)),
            format_rate(subject.adopted),
            str(subject.not_measurable),
            str(subject.from_start),
            _mean(subject.adoption_hour),
            _mean(subject.violations_total),
            _mean(subject.conflicts_total),
            _mean(subject.sanctions_total),
            _holds(subject, summary.targets),
            _mean(subject.calls_per_hour, 0),
            _mean(subject.newcomer_calls_per_hour),
        ]
        for subject in _arms(summary)
    ]
    settled = ", ".join(summary.targets[t] for t in summary.adoption_norms) or "none"
    return Table(
        caption=f"{summary.newcomer} (a copy of {summary.like}) joins {summary.society} at "
        f"{summary.arrival} for {summary.hours} simulated hours: per arm over seeds; adoption "
        f"and violations from the judge's verdicts on its own plan and actions each hour, on "
        f"the norms that had emerged in the society ({settled}): adopted once it stopped "
        "violating them and "
        "then complied with one on an occasion; n counts the runs whose newcomer violated in "
        "some hour (those that showed no occasion are not measurable, those that never violated "
        "and complied complied from the start, each counted apart) (rates: Wilson 95% CI; "
        "means: 95% bootstrap CI, n runs)",
        header=[
            "subject",
            "seeds",
            "adopted (of runs that violated)",
            "not measurable (runs with no occasion shown)",
            "complied from the start (never violated)",
            "time to adoption (hours)",
            "hours violating",
            "conflicts caused",
            "sanctions met",
            "norms held at the end",
            "agent calls per hour",
            "of them the newcomer's",
        ],
        rows=rows,
    )


def drift_table(summary: NewcomerSummary) -> Table:
    rows = []
    for subject in summary.subjects:
        runs = [run for run in summary.runs if run.subject == subject.subject]
        for target, statement in summary.targets.items():
            row = [subject.subject, statement]
            for measure in DRIFT_MEASURES:
                before = Estimate.mean_of([run.before[target][measure] for run in runs])
                after = Estimate.mean_of([run.after[target][measure] for run in runs])
                row += [
                    format_estimate(before),
                    format_estimate(after),
                    format_delta(subject.drift[target][measure]),
                    "(the control)"
                    if subject.agent == CONTROL
                    else _delta(subject.corrected_drift[target][measure])
                    if subject.corrected_drift
                    else "no control",
                ]
            rows.append(row)
    first = summary.runs[0]
    return Table(
        caption="The society's drift (the newcomer left out): share of agents holding and "
        "adhering to each norm over the newcomer's hours "
        f"({', '.join(first.after_hours[: len(first.before_hours)])}) "
        f"against the same clock hours the day before ({', '.join(first.before_hours)}), and "
        "corrected by the control (the same continuation with no newcomer, same seeds: the "
        "run's share minus the control's, paired by seed); mean over runs, 95% bootstrap CI",
        header=[
            "subject",
            "norm",
            *(
                f"{MEASURE_WORDS[m]}: {when}"
                for m in DRIFT_MEASURES
                for when in ("before", "after", "Δ", "Δ corrected by the control")
            ),
        ],
        rows=rows,
    )


def comparison_table(summary: NewcomerSummary) -> Table:
    rows = []
    for comparison in summary.comparisons:
        cells = [
            f"{comparison.treatment} − {comparison.reference}",
            ", ".join(map(str, comparison.seeds)),
            _delta(comparison.adopted),
            format_estimate(comparison.violations_total, percent=False),
            format_estimate(comparison.conflicts_total, percent=False),
            format_estimate(comparison.sanctions_total, percent=False),
        ]
        cells.append(
            "; ".join(
                f"{summary.targets[t]} {MEASURE_WORDS[m]} {format_delta(d[m])}"
                for t, d in comparison.corrected_drift.items()
                for m in DRIFT_MEASURES
            )
        )
        rows.append(cells)
    return Table(
        caption="Arms against each other, paired by seed on the same checkpoint (mean "
        "difference, 95% paired bootstrap CI): the norm-memory agent against the base model, "
        "and each arm against itself without communication (what the sanctions do)",
        header=[
            "pair",
            "seeds",
            "Δ adopted",
            "Δ hours violating",
            "Δ conflicts",
            "Δ sanctions",
            "Δ corrected drift",
        ],
        rows=rows,
    )


def runs_table(summary: NewcomerSummary) -> Table:
    def holds(held: list[str] | None) -> str:
        if held is None:
            return "no norm database"
        return ", ".join(summary.targets[t] for t in held) or "none"

    def adopted(run: NewcomerRun) -> str:
        if not run.measured:
            return "–"
        if not run.shown:
            return "not measurable (no occasion shown)"
        if run.from_start:
            return "complied from the start"
        return "never" if run.adoption is None else str(run.adoption)

    def finished(run: NewcomerRun) -> str:
        if run.finished:
            return "yes"
        return f"no: {run.stopped} after {len(run.hours)} of {run.planned_hours} hours"

    rows = [
        [
            run.subject,
            str(run.seed),
            adopted(run),
            " ".join(str(hour.violations) for hour in run.hours),
            " ".join(str(hour.conflicts) for hour in run.hours),
            " ".join(str(hour.sanctions) for hour in run.hours),
            " ".join(str(hour.started) for hour in run.hours),
            holds(run.holds),
            finished(run),
            run.folder,
        ]
        for run in summary.runs
        if run.agent != CONTROL
    ]
    return Table(
        caption="Each newcomer run (per hour since the arrival: settled norms its own verdicts "
        "find violated, conflicts it caused, sanctions it met, conversations it started)",
        header=[
            "subject",
            "seed",
            "adopted after hour",
            "violations",
            "conflicts",
            "sanctions",
            "started",
            "holds",
            "finished",
            "folder",
        ],
        rows=rows,
    )


def newcomer_tables(summary: NewcomerSummary) -> list[Table]:
    tables = [subjects_table(summary), drift_table(summary)]
    if summary.comparisons:
        tables.append(comparison_table(summary))
    return [*tables, runs_table(summary)]


def add_newcomer_section(report: HtmlReport, summary: NewcomerSummary) -> None:
    """The Newcomer section: what joined where, the curves, the tables, the definitions."""
    report.heading("Newcomer")
    held = ", ".join(summary.targets[t] for t in summary.society_holds) or "none"
    adhered = ", ".join(summary.targets[t] for t in summary.society_adheres) or "none"
    emerged = ", ".join(summary.targets[t] for t in summary.adoption_norms) or "none"
    report.paragraph(
        f"{summary.newcomer}, a copy of {summary.like} who knows nobody, joins the society of "
        f"{summary.source} at {summary.arrival}, when over 70% of its agents held {held} and "
        f"adhered to {adhered}; emerged (over 70% each holding and adhering), the norms "
        f"adoption is read on: {emerged}. Its occasion every hour: {summary.occasion} "
        "Every arm starts "
        "from the same checkpoint with the same seeds; the newcomer of each remembers its "
        "conversations and observations in its plans and actions and plans again after each "
        "conversation; the control is the same continuation with no newcomer. "
        "Figure 2 above shows the society without the newcomer, per arm: the same clock hours "
        "of the day before, the hour before it came, and its hours. Whether a model adopts "
        "norms nobody told it is an open question these measures answer; a run on the "
        "scripted or the embedded 0.5B model proves the plumbing only.",
        "note",
    )
    for note in summary.notes:
        report.banner(note)
    if any(subject.adopted.n for subject in _arms(summary)):
        report.figure(
            figure_adoption(summary),
            "Time to adoption: the share of runs whose newcomer had, by the end of each hour, "
            "stopped violating the norms the society held, by the judge's verdicts on its own "
            "plan and actions, for the rest of the run (band: Wilson 95% CI over runs).",
        )
    if _arms(summary):
        report.figure(
            figure_pressure(summary),
            "Norms the newcomer violated (its own verdicts), conflicts it caused (the "
            "society's DetectConflict findings about it) and sanctions it met (conversations "
            "started to correct it) per hour (mean over runs, band: 95% bootstrap CI).",
        )
    for table in newcomer_tables(summary):
        report.table(table)
    report.paragraph(
        "Violations: norms that had emerged when the newcomer came (over 70% of the society's "
        "agents each holding and adhering to it) "
        "that the judge finds violated in the newcomer's own plan or actions of the hour. "
        "Time to adoption: the last hour it violated one, provided a later hour shows it "
        "complying with one on an occasion (hours that show nothing are trivial compliance, "
        "which does not count); never: the last hour still violated, or nothing showed "
        "compliance after; complied from the start: it never violated and complied on an "
        "occasion (no change, so no adoption; counted apart); not measurable: no hour showed "
        "an occasion at all (counted apart). Conflicts: observations of "
        "the newcomer that a society agent found in conflict with its qualified norms (a "
        "continuing breach is seen once: perception registers changes). Sanctions: "
        "conversations a society agent started with it (CRSEC talks only over a conflict). "
        "Norms held: the norms at stake its qualified norms express at the end, by the "
        "metrics' judge. Drift: the society's holding and adhering shares over the "
        "newcomer's hours minus the same clock hours of the day before; corrected by the "
        "control: minus the control's shares over the same hours instead (the raw drift is "
        "the corrected one plus the control's own).",
        "note",
    )


@dataclass(frozen=True)
class NewcomerSection:
    """The newcomer experiment's section of the society's report
    ([`Section`][normlab.crsec.analysis.report.Section]): its subjects' models, the Newcomer
    section, and the society's settings named per newcomer."""

    summary: NewcomerSummary
    settings: str = "per newcomer"

    @property
    def models(self) -> dict[str, set[str]]:
        return {"subject": {subject.model for subject in self.summary.subjects if subject.model}}

    def add(self, report: HtmlReport) -> None:
        add_newcomer_section(report, self.summary)
