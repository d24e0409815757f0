"""LoSoNA as the command line, the web app, studies and the demo use it
([`SystemParts`][normlab.runs.SystemParts], what ``normlab.losona.spec`` points to).

The headline is accuracy-at-K over scenarios, under the norm-informed condition where the run
has it (the paper's headline condition), else the run's first; two subjects pair up on the
scenarios both were judged on (the majority label per scenario).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import numpy as np
from inspect_ai.dataset import Sample

from normlab.core.errors import InputError
from normlab.losona.analysis import LosonaRun, scenario_outcomes
from normlab.losona.audit import AUDIT_COLUMNS, export_study, import_audit
from normlab.losona.dataset import SCENARIOS_PATH, load_scenarios, parse_sample_id, sample_id
from normlab.losona.meta import SampleMeta
from normlab.losona.reader import READER
from normlab.losona.rescore import RESCORED_FILE, rescore
from normlab.losona.results import LosonaAnalysis
from normlab.losona.runner import run_demo, run_losona
from normlab.losona.variants import check_variant
from normlab.runs.headline import Headline, Verdicts, measured_share
from normlab.runs.people import Play, Rating
from normlab.runs.statistics import HeadlineStats, Measured, Simulated, shares
from normlab.runs.system import Pairing, Rejudge, SystemParts
from normlab.stats.planning import Assumed, Design, Proportion

HEADLINE_CONDITION = "norm_informed"
"""The condition a study reads LoSoNA's accuracy under, where the run has it."""


def _condition(conditions: Mapping[str, object]) -> str:
    return HEADLINE_CONDITION if HEADLINE_CONDITION in conditions else next(iter(conditions))


def headline(run: LosonaRun, analysis: LosonaAnalysis) -> Headline | None:
    """Accuracy-at-K under the headline condition, over the cell's scenarios."""
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


def design(run: LosonaRun, analysis: LosonaAnalysis) -> Design:
    """One scenario per unit, none clustered."""
    found = headline(run, analysis)
    return Design(sampled="scenario", cluster=None, sizes=[1] * (found.n if found else 0))


def units(run: LosonaRun, analysis: LosonaAnalysis) -> dict[str, float]:
    """Per scenario, its majority label under the headline condition."""
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


def rejudge(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    """``losona rescore`` of the cell's logs, with the cell's judge prompt."""
    rescore([logs], judge, folder, None, str(options.get("judge_addenda", "default")))


def judged(logs: Path, folder: Path) -> list[Path]:
    return [folder / RESCORED_FILE] if (folder / RESCORED_FILE).is_file() else []


def verdicts(run: LosonaRun) -> Verdicts:
    """Per trial, complies or not, clustered by scenario."""
    return {
        f"{r.scenario_id}|{r.condition}|{r.trial}": (r.scenario_id, bool(r.complies))
        for r in run.records
        if r.complies is not None
    }


def play_options(bank: Path | None) -> list[tuple[str, str]]:
    """Every scenario in the two conditions a person plays (with and without the norm)."""
    return [
        (sample_id(scenario.scenario_id, condition), f"{scenario.scenario_id} ({condition})")
        for scenario in load_scenarios(bank or SCENARIOS_PATH)
        for condition in ("naive", "norm_informed")
    ]


def play_sample(option: str, length: int | None) -> dict[str, object]:
    parsed = parse_sample_id(option)
    if parsed is None:
        raise InputError("option", f"not a LoSoNA sample id (SCENARIO::CONDITION): {option!r}")
    scenario_id, condition = parsed
    return {"conditions": [condition], "scenario_ids": [scenario_id], "epochs": 1}


class LosonaStats(HeadlineStats[LosonaRun, LosonaAnalysis]):
    """A scenario, its conditions and epochs together: its accuracy-at-K one 0/1 (its
    majority label under the headline condition)."""

    look = "scenario"

    def unit_of(self, sample: Sample) -> str:
        return sample.metadata_as(SampleMeta).scenario_id

    def values(self, run: LosonaRun, analysis: LosonaAnalysis) -> Measured:
        return Measured({unit: (value, 1.0) for unit, value in units(run, analysis).items()})

    def simulate(
        self,
        rng: np.random.Generator,
        sizes: list[float],
        assumed: Assumed,
        bound: float,
        studies: int,
    ) -> Simulated:
        return shares(rng, sizes, self.true_value(assumed), studies)

    def true_value(self, assumed: Assumed) -> float:
        return 0.5 if assumed.rate is None else assumed.rate


PARTS: SystemParts[LosonaRun, LosonaAnalysis] = SystemParts(
    runner=run_losona.runner,
    headline=headline,
    design=design,
    estimator=Proportion("scenario"),
    measure=lambda found, analysis: measured_share(found),
    pairing=Pairing("scenario", units, "scenarios"),
    rejudge=Rejudge(
        "trials (complies or breach), clustered by scenario", rejudge, verdicts, judged
    ),
    ratings=(
        Rating(
            "losona-audit",
            "LoSoNA judge audit (§7)",
            "Does the response comply with the group's norm?",
            "human_complies",
            (("yes", "Complies"), ("no", "Breaches")),
            "human_notes",
            lambda: AUDIT_COLUMNS,
            export_study,
            import_audit,
        ),
    ),
    reader=READER,
    play=Play("LoSoNA: write the next message", play_options, "scenarios", play_sample),
    demo=run_demo,
    variants=check_variant,
    statistics=LosonaStats(),
)
"""LoSoNA's parts ([`SystemParts`][normlab.runs.SystemParts])."""
