"""CRSEC as the command line, the web app, studies and the demo use it
([`SystemParts`][normlab.runs.SystemParts], what ``normlab.crsec.spec`` points to).

A simulation rather than an Inspect task: a study's cell is a set of runs
(``normlab.crsec.cell``), its subject every agent's model, its headline the final share of
agents adhering to the target norms over runs; two subjects share no unit (each simulates its
own society), so they do not pair up.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from normlab.core.errors import InputError
from normlab.crsec.analysis.figure2 import CrsecAnalysis
from normlab.crsec.analysis.questionnaire import export_study, import_ratings, study_columns
from normlab.crsec.cell import (
    CrsecRuns,
    crsec_analyze,
    crsec_headline,
    crsec_judged,
    crsec_options,
    crsec_usage,
    crsec_verdicts,
    rescore_crsec,
    run_crsec,
    run_folders_in,
)
from normlab.crsec.folder_runs import FOLDER_RUNS
from normlab.crsec.runner import run_demo
from normlab.runs.benchmark import Runner, RunOptions
from normlab.runs.headline import measured_share
from normlab.runs.people import Rating
from normlab.runs.system import Rejudge, SystemParts
from normlab.stats.planning import Design, RunMean


def run_cell(
    model: str, roles: Mapping[str, str], options: RunOptions, arguments: Mapping[str, object]
) -> CrsecAnalysis:
    """A CRSEC cell writes no report of its own either way (the study's report reads it)."""
    if not isinstance(options.log_dir, Path):
        raise InputError("study", "CRSEC runs write to a local folder", field="out")
    return run_crsec(arguments, model, roles, options.log_dir, options.max_connections)


def design(runs: CrsecRuns, analysis: CrsecAnalysis) -> Design:
    """Runs, each its own cluster of agent × target-norm pairs."""
    finished = [result for result in analysis.runs if result.final]
    pairs = max((result.agents * len(result.final) for result in finished), default=0)
    return Design(sampled="run", cluster="run", sizes=[pairs] * len(finished))


PARTS: SystemParts[CrsecRuns, CrsecAnalysis] = SystemParts(
    runner=Runner(
        CrsecRuns,
        CrsecAnalysis,
        crsec_options,
        run_cell,
        run_folders_in,
        crsec_analyze,
        crsec_usage,
    ),
    headline=lambda runs, analysis: crsec_headline(analysis),
    design=design,
    estimator=RunMean(),
    measure=lambda found, analysis: measured_share(found),
    rejudge=Rejudge(
        "final-hour adherence of each agent to each target norm (adhering or not), "
        "clustered by run",
        lambda logs, judge, folder, options: rescore_crsec(logs, judge, folder),
        crsec_verdicts,
        lambda logs, folder: [folder] if crsec_judged(logs, folder) else [],
    ),
    ratings=(
        Rating(
            "crsec-questionnaire",
            "CRSEC questionnaire (Appendix D)",
            "Rate how well the output fits the input and the agent (1 = not at all, 7 = fully).",
            "score",
            tuple((str(n), str(n)) for n in range(1, 8)),
            None,
            study_columns,
            export_study,
            # scored as ``crsec questionnaire import`` scores them (the questionnaire has no key)
            lambda filled, key: import_ratings([filled]),
        ),
    ),
    shardable=False,
    logs="config.json",
    subject_label=False,
    folder_runs=FOLDER_RUNS,
    demo=run_demo,
)
"""CRSEC's parts ([`SystemParts`][normlab.runs.SystemParts])."""
