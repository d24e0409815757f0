"""A second judge for a study: each finished cell's logs judged again by every extra judge a
system names (``judges:``), without re-running the subject, and the two judges compared.

"A judge they must trust" (issue 23): a ranking that holds under one judge may not hold
under another. Each system's own scorer re-judges the cell's finished logs:

* LoSoNA through its own ``losona rescore``
  ([`normlab.losona.rescore_run`][normlab.losona.rescore_run]): the second judge's score
  appended beside the first, its trial records in ``rescored_trials.jsonl``;
* SCENE and HSII through Inspect's ``score`` on each log with the system's scorer (as the
  log recorded its options) and the ``judge`` role bound to the other model, written as a
  copy of the log whose header names that judge, so the system's own loader and analysis
  read it as the run judged by the other model. SCENE's scorer also runs its fidelity
  auditor again, bound to the run's own auditor (a cached call at temperature 0);
* CRSEC, whose judge classifies inside its analysis of the simulation rather than in a
  scorer of a log, by copying each finished run (what the analysis reads, its config naming
  the other judge) and running the analysis on the copies with that judge: the analysis's
  match and compliance calls again, cached in the copies (``normlab.study.crsec_cell``).

Rescored files go to ``OUT/judges/SYSTEM/SUBJECT/JUDGE`` (a remote ``out``: its local
mirror), outside every cell's folder so a cell's own analysis never reads them; a log (a
CRSEC run) already rescored is not rescored again, and CRSEC's verdicts are cached, so a
rerun of the study, or a judge added to a finished study, pays only for what is missing.

The report compares, per system and extra judge: the judges' verdicts on the same items
(agreement with its Wilson interval, Cohen's κ with a bootstrap interval over the items'
scenarios, cases' dialogues; ``normlab.stats``), each judge's ranking of the subjects by the
headline, whether the ranking changes, and Kendall's τ between the two judges' headline
values when more than two subjects were ranked. The items are the per-unit verdicts the
headline is built from: LoSoNA's per-trial complies label; SCENE's per-turn labels (subject
turns: breach, repair; the personas' turns: demonstration, sanction, persona breach; a list
whose reply could not be parsed is left out); HSII's per-comparison win (r3's against the
golden, r4's against the reference, where both judges gave usable verdicts); CRSEC's
final-hour adherence of each agent to each target norm in each run (clustered by run).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from normlab.core.logs import model_name, read_log, read_samples
from normlab.core.outputs import built_whole, slug
from normlab.core.storage import log_location, mirror_folder
from normlab.stats import Agreement, Estimate, Interval, finite_or_none, kendall_tau
from normlab.study.crsec_cell import crsec_judged, crsec_verdicts, rescore_crsec
from normlab.study.location import local_logs
from normlab.study.schema import Study
from normlab.study.systems import SYSTEMS, Cell

FOLDER = "judges"
RESCORED_SUFFIX = ".rescored.eval"
ITEMS = {
    "losona": "trials (complies or breach), clustered by scenario",
    "scene": "turn labels (subject: breach, repair; personas: demonstration, sanction, "
    "persona breach), clustered by scenario",
    "hsii": "comparisons (r3 vs the golden, r4 vs the reference: win or not), clustered by "
    "dialogue",
    "crsec": "final-hour adherence of each agent to each target norm (adhering or not), "
    "clustered by run",
}
"""What one per-unit verdict is, per system."""

Verdicts = dict[str, tuple[str, bool]]
"""Item key → (cluster, verdict): one judge's per-unit verdicts on one cell."""


def judges_root(study: Study) -> Path:
    """``OUT/judges``: a local folder (a remote ``out``'s local mirror)."""
    location = log_location(study.out)
    root = location if isinstance(location, Path) else mirror_folder(location)
    return root / FOLDER


def judge_folder(study: Study, cell: Cell, judge: str) -> Path:
    return judges_root(study) / cell.system / cell.subject.name / slug(judge)


# --- rescoring (study run) ----------------------------------------------------------------


def _rescore_losona(logs: Path, judge: str, folder: Path, cell: Cell) -> None:
    from normlab.losona import rescore_run

    rescore_run([logs], judge, folder, None, str(cell.options.get("judge_addenda", "default")))


def _contributing_logs(logs: Path) -> list[Path]:
    """The logs whose samples the system's loader counts (a killed run's partial log beside
    the one that resumed it adds nothing and is not judged again)."""
    found = read_samples(sorted(logs.rglob("*.eval")))
    return sorted({item.path for item in found.samples})


