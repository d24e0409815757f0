"""CRSEC, described once for the command line, the web app, studies and the demo
([`SystemSpec`][normlab.runs.SystemSpec]).

Light: the command line reads it for ``normlab --help``; every function imports what it needs
of CRSEC when it is called. A simulation rather than an Inspect task: a study's cell is a set of
runs (``normlab.crsec.cell``), its subject every agent's model, its headline the final share of
agents adhering to the target norms over runs; two subjects share no unit (each simulates its
own society), so they do not pair up.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from normlab.models.roles import DEFAULT_MODEL
from normlab.runs.system import Rating, Rejudge, SystemSpec

if TYPE_CHECKING:
    from pydantic import BaseModel

    from normlab.crsec.analysis.figure2 import CrsecAnalysis
    from normlab.crsec.cell import CrsecRuns
    from normlab.models.usage import RunUsage
    from normlab.runs.benchmark import RunOptions
    from normlab.runs.headline import Headline, Verdicts
    from normlab.stats.planning import Assumed, Design, Estimator

ROLES = ("judge",)
"""The roles besides every agent's (the subject's): the metrics' judge."""


def _types() -> tuple[type[CrsecRuns], type[CrsecAnalysis]]:
    from normlab.crsec.analysis.figure2 import CrsecAnalysis
    from normlab.crsec.cell import CrsecRuns

    return CrsecRuns, CrsecAnalysis


def _options() -> Callable[..., object]:
    from normlab.crsec.cell import crsec_options

    return crsec_options


def _run(
    model: str, roles: Mapping[str, str], options: RunOptions, arguments: Mapping[str, object]
) -> CrsecAnalysis:
    """A CRSEC cell writes no report of its own either way (the study's report reads it)."""
    from normlab.core.errors import InputError
    from normlab.crsec.cell import run_crsec

    if not isinstance(options.log_dir, Path):
        raise InputError("study", "CRSEC runs write to a local folder", field="out")
    return run_crsec(arguments, model, roles, options.log_dir, options.max_connections)


def _load(folders: list[Path]) -> CrsecRuns:
    """The run folders under the cell folders (CRSEC's analysis reads them itself)."""
    from normlab.crsec.cell import run_folders_in

    return run_folders_in(folders)


def _analyze(runs: CrsecRuns) -> CrsecAnalysis:
    from normlab.crsec.cell import crsec_analyze

    return crsec_analyze(runs)


def _usage(analysis: CrsecAnalysis) -> RunUsage | None:
    from normlab.crsec.cell import crsec_usage

    return crsec_usage(analysis)


def _headline(runs: CrsecRuns, analysis: CrsecAnalysis) -> Headline | None:
    from normlab.crsec.cell import crsec_headline

    return crsec_headline(analysis)


def _design(runs: CrsecRuns, analysis: CrsecAnalysis) -> Design:
    from normlab.stats.planning import Design

    finished = [result for result in analysis.runs if result.final]
    pairs = max((result.agents * len(result.final) for result in finished), default=0)
    return Design(sampled="run", cluster="run", sizes=[pairs] * len(finished), pairs_per_run=pairs)


def _estimator() -> Estimator:
    from normlab.stats.planning import RunMean

    return RunMean()


def _measure(headline: Headline, analysis: CrsecAnalysis) -> Assumed | None:
    from normlab.runs.headline import measured_share

    return measured_share(headline)


def _rescore(logs: Path, judge: str, folder: Path, options: Mapping[str, object]) -> None:
    from normlab.crsec.cell import rescore_crsec

    rescore_crsec(logs, judge, folder)


def _judged(logs: Path, folder: Path) -> list[Path]:
    """Every run's copy, so the headline is over the cell's runs; none before each has one."""
    from normlab.crsec.cell import crsec_judged

    return [folder] if crsec_judged(logs, folder) else []


def _verdicts(runs: CrsecRuns) -> Verdicts:
    from normlab.crsec.cell import crsec_verdicts

    return crsec_verdicts(runs)


def _study_columns() -> list[str]:
    from normlab.crsec.analysis.questionnaire import study_columns

    return study_columns()


def _export_study(run: Path, out: Path, n: int, seed: int) -> int:
    from normlab.crsec.analysis.questionnaire import export_study

    return export_study(run, out, n, seed)


def _analyze_study(filled: Path, key: Path) -> BaseModel:
    from normlab.crsec.analysis.questionnaire import analyze_study

    return analyze_study(filled, key)


def _demo(out: Path) -> Path:
    from normlab.crsec.runner import run_demo

    return run_demo(out)


SPEC: SystemSpec[CrsecRuns, CrsecAnalysis] = SystemSpec(
    name="crsec",
    title="CRSEC",
    position=4,
    help="CRSEC: a society of agents in which norms are created, spread, evaluated, "
    "synthesized and obeyed, over simulated days.",
    summary="simulation: norms emerge in a society of agents",
    roles={role: DEFAULT_MODEL for role in ROLES},
    subject_role="agent",
    types=_types,
    options=_options,
    run=_run,
    load=_load,
    analyze=_analyze,
    usage=_usage,
    headline=_headline,
    unit="run",
    design=_design,
    estimator=_estimator,
    measure=_measure,
    rejudge=Rejudge(
        "final-hour adherence of each agent to each target norm (adhering or not), "
        "clustered by run",
        _rescore,
        _judged,
        _verdicts,
    ),
    ratings=(
        Rating(
            "crsec-questionnaire",
            "CRSEC questionnaire (Appendix D)",
            "Rate how well the output fits the input and the agent (1 = not at all, 7 = fully).",
            "score",
            tuple((str(n), str(n)) for n in range(1, 8)),
            None,
            _study_columns,
            _export_study,
            _analyze_study,
        ),
    ),
    shardable=False,
    logs="config.json",
    subject_label=False,
    demo=_demo,
)
"""CRSEC's description ([`SystemSpec`][normlab.runs.SystemSpec])."""
