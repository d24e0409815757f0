"""HSII, described once for the command line, the web app, studies and the demo
([`SystemSpec`][normlab.runs.SystemSpec]).

Light: the command line reads it for ``normlab --help``; every function imports what it needs
of HSII (Inspect, the analysis) when it is called.

The headline is the HSII score (0–3) over cases, its interval resampling whole dialogues (a
dialogue's cases share its history); ε, the long run's turns, is part of the quantity. Two
subjects pair up on the cases both ran: each case's four stage values, the difference of the
two scores recomputed with HSII's own score function on each resample.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.hsii.defaults import EPSILON, ROLES
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import Pairing, Play, Rating, Rejudge, SystemSpec, summed_usage

if TYPE_CHECKING:
    import numpy as np
    from inspect_ai import Task
    from numpy.typing import NDArray
    from pydantic import BaseModel

    from normlab.hsii.analysis import HsiiAnalysis, HsiiRun
    from normlab.hsii.rules import Formula
    from normlab.runs.benchmark import RunOptions
    from normlab.runs.headline import Headline, UnitValues, Verdicts
    from normlab.stats import Statistic
    from normlab.stats.planning import Assumed, Design, Estimator


def _types() -> tuple[type[HsiiRun], type[HsiiAnalysis]]:
    from normlab.hsii.analysis import HsiiAnalysis, HsiiRun

    return HsiiRun, HsiiAnalysis


def _task() -> Callable[..., Task]:
    from normlab.hsii.task import hsii

    return hsii


def _run(
    model: str, roles: Mapping[str, str], options: RunOptions, arguments: Mapping[str, object]
) -> HsiiAnalysis:
    from normlab.hsii.runner import run_hsii

    return run_hsii.with_arguments(model, roles, options, arguments)


def _load(folders: list[Path]) -> HsiiRun:
    from normlab.hsii.analysis import load_run

    return load_run(folders)


def _analyze(run: HsiiRun) -> HsiiAnalysis:
    from normlab.hsii.analysis import analyze

    return analyze(run)


def _headline(run: HsiiRun, analysis: HsiiAnalysis) -> Headline | None:
    from normlab.runs.headline import Headline
    from normlab.stats import Estimate

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


def _design(run: HsiiRun, analysis: HsiiAnalysis) -> Design:
    from collections import Counter

    from normlab.stats.planning import Design

    cases = Counter(record.cluster for record in run.records)
    return Design(sampled="case", cluster="dialogue", sizes=sorted(cases.values()))


def _estimator() -> Estimator:
    from normlab.hsii.power import StagedScore

    return StagedScore()


def _measure(headline: Headline, analysis: HsiiAnalysis) -> Assumed | None:
    """r1–r4, each made usable over its own denominator (n, n1, n2); a stage no case reached
    keeps the default's rate."""
    from normlab.hsii.power import HSII_STAGES
    from normlab.stats.planning import Assumed, conservative

    found = next(iter(analysis.models.values()), None)
    if found is None or not found.n:
        return None
    stages = []
    for index, (name, n) in enumerate(
        (("r1", found.n), ("r2", found.n1), ("r3", found.n2), ("r4", found.n2))
    ):
        value = getattr(found, name)
        usable = (
            None
            if value is None
            else conservative(value, (value * n, n), found.ci.get(name, (None, None)))
        )
        stages.append(HSII_STAGES[index] if usable is None else usable)
    return Assumed(stages=(stages[0], stages[1], stages[2], stages[3]))


def hsii_statistic(alpha: float, beta: float, gamma: float, formula: Formula) -> Statistic:
    """HSII's score of a matrix of stage rows, under the weights and formula of the cell's
    analysis: each rate over the cases in its denominator (a rate with none counts 0, as the
    analysis does), then [`normlab.hsii.hsii_score`][normlab.hsii.hsii_score]."""
    from normlab.hsii.rules import hsii_score

    def score(rows: NDArray[np.float64]) -> float:
        import numpy as np

        rates = []
        for column in rows.T:
            reached = column[~np.isnan(column)]
            rates.append(float(reached.mean()) if reached.size else 0.0)
        return float(hsii_score(*rates, alpha=alpha, beta=beta, gamma=gamma, formula=formula))

    return score


def _units(run: HsiiRun, analysis: HsiiAnalysis) -> UnitValues:
    from normlab.hsii.analysis import stages_of
    from normlab.runs.headline import UnitRows

    result = next(iter(analysis.models.values()), None)
    if result is None:
        return {}
    return UnitRows(
        rows={r.case_id: tuple(stages_of(r).values()) for r in run.records},
        clusters={r.case_id: r.cluster for r in run.records},
        statistic=hsii_statistic(result.alpha, result.beta, result.gamma, result.formula),
    )


