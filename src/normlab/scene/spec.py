"""SCENE, described once for the command line, the web app, studies and the demo
([`SystemSpec`][normlab.runs.SystemSpec]).

Light: the command line reads it for ``normlab --help``; every function imports what it needs
of SCENE (Inspect, the analysis) when it is called.

The headline is the repair rate pooled over sanctions, its interval a bootstrap over scenarios
(a scenario's sanctions, over all its repetitions, are not independent); n is the sanctions, 0
when no sanction was made (no rate then, and no interval). Two subjects pair up on the
scenarios both ran (repaired over sanctions, pooled over the scenario's episodes in the
headline view).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import Pairing, Play, Rating, Rejudge, SystemSpec, summed_usage
from normlab.scene.defaults import DEFAULT_MAX_TURNS, ROLES, SANCTIONS_PER_EPISODE

if TYPE_CHECKING:
    from inspect_ai import Task
    from pydantic import BaseModel

    from normlab.runs.benchmark import RunOptions
    from normlab.runs.headline import Headline, UnitValues, Verdicts
    from normlab.scene.analysis import SceneAnalysis, SceneRun
    from normlab.stats.planning import Assumed, Design, Estimator

VIEWS = {"all_episodes": "all episodes", "valid_only": "VALID episodes only"}
"""The headline view's name in a study's quantity."""
SUBJECT_LISTS = ("breaches", "repairs")
"""The label lists of the subject's turns, one verdict each per turn."""
PERSONA_LISTS = ("demonstrations", "sanctions", "persona_breaches")
"""The label lists of the personas' turns."""


def _types() -> tuple[type[SceneRun], type[SceneAnalysis]]:
    from normlab.scene.analysis import SceneAnalysis, SceneRun

    return SceneRun, SceneAnalysis


def _task() -> Callable[..., Task]:
    from normlab.scene.task import scene

    return scene


def _run(
    model: str, roles: Mapping[str, str], options: RunOptions, arguments: Mapping[str, object]
) -> SceneAnalysis:
    from normlab.scene.runner import run_scene

    return run_scene.with_arguments(model, roles, options, arguments)


def _load(folders: list[Path]) -> SceneRun:
    from normlab.scene.analysis import load_run

    return load_run(folders)


def _analyze(run: SceneRun) -> SceneAnalysis:
    from normlab.scene.analysis import analyze

    return analyze(run)


def _units(run: SceneRun, analysis: SceneAnalysis) -> dict[str, tuple[int, int]]:
    """Per scenario: (repaired, sanctions), pooled over its episodes in the headline view."""
    from normlab.scene.rules import episode_views

    labelled = [r.outcome for r in run.records if r.outcome.labelled]
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for outcome in episode_views(labelled)[analysis.headline_view]:
        counts[outcome.scenario_id][0] += outcome.repaired
        counts[outcome.scenario_id][1] += outcome.sanctions
    return {scenario: (k, n) for scenario, (k, n) in counts.items()}


def _paired_units(run: SceneRun, analysis: SceneAnalysis) -> UnitValues:
    return _units(run, analysis)


def _headline(run: SceneRun, analysis: SceneAnalysis) -> Headline | None:
    from normlab.runs.headline import Headline
    from normlab.stats import Estimate

    found = next(iter(analysis.models), None)  # a cell has one subject
    if found is None:
        return None
    pooled = list(_units(run, analysis).values())
    estimate = Estimate.pooled_rate(pooled)
    clusters = sum(1 for _, sanctions in pooled if sanctions)
    note = None
    if not estimate.n:
        note = "no sanction was made: the repair rate has no denominator"
    elif clusters < 2:
        note = "an interval needs sanctions in at least 2 scenarios (its resampled unit)"
    return Headline(
        "repair rate",
        estimate,
        estimate.n,
        "sanction",
        clusters=clusters,
        cluster_unit="scenario",
        quantity={"view": VIEWS.get(analysis.headline_view, analysis.headline_view)},
        model=found,
        note=note,
    )


