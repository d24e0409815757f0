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
  match and compliance calls again, cached in the copies (``normlab.crsec.cell``).

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

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from normlab.core.outputs import slug
from normlab.core.storage import log_location, mirror_folder
from normlab.runs.headline import Verdicts
from normlab.stats import Agreement, Estimate, Interval, finite_or_none, kendall_tau
from normlab.study.location import local_logs
from normlab.study.schema import Study
from normlab.study.systems import SYSTEMS, Cell

FOLDER = "judges"


def judges_root(study: Study) -> Path:
    """``OUT/judges``: a local folder (a remote ``out``'s local mirror)."""
    location = log_location(study.out)
    root = location if isinstance(location, Path) else mirror_folder(location)
    return root / FOLDER


def judge_folder(study: Study, cell: Cell, judge: str) -> Path:
    return judges_root(study) / cell.system / cell.subject.name / slug(judge)


# --- rescoring (study run) ----------------------------------------------------------------


def judge_cells(study: Study, cells: Sequence[Cell]) -> None:
    """Every finished cell of a system with ``judges`` judged again by each (once: what was
    rescored before is kept). A cell with no logs yet is left for a later run."""
    from normlab.runs import note

    for cell in cells:
        judges = study.systems[cell.system].judges
        if not judges:
            continue
        parts = SYSTEMS[cell.system].parts
        logs = local_logs(cell.folder, parts.logs)
        if logs is None:
            continue
        for judge in judges:
            note(f"study: {cell.label}: extra judge {judge}")
            parts.rescore(logs, judge, judge_folder(study, cell, judge), cell.options)


# --- reading (study report) -----------------------------------------------------------------


def verdicts_of(system: str, run: object) -> Verdicts:
    """One judge's per-unit verdicts on one cell, as the system's loader read them."""
    return SYSTEMS[system].parts.verdicts_of(run)


def verdict_items(system: str) -> str:
    """What one per-unit verdict of ``system`` is, in words."""
    return SYSTEMS[system].parts.verdict_items


@dataclass
class Judged:
    """One cell as one extra judge judged it."""

    value: float | None
    ci: Interval
    n: int
    verdicts: Verdicts = field(default_factory=dict)


def _judged_paths(study: Study, cell: Cell, judge: str) -> list[Path]:
    """What the system's loader reads as the cell judged by ``judge``; none before that."""
    parts = SYSTEMS[cell.system].parts
    logs = local_logs(cell.folder, parts.logs)
    return [] if logs is None else parts.judged(logs, judge_folder(study, cell, judge))


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
