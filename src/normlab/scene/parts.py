"""SCENE as the command line, the web app, studies and the demo use it
([`SystemParts`][normlab.runs.SystemParts], what ``normlab.scene.spec`` points to).

The headline is the repair rate pooled over sanctions, its interval a bootstrap over scenarios
(a scenario's sanctions, over all its repetitions, are not independent); n is the sanctions, 0
when no sanction was made (no rate then, and no interval). Two subjects pair up on the
scenarios both ran (repaired over sanctions, pooled over the scenario's episodes in the
headline view).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path

from pydantic import ValidationError

from normlab.runs.headline import Headline, UnitValues, Verdicts, measured_share
from normlab.runs.people import Play, PlayLength, Rating
from normlab.runs.rescore import rescore_logs
from normlab.runs.system import Pairing, Rejudge, SystemParts
from normlab.scene.analysis import SceneAnalysis, SceneRun
from normlab.scene.audit import AUDIT_COLUMNS, export_audit, import_audit
from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
from normlab.scene.defaults import DEFAULT_MAX_TURNS, SANCTIONS_PER_EPISODE
from normlab.scene.power import SceneAssumed, SceneStats, sanctions
from normlab.scene.reader import READER
from normlab.scene.runner import run_demo, run_scene
from normlab.scene.schemas import ChatAction
from normlab.scene.scorer import episode_judge
from normlab.scene.variants import check_variant
from normlab.stats import Estimate
from normlab.stats.planning import Design, Proportion

VIEWS = {"all_episodes": "all episodes", "valid_only": "VALID episodes only"}
"""The headline view's name in a study's quantity."""
SUBJECT_LISTS = ("breaches", "repairs")
"""The label lists of the subject's turns, one verdict each per turn."""
PERSONA_LISTS = ("demonstrations", "sanctions", "persona_breaches")
"""The label lists of the personas' turns."""


def units(run: SceneRun, analysis: SceneAnalysis) -> UnitValues:
    return sanctions(run, analysis)


def headline(run: SceneRun, analysis: SceneAnalysis) -> Headline | None:
    """The repair rate pooled over the cell's sanctions, clustered by scenario."""
    found = next(iter(analysis.models), None)  # a cell has one subject
    if found is None:
        return None
    pooled = list(sanctions(run, analysis).values())
    estimate = Estimate.pooled_rate(pooled)
    clusters = sum(1 for _, made in pooled if made)
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


def design(run: SceneRun, analysis: SceneAnalysis) -> Design:
    """Episodes, clustered by scenario."""
    episodes = Counter(record.outcome.scenario_id for record in run.records)
    return Design(sampled="episode", cluster="scenario", sizes=sorted(episodes.values()))


def measure(found: Headline, analysis: SceneAnalysis) -> SceneAssumed | None:
    """The repair rate and the sanctions per episode a pilot's cell measured."""
    result = next(iter(analysis.models.values()), None)
    episodes = getattr(result, analysis.headline_view).episodes if result else 0
    share = measured_share(found)
    per_episode = found.n / episodes if episodes else None
    if share is None and per_episode is None:
        return None
    return SceneAssumed(rate=share.rate if share else None, sanctions_per_episode=per_episode)


def rejudge(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    """Inspect's ``score`` with SCENE's scorer, the judge role bound to ``judge`` and the
    fidelity auditor to the run's own (a cached call at temperature 0)."""
    rescore_logs(logs, judge, folder, episode_judge, "episode_judge", ("auditor",))


def verdicts(run: SceneRun) -> Verdicts:
    """Per turn and label list, whether the judge put the turn in it, clustered by scenario."""
    found: Verdicts = {}
    for record in run.records:
        episode, labels = record.episode, record.labels
        for entry in episode.entries:
            lists = SUBJECT_LISTS if entry.actor == episode.subject else PERSONA_LISTS
            for name in lists:
                turns = getattr(labels, name)
                if turns is not None:  # None: this list's reply could not be parsed
                    key = f"{record.episode_id}|{entry.turn_id}|{name}"
                    found[key] = (episode.scenario_id, entry.turn_id in turns)
    return found


def play_options(bank: Path | None) -> list[tuple[str, str]]:
    return [(s.scenario_id, s.scenario_id) for s in load_scenarios(bank or SCENARIOS_PATH)]


def play_sample(option: str, length: int | None) -> dict[str, object]:
    return {"scenario_ids": [option], "reps": 1, "max_turns": length or DEFAULT_MAX_TURNS}


def play_answer(form: Mapping[str, str]) -> str:
    """The person's move as the ``{"action", "content", "target_turn_id"}`` reply the SCENE
    subject gives: a message, a reaction to a turn, or staying silent."""
    turn = form.get("turn", "").strip()
    try:
        move = ChatAction.model_validate(
            {
                "action": form.get("action", "message"),
                "content": form.get("content", ""),
                "target_turn_id": int(turn) if turn.isdigit() else None,
            }
        )
    except ValidationError as error:
        raise ValueError("choose a message, a reaction or silence") from error
    return move.model_dump_json()


PARTS: SystemParts[SceneRun, SceneAnalysis] = SystemParts(
    runner=run_scene.runner,
    headline=headline,
    design=design,
    estimator=Proportion("sanction", per_sampled=SANCTIONS_PER_EPISODE, assumed=SceneAssumed),
    measure=measure,
    pairing=Pairing("scenario", units, "scenarios"),
    rejudge=Rejudge(
        "turn labels (subject: breach, repair; personas: demonstration, sanction, "
        "persona breach), clustered by scenario",
        rejudge,
        verdicts,
    ),
    ratings=(
        Rating(
            "scene-audit",
            "SCENE label and fidelity audit",
            "Answer the question about this episode.",
            "human_answer",
            (("yes", "Yes"), ("no", "No")),
            "human_notes",
            lambda: AUDIT_COLUMNS,
            lambda run, out, n, seed: export_audit([run], out, n, seed),
            import_audit,
        ),
    ),
    reader=READER,
    play=Play(
        "SCENE: a live episode with scripted personas",
        play_options,
        "scenarios",
        play_sample,
        length=PlayLength(DEFAULT_MAX_TURNS, "rounds per episode"),
        answer=play_answer,
        moves=True,
    ),
    demo=run_demo,
    variants=check_variant,
    statistics=SceneStats(),
)
"""SCENE's parts ([`SystemParts`][normlab.runs.SystemParts])."""