def _design(run: SceneRun, analysis: SceneAnalysis) -> Design:
    from normlab.stats.planning import Design

    episodes = Counter(record.outcome.scenario_id for record in run.records)
    return Design(sampled="episode", cluster="scenario", sizes=sorted(episodes.values()))


def _estimator() -> Estimator:
    from normlab.stats.planning import Proportion

    return Proportion("sanction", per_sampled=SANCTIONS_PER_EPISODE)


def _measure(headline: Headline, analysis: SceneAnalysis) -> Assumed | None:
    from normlab.runs.headline import measured_share
    from normlab.stats.planning import Assumed

    found = next(iter(analysis.models.values()), None)
    episodes = getattr(found, analysis.headline_view).episodes if found else 0
    share = measured_share(headline)
    per_episode = headline.n / episodes if episodes else None
    if share is None and per_episode is None:
        return None
    return Assumed(rate=share.rate if share else None, sanctions_per_episode=per_episode)


def _rescore(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    """Inspect's ``score`` with SCENE's scorer, the judge role bound to ``judge`` and the
    fidelity auditor to the run's own (a cached call at temperature 0)."""
    from normlab.runs.rescore import rescore_logs
    from normlab.scene.scorer import episode_judge

    rescore_logs(logs, judge, folder, episode_judge, "episode_judge", ("auditor",))


def _judged(logs: Path, folder: Path) -> list[Path]:
    from normlab.runs.rescore import rescored_folder

    return rescored_folder(folder)


def _verdicts(run: SceneRun) -> Verdicts:
    verdicts: Verdicts = {}
    for record in run.records:
        episode, labels = record.episode, record.labels
        for entry in episode.entries:
            lists = SUBJECT_LISTS if entry.actor == episode.subject else PERSONA_LISTS
            for name in lists:
                turns = getattr(labels, name)
                if turns is not None:  # None: this list's reply could not be parsed
                    key = f"{record.episode_id}|{entry.turn_id}|{name}"
                    verdicts[key] = (episode.scenario_id, entry.turn_id in turns)
    return verdicts


def _study_columns() -> list[str]:
    from normlab.scene.audit import study_columns

    return study_columns()


def _export_study(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.scene.audit import export_study

    return export_study(run, out, n, seed)


def _analyze_study(filled: Path, key: Path) -> BaseModel:
    from normlab.scene.audit import analyze_study

    return analyze_study(filled, key)


def _play_options(bank: Path | None) -> list[tuple[str, str]]:
    from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios

    return [(s.scenario_id, s.scenario_id) for s in load_scenarios(bank or SCENARIOS_PATH)]


def _play_sample(option: str, length: int | None) -> dict[str, object]:
    return {"scenario_ids": [option], "reps": 1, "max_turns": length or DEFAULT_MAX_TURNS}


def _demo(out: Path) -> Path:
    from normlab.scene.runner import run_demo

    return run_demo(out)


SPEC: SystemSpec[SceneRun, SceneAnalysis] = SystemSpec(
    name="scene",
    title="SCENE",
    position=2,
    help="SCENE: interactive norm episodes with sanctions.",
    summary="interactive benchmark: personas enforce a hidden norm",
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
    unit="sanction",
    design=_design,
    estimator=_estimator,
    measure=_measure,
    pairing=Pairing("scenario", _paired_units, "scenarios"),
    rejudge=Rejudge(
        "turn labels (subject: breach, repair; personas: demonstration, sanction, "
        "persona breach), clustered by scenario",
        _rescore,
        _judged,
        _verdicts,
    ),
    ratings=(
        Rating(
            "scene-audit",
            "SCENE label and fidelity audit",
            "Answer the question about this episode.",
            "human_answer",
            (("yes", "Yes"), ("no", "No")),
            "human_notes",
            _study_columns,
            _export_study,
            _analyze_study,
        ),
    ),
    play=Play(
        "SCENE: a live episode with scripted personas",
        _play_options,
        "scenarios",
        _play_sample,
        length=DEFAULT_MAX_TURNS,
    ),
    demo=_demo,
)
"""SCENE's description ([`SystemSpec`][normlab.runs.SystemSpec])."""
