"""LoSoNA, described once for the command line, the web app, studies and the demo
([`SystemSpec`][normlab.runs.SystemSpec]).

Light: the command line reads it for ``normlab --help``; every function imports what it needs
of LoSoNA (Inspect, the analysis) when it is called.

The headline is accuracy-at-K over scenarios, under the norm-informed condition where the run
has it (the paper's headline condition), else the run's first; two subjects pair up on the
scenarios both were judged on (the majority label per scenario).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.losona.defaults import ROLES
from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import Pairing, Play, Rating, Rejudge, SystemSpec, summed_usage

if TYPE_CHECKING:
    from inspect_ai import Task
    from pydantic import BaseModel

    from normlab.losona.analysis import LosonaRun
    from normlab.losona.results import LosonaAnalysis
    from normlab.runs.benchmark import RunOptions
    from normlab.runs.headline import Headline, UnitValues, Verdicts
    from normlab.stats.planning import Assumed, Design, Estimator

HEADLINE_CONDITION = "norm_informed"
"""The condition a study reads LoSoNA's accuracy under, where the run has it."""


def _types() -> tuple[type[LosonaRun], type[LosonaAnalysis]]:
    from normlab.losona.analysis import LosonaRun
    from normlab.losona.results import LosonaAnalysis

    return LosonaRun, LosonaAnalysis


def _task() -> Callable[..., Task]:
    from normlab.losona.task import losona

    return losona


def _run(
    model: str, roles: Mapping[str, str], options: RunOptions, arguments: Mapping[str, object]
) -> LosonaAnalysis:
    from normlab.losona.runner import run_losona

    return run_losona.with_arguments(model, roles, options, arguments)


def _load(folders: list[Path]) -> LosonaRun:
    from normlab.losona.analysis import load_run

    return load_run(folders)


def _analyze(run: LosonaRun) -> LosonaAnalysis:
    from normlab.losona.analysis import analyze

    return analyze(run)


def _condition(conditions: Mapping[str, object]) -> str:
    return HEADLINE_CONDITION if HEADLINE_CONDITION in conditions else next(iter(conditions))


def _headline(run: LosonaRun, analysis: LosonaAnalysis) -> Headline | None:
    from normlab.runs.headline import Headline

    found = next(iter(analysis.models.items()), None)  # a cell has one subject
    if found is None or not found[1].conditions:
        return None
    model, result = found
    condition = _condition(result.conditions)
    chosen = result.conditions[condition]
    return Headline(
        f"accuracy ({condition})",
        chosen.accuracy,
        chosen.n_scenarios,
        "scenario",
        quantity={"K": chosen.k},
        model=model,
    )


def _design(run: LosonaRun, analysis: LosonaAnalysis) -> Design:
    from normlab.stats.planning import Design

    headline = _headline(run, analysis)
    return Design(sampled="scenario", cluster=None, sizes=[1] * (headline.n if headline else 0))


def _estimator() -> Estimator:
    from normlab.stats.planning import Proportion

    return Proportion("scenario")


def _measure(headline: Headline, analysis: LosonaAnalysis) -> Assumed | None:
    from normlab.runs.headline import measured_share

    return measured_share(headline)


def _units(run: LosonaRun, analysis: LosonaAnalysis) -> UnitValues:
    from normlab.losona.analysis import scenario_outcomes

    result = next(iter(analysis.models.values()), None)
    if result is None or not result.conditions:
        return {}
    condition = _condition(result.conditions)
    records = [r for r in run.records if r.condition == condition]
    return {
        o.scenario_id: float(o.majority)
        for o in scenario_outcomes(records)
        if o.majority is not None
    }


def _rescore(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    from normlab.losona.rescore import rescore

    rescore([logs], judge, folder, None, str(options.get("judge_addenda", "default")))


def _judged(logs: Path, folder: Path) -> list[Path]:
    from normlab.losona.rescore import RESCORED_FILE

    return [folder / RESCORED_FILE] if (folder / RESCORED_FILE).is_file() else []


def _verdicts(run: LosonaRun) -> Verdicts:
    return {
        f"{r.scenario_id}|{r.condition}|{r.trial}": (r.scenario_id, bool(r.complies))
        for r in run.records
        if r.complies is not None
    }


def _study_columns() -> list[str]:
    from normlab.losona.audit import study_columns

    return study_columns()


def _export_study(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.losona.audit import export_study

    return export_study(run, out, n, seed)


def _analyze_study(filled: Path, key: Path) -> BaseModel:
    from normlab.losona.audit import analyze_study

    return analyze_study(filled, key)


def _play_options(bank: Path | None) -> list[tuple[str, str]]:
    from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios, sample_id

    return [
        (sample_id(scenario.scenario_id, condition), f"{scenario.scenario_id} ({condition})")
        for scenario in load_scenarios(bank or SCENARIOS_PATH)
        for condition in ("naive", "norm_informed")
    ]


def _play_sample(option: str, length: int | None) -> dict[str, object]:
    from normlab.core.errors import InputError
    from normlab.losona.dataset import parse_sample_id

    parsed = parse_sample_id(option)
    if parsed is None:
        raise InputError("option", f"not a LoSoNA sample id (SCENARIO::CONDITION): {option!r}")
    scenario_id, condition = parsed
    return {"conditions": [condition], "scenario_ids": [scenario_id], "epochs": 1}


def _demo(out: Path) -> Path:
    from normlab.losona.runner import run_demo

    return run_demo(out)


SPEC: SystemSpec[LosonaRun, LosonaAnalysis] = SystemSpec(
    name="losona",
    title="LoSoNA",
    position=1,
    help="LoSoNA: local social norm adaptation (static).",
    summary="static benchmark: write the next message of a group chat",
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
    unit="scenario",
    design=_design,
    estimator=_estimator,
    measure=_measure,
    pairing=Pairing("scenario", _units, "scenarios"),
    rejudge=Rejudge(
        "trials (complies or breach), clustered by scenario", _rescore, _judged, _verdicts
    ),
    ratings=(
        Rating(
            "losona-audit",
            "LoSoNA judge audit (§7)",
            "Does the response comply with the group's norm?",
            "human_complies",
            (("yes", "Complies"), ("no", "Breaches")),
            "human_notes",
            _study_columns,
            _export_study,
            _analyze_study,
        ),
    ),
    play=Play("LoSoNA: write the next message", _play_options, "scenarios", _play_sample),
    demo=_demo,
)
"""LoSoNA's description ([`SystemSpec`][normlab.runs.SystemSpec])."""