def _rescore(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    from normlab.hsii.scorer import hsii_stages
    from normlab.runs.rescore import rescore_logs

    rescore_logs(logs, judge, folder, hsii_stages, "hsii_stages")


def _judged(logs: Path, folder: Path) -> list[Path]:
    from normlab.runs.rescore import rescored_folder

    return rescored_folder(folder)


def _verdicts(run: HsiiRun) -> Verdicts:
    from normlab.hsii.rules import win_value

    verdicts: Verdicts = {}
    for record in run.records:
        weight = record.tie_weight or 0.0
        for stage, given in (("first", record.first_verdicts), ("long", record.long_verdicts)):
            if given and all(v is not None for v in given):
                verdicts[f"{record.case_id}|{stage}"] = (
                    record.cluster,
                    win_value(given, weight) >= 1.0,
                )
    return verdicts


def _study_columns() -> list[str]:
    from normlab.hsii.audit import study_columns

    return study_columns()


def _export_study(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.hsii.audit import export_study

    return export_study(run, out, n, seed)


def _analyze_study(filled: Path, key: Path) -> BaseModel:
    from normlab.hsii.audit import analyze_study

    return analyze_study(filled, key)


def _curation_columns() -> list[str]:
    from normlab.hsii.curation.decisions import curation_columns

    return curation_columns()


def _export_curation(bank: Path, out: Path, n: int, seed: int) -> int:
    from normlab.hsii.curation.decisions import export_curation

    return export_curation(bank, out, n, seed)


def _analyze_curation(filled: Path, key: Path) -> BaseModel:
    from normlab.hsii.curation.decisions import analyze_curation

    return analyze_curation(filled, key)


def _curation_agreement(filled: list[Path]) -> BaseModel:
    from normlab.hsii.curation.decisions import curation_agreement

    return curation_agreement(filled)


def _curation_criteria() -> list[tuple[str, str]]:
    from normlab.hsii.curation.decisions import curation_criteria

    return curation_criteria()


def _play_options(bank: Path | None) -> list[tuple[str, str]]:
    from normlab.hsii.dataset import CASES_PATH, load_cases

    return [
        (case.case_id, f"{case.case_id} ({case.domain})") for case in load_cases(bank or CASES_PATH)
    ]


def _play_sample(option: str, length: int | None) -> dict[str, object]:
    return {"case_ids": [option], "epsilon": length or EPSILON}


def _demo(out: Path) -> Path:
    from normlab.hsii.runner import run_demo

    return run_demo(out)


SPEC: SystemSpec[HsiiRun, HsiiAnalysis] = SystemSpec(
    name="hsii",
    title="HSII",
    position=3,
    help="HSII: an assistant among several users picks whom to address and what to say.",
    summary="multi-user benchmark: whom to address and what to say",
    roles={role: DEFAULT_MODEL for role in ROLES},
    subject_role="subject",
    usage=summed_usage,
    types=_types,
    options=_task,
    task=_task,
    run=_run,
    load=_load,
    analyze=_analyze,
    headline=_headline,
    unit="case",
    design=_design,
    estimator=_estimator,
    measure=_measure,
    quantity_options=("epsilon",),
    pairing=Pairing(
        "case",
        _units,
        "cases (whole dialogues at a time)",
        " Δ is a difference of HSII scores (not of rates), recomputed on each resample.",
    ),
    rejudge=Rejudge(
        "comparisons (r3 vs the golden, r4 vs the reference: win or not), clustered by dialogue",
        _rescore,
        _judged,
        _verdicts,
    ),
    ratings=(
        Rating(
            "hsii-grading",
            "HSII pairwise grading",
            "Which is the more proper next statement of the assistant?",
            "human_verdict",
            (("A", "A is better"), ("equal", "Equal"), ("B", "B is better")),
            "human_notes",
            _study_columns,
            _export_study,
            _analyze_study,
        ),
        Rating(
            "hsii-curation",
            "HSII curation (accept, amend or reject)",
            "Accept, amend (edit the text) or reject this item? Tick the criteria it meets.",
            "curator_decision",
            (("accept", "Accept"), ("amend", "Amend (save my text)"), ("reject", "Reject")),
            "curator_notes",
            _curation_columns,
            _export_curation,
            _analyze_curation,
            source="bank",
            agreement=_curation_agreement,
            criteria=_curation_criteria,
            amended_column="curator_amended",
            amended_from="text",
            criteria_column="curator_criteria",
            rater_column="curator",
        ),
    ),
    play=Play(
        "HSII: pick whom to address and what to say",
        _play_options,
        "cases",
        _play_sample,
        length=EPSILON,
    ),
    demo=_demo,
)
"""HSII's description ([`SystemSpec`][normlab.runs.SystemSpec])."""