def _rescore_logs(
    logs: Path, judge: str, folder: Path, system: str, scorer_name: str, keep_roles: Sequence[str]
) -> None:
    """Each contributing log scored again by the system's scorer (its recorded options) with
    ``judge`` in the judge role, overwriting the scores in a copy written to ``folder``."""
    from inspect_ai import score
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ModelConfig

    from normlab.runs import stdout_to_stderr

    scorer_factory = getattr(SYSTEMS[system].face(), scorer_name)
    folder.mkdir(parents=True, exist_ok=True)
    for path in _contributing_logs(logs):
        target = folder / f"{path.stem}{RESCORED_SUFFIX}"
        if target.exists():
            continue
        original = read_log(path)
        spec = next(s for s in original.eval.scorers or [] if s.name.endswith(scorer_name))
        roles = dict(original.eval.model_roles or {})
        bound = {"judge": judge, **{r: model_name(roles[r]) for r in keep_roles if r in roles}}
        # Without the header's roles Inspect builds only the models bound here, not the
        # subject's or the personas' (their SDKs and keys are not needed to judge again).
        original.eval.model_roles = None
        with stdout_to_stderr():
            rescored = score(
                original,
                scorer_factory(**(spec.options or {})),
                action="overwrite",
                model=judge,
                model_roles=bound,
                display="none",
            )
        rescored.eval.model_roles = {**roles, "judge": ModelConfig(model=judge)}
        # Whole or not at all (a kill mid-write leaves nothing the loader reads): a rerun
        # skips a log whose copy exists.
        with built_whole(target) as written:
            write_eval_log(rescored, str(written))


RESCORE: dict[str, Callable[[Path, str, Path, Cell], None]] = {
    "losona": _rescore_losona,
    "scene": lambda logs, judge, folder, _: _rescore_logs(
        logs, judge, folder, "scene", "episode_judge", ("auditor",)
    ),
    "hsii": lambda logs, judge, folder, _: _rescore_logs(
        logs, judge, folder, "hsii", "hsii_stages", ()
    ),
    "crsec": lambda logs, judge, folder, _: rescore_crsec(logs, judge, folder),
}
"""How each system's finished cell is judged again by another model."""


def judge_cells(study: Study, cells: Sequence[Cell]) -> None:
    """Every finished cell of a system with ``judges`` judged again by each (once: what was
    rescored before is kept). A cell with no logs yet is left for a later run."""
    from normlab.runs import note

    for cell in cells:
        judges = study.systems[cell.system].judges  # type: ignore[index]
        if not judges:
            continue
        logs = local_logs(cell.folder, SYSTEMS[cell.system].logs)
        if logs is None:
            continue
        for judge in judges:
            note(f"study: {cell.label}: extra judge {judge}")
            RESCORE[cell.system](logs, judge, judge_folder(study, cell, judge), cell)


# --- reading (study report) -----------------------------------------------------------------


def _losona_verdicts(run: Any) -> Verdicts:
    return {
        f"{r.scenario_id}|{r.condition}|{r.trial}": (r.scenario_id, bool(r.complies))
        for r in run.records
        if r.complies is not None
    }


SUBJECT_LISTS = ("breaches", "repairs")
PERSONA_LISTS = ("demonstrations", "sanctions", "persona_breaches")


def _scene_verdicts(run: Any) -> Verdicts:
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


def _hsii_verdicts(run: Any) -> Verdicts:
    from normlab.hsii import win_value

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


VERDICTS: dict[str, Callable[[Any], Verdicts]] = {
    "losona": _losona_verdicts,
    "scene": _scene_verdicts,
    "hsii": _hsii_verdicts,
    "crsec": crsec_verdicts,
}


def verdicts_of(system: str, run: Any) -> Verdicts:
    """One judge's per-unit verdicts on one cell, as the system's loader read them."""
    return VERDICTS[system](run)


@dataclass
class Judged:
    """One cell as one extra judge judged it."""

    value: float | None
    ci: Interval
    n: int
    verdicts: Verdicts = field(default_factory=dict)


