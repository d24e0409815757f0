"""HSII as the command line, the web app, studies and the demo use it
([`SystemParts`][normlab.runs.SystemParts], what ``normlab.hsii.spec`` points to).

The headline is the HSII score (0–3) over cases, its interval resampling whole dialogues (a
dialogue's cases share its history); ε, the long run's turns, is part of the quantity. Two
subjects pair up on the cases both ran: each case's four stage values, the difference of the
two scores recomputed with HSII's own score function on each resample.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from normlab.hsii.analysis import HsiiAnalysis, HsiiRun, stages_of
from normlab.hsii.audit import GRADING_COLUMNS, export_grading, import_grading
from normlab.hsii.curation.decisions import (
    analyze_curation,
    curation_agreement,
    curation_columns,
    curation_criteria,
    export_curation,
    is_bank_row,
)
from normlab.hsii.dataset import CASES_PATH, load_cases
from normlab.hsii.defaults import EPSILON
from normlab.hsii.play import characters, form_reply
from normlab.hsii.power import HSII_STAGES, HsiiAssumed, HsiiStats, StagedScore
from normlab.hsii.reader import READER
from normlab.hsii.rules import Formula, score_of_rates, stage_rates, win_value
from normlab.hsii.runner import run_demo, run_hsii
from normlab.hsii.scorer import hsii_stages
from normlab.hsii.variants import check_variant
from normlab.runs.headline import Headline, UnitRows, UnitValues, Verdicts
from normlab.runs.people import Play, PlayLength, Rating
from normlab.runs.rescore import rescore_logs
from normlab.runs.system import Pairing, Rejudge, SystemParts
from normlab.stats import Estimate, Statistic
from normlab.stats.planning import Design, conservative


def headline(run: HsiiRun, analysis: HsiiAnalysis) -> Headline | None:
    """The HSII score over the cell's cases, clustered by dialogue."""
    found = next(iter(analysis.models.items()), None)  # a cell has one subject
    if found is None:
        return None
    model, result = found
    estimate = Estimate(value=result.hsii, ci=result.ci.get("hsii", (None, None)), n=result.n)
    return Headline(
        "HSII score",
        estimate,
        result.n,
        "case",
        clusters=result.dialogues,
        cluster_unit="dialogue",
        quantity={"formula": result.formula},
        model=model,
    )


def design(run: HsiiRun, analysis: HsiiAnalysis) -> Design:
    """Cases, clustered by dialogue."""
    cases = Counter(record.cluster for record in run.records)
    return Design(sampled="case", cluster="dialogue", sizes=sorted(cases.values()))


def measure(found: Headline, analysis: HsiiAnalysis) -> HsiiAssumed | None:
    """r1–r4, each made usable over its own denominator (n, n1, n2); a stage no case reached
    keeps the default's rate."""
    result = next(iter(analysis.models.values()), None)
    if result is None or not result.n:
        return None
    stages = []
    for index, (name, n) in enumerate(
        (("r1", result.n), ("r2", result.n1), ("r3", result.n2), ("r4", result.n2))
    ):
        value = getattr(result, name)
        usable = (
            None
            if value is None
            else conservative(value, (value * n, n), result.ci.get(name, (None, None)))
        )
        stages.append(HSII_STAGES[index] if usable is None else usable)
    return HsiiAssumed(stages=(stages[0], stages[1], stages[2], stages[3]))


def hsii_statistic(alpha: float, beta: float, gamma: float, formula: Formula) -> Statistic:
    """HSII's score of a matrix of stage rows, under the weights and formula of the cell's
    analysis: each rate over the cases in its denominator (a rate with none counts 0, as the
    analysis does: ``normlab.hsii.rules.score_of_rates``)."""

    def score(rows: NDArray[np.float64]) -> float:
        return score_of_rates(
            stage_rates(rows), alpha=alpha, beta=beta, gamma=gamma, formula=formula
        )

    return score


def units(run: HsiiRun, analysis: HsiiAnalysis) -> UnitValues:
    """Per case, its four stage values (NaN outside a stage's denominator), by dialogue."""
    result = next(iter(analysis.models.values()), None)
    if result is None:
        return {}
    return UnitRows(
        rows={r.case_id: tuple(stages_of(r).values()) for r in run.records},
        clusters={r.case_id: r.cluster for r in run.records},
        statistic=hsii_statistic(result.alpha, result.beta, result.gamma, result.formula),
    )


def rejudge(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    rescore_logs(logs, judge, folder, hsii_stages, "hsii_stages")


def verdicts(run: HsiiRun) -> Verdicts:
    """Per case and stage (r3 first, r4 long), a win or not, clustered by dialogue."""
    found: Verdicts = {}
    for record in run.records:
        weight = record.tie_weight or 0.0
        for stage, given in (("first", record.first_verdicts), ("long", record.long_verdicts)):
            if given and all(v is not None for v in given):
                found[f"{record.case_id}|{stage}"] = (
                    record.cluster,
                    win_value(given, weight) >= 1.0,
                )
    return found


def play_options(bank: Path | None) -> list[tuple[str, str]]:
    return [
        (case.case_id, f"{case.case_id} ({case.domain})") for case in load_cases(bank or CASES_PATH)
    ]


def play_sample(option: str, length: int | None) -> dict[str, object]:
    return {"case_ids": [option], "epsilon": length or EPSILON}


PARTS: SystemParts[HsiiRun, HsiiAnalysis] = SystemParts(
    runner=run_hsii.runner,
    headline=headline,
    design=design,
    estimator=StagedScore(),
    measure=measure,
    quantity_options=("epsilon",),
    pairing=Pairing(
        "case",
        units,
        "cases (whole dialogues at a time)",
        " Δ is a difference of HSII scores (not of rates), recomputed on each resample.",
    ),
    rejudge=Rejudge(
        "comparisons (r3 vs the golden, r4 vs the reference: win or not), clustered by dialogue",
        rejudge,
        verdicts,
    ),
    ratings=(
        Rating(
            "hsii-grading",
            "HSII pairwise grading",
            "Which is the more proper next statement of the assistant?",
            "human_verdict",
            (("A", "A is better"), ("equal", "Equal"), ("B", "B is better")),
            "human_notes",
            lambda: GRADING_COLUMNS,
            lambda run, out, n, seed: export_grading([run], out, n, seed),
            import_grading,
        ),
        Rating(
            "hsii-curation",
            "HSII curation (accept, amend or reject)",
            "Accept, amend (edit the text) or reject this item? Tick the criteria it meets.",
            "curator_decision",
            (("accept", "Accept"), ("amend", "Amend (save my text)"), ("reject", "Reject")),
            "curator_notes",
            curation_columns,
            export_curation,
            analyze_curation,
            source="bank",
            bank_row=is_bank_row,
            agreement=curation_agreement,
            criteria=curation_criteria,
            amended_column="curator_amended",
            amended_from="text",
            criteria_column="curator_criteria",
            rater_column="curator",
        ),
    ),
    reader=READER,
    play=Play(
        "HSII: pick whom to address and what to say",
        play_options,
        "cases",
        play_sample,
        length=PlayLength(EPSILON, "turns of the long run ε"),
        characters=characters,
        answer=form_reply,
    ),
    demo=run_demo,
    variants=check_variant,
    statistics=HsiiStats(),
)
"""HSII's parts ([`SystemParts`][normlab.runs.SystemParts])."""
