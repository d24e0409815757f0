"""SCENE run by normlab: the benchmark's read side, a run from start to report, the demo.

The command line (``cli.py``) and the web app call these; they import Inspect and the
report's matplotlib, so the command line imports this module only when a command runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from normlab.commands import Benchmark, bind_roles, finish_run, print_table
from normlab.models import DEFAULT_MODEL, RoleSettings
from normlab.scene.analysis import SceneAnalysis, SceneRun, analyze, load_run
from normlab.scene.defaults import DEFAULT_MAX_TURNS, DEFAULT_REPS, ROLES
from normlab.scene.report import (
    agent_inference_table,
    agent_table,
    headline_table,
    pairs_table,
    prompt_reuse_table,
    write_report,
)
from normlab.scene.task import scene


def show(run: SceneRun, analysis: SceneAnalysis) -> None:
    print_table(headline_table(analysis))
    print_table(pairs_table(analysis))
    print_table(prompt_reuse_table(analysis))
    if any(comparison.scenarios for comparison in analysis.agents.values()):
        print_table(agent_table(analysis))
    if analysis.agents:
        print_table(agent_inference_table(analysis))


BENCHMARK = Benchmark(
    name="scene",
    unit="episode",
    load=load_run,
    analyze=analyze,
    show=show,
    write_report=write_report,
)


def run_scene(
    model: str,
    roles: Mapping[str, str],
    *,
    data: Path | None = None,
    scenario_ids: list[str] | None = None,
    tuples: int | None = None,
    reps: int = DEFAULT_REPS,
    sampler: str = "coverage",
    seed: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    labeller: str = "turns",
    settings: RoleSettings | None = None,
    agent: str = "base",
    log_dir: str | Path | None = None,
    report_dir: Path | None = None,
    as_json: bool = False,
    max_connections: int | None = None,
    shard: str | None = None,
) -> SceneAnalysis:
    """Run (or resume) SCENE episodes, print the analysis and write the report."""
    args = {
        "scenarios": str(data) if data else None,
        "scenario_ids": scenario_ids,
        "tuples": tuples,
        "reps": reps,
        "max_turns": max_turns,
        "labeller": labeller,
        "sampler": sampler,
        "seed": seed,
        "agent": agent,
        **(settings or RoleSettings()).task_args(),
    }
    return finish_run(
        BENCHMARK, scene, args, model, roles, log_dir, report_dir, as_json, max_connections,
        shard,
    )  # fmt: skip


DEMO_MAX_TURNS = 1
DEMO_CAPS = {"judge": 300, "auditor": 150}
"""Output caps for the demo's labellers: the 0.5B model tends to run on until any cap."""


def run_demo(out: Path) -> Path:
    """SCENE on the embedded model: one episode of one round, every role, the report."""
    folder = out / "scene"
    run_scene(
        DEFAULT_MODEL,
        bind_roles(ROLES, None, None),
        tuples=1,
        reps=1,
        max_turns=DEMO_MAX_TURNS,
        settings=RoleSettings(max_tokens=DEMO_CAPS),
        log_dir=folder,
        report_dir=folder,
    )
    return folder / "report.html"