def _judged_paths(study: Study, cell: Cell, judge: str) -> list[Path]:
    """What the system's loader reads as the cell judged by ``judge``; none before that."""
    from normlab.losona import RESCORED_FILE

    folder = judge_folder(study, cell, judge)
    if cell.system == "losona":
        return [folder / RESCORED_FILE] if (folder / RESCORED_FILE).is_file() else []
    if cell.system == "crsec":  # every run's copy, so the headline is over the cell's runs
        logs = local_logs(cell.folder, SYSTEMS[cell.system].logs)
        return [folder] if logs is not None and crsec_judged(logs, folder) else []
    return [folder] if folder.is_dir() and any(folder.glob(f"*{RESCORED_SUFFIX}")) else []


def judged_cell(study: Study, cell: Cell, judge: str) -> Judged | None:
    """The extra judge's headline and verdicts for a cell, or None before it was rescored."""
    paths = _judged_paths(study, cell, judge)
    if not paths:
        return None
    system = SYSTEMS[cell.system]
    run = system.load(paths)
    headline = system.headline(run, system.analyze_run(run))
    if headline is None:
        return Judged(None, (None, None), 0, verdicts_of(cell.system, run))
    estimate = headline.estimate
    return Judged(estimate.value, estimate.ci, headline.n, verdicts_of(cell.system, run))


# --- comparing ---------------------------------------------------------------------------------


class JudgeRank(BaseModel):
    rank: int
    subject: str
    value: float | None
    ci: Interval
    n: int


class JudgeComparison(BaseModel):
    """The study's judge and one extra judge on one system's cells."""

    original: str
    """The judge the cells ran with (the system's ``judge`` role)."""
    judge: str
    items: str
    """What one per-unit verdict is."""
    agreement: Agreement
    """Raw agreement (k of n items, Wilson 95% interval) and the 2 × 2 table; first rater:
    the original judge."""
    kappa: Estimate
    """Cohen's κ with a 95% bootstrap interval over the items' clusters; ``n`` items."""
    clusters: int
    original_ranking: list[str]
    ranking: list[JudgeRank]
    """The subjects as the extra judge ranks them by the headline (best first)."""
    changed: bool | None
    """Whether the two judges order the subjects differently (None: fewer than two ranked)."""
    kendall_tau: float | None
    """Kendall's τ-b between the two judges' headline values (only with > 2 subjects)."""
    missing: list[str]
    """Subjects whose cells this judge has not judged yet."""


def ranked(values: Sequence[tuple[str, float | None]]) -> list[str]:
    """Subjects best first, as the report ranks them: highest value first, a subject with no
    value last, ties by name."""
    ordered = sorted(values, key=lambda row: (row[1] is None, -(row[1] or 0.0), row[0]))
    return [subject for subject, _ in ordered]


def compare_judges(
    original: str,
    judge: str,
    items: str,
    original_values: Sequence[tuple[str, float | None]],
    judged: dict[str, Judged],
    original_verdicts: dict[str, Verdicts],
) -> JudgeComparison:
    """Agreement on the items both judges gave verdicts for (pooled over subjects), each
    judge's ranking of the subjects both judged, and whether the ranking changes."""
    first: list[bool] = []
    second: list[bool] = []
    clusters: list[str] = []
    for subject, theirs in judged.items():
        ours = original_verdicts.get(subject, {})
        for key in sorted(set(ours) & set(theirs.verdicts)):
            cluster, label = ours[key]
            first.append(label)
            second.append(theirs.verdicts[key][1])
            clusters.append(cluster)
    both = [(s, v) for s, v in original_values if s in judged]
    their_values = [(s, judged[s].value) for s, _ in both]
    theirs_ranked = ranked(their_values)
    ours_ranked = ranked(both)
    by_subject = {s: judged[s] for s in theirs_ranked}
    tau = None
    if len(both) > 2:
        pairs = [(v, judged[s].value) for s, v in both if v is not None]
        defined = [(a, b) for a, b in pairs if b is not None]
        tau = finite_or_none(kendall_tau([a for a, _ in defined], [b for _, b in defined]))
    return JudgeComparison(
        original=original,
        judge=judge,
        items=items,
        agreement=Agreement.of(first, second),
        kappa=Estimate.kappa(first, second, clusters=clusters),
        clusters=len(set(clusters)),
        original_ranking=ours_ranked,
        ranking=[
            JudgeRank(
                rank=i + 1,
                subject=s,
                value=by_subject[s].value,
                ci=by_subject[s].ci,
                n=by_subject[s].n,
            )
            for i, s in enumerate(theirs_ranked)
        ],
        changed=None if len(both) < 2 else theirs_ranked != ours_ranked,
        kendall_tau=tau,
        missing=[s for s, _ in original_values if s not in judged],
    )
