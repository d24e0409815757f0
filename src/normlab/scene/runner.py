"""SCENE's read side, runs and demo, as the command line and the web app use them.

``BENCHMARK`` loads, analyzes, shows and reports episodes; ``run_scene`` runs the task and
ends in the report. Heavy at import (Inspect, the report's matplotlib), so ``cli.py`` asks
for it inside its commands.
"""

from __future__ import annotations

from pathlib import Path

from normlab.runs import Benchmark, TaskRun, print_table
from normlab.scene.agent_report import agent_inference_table, agent_table
from normlab.scene.analysis import SceneAnalysis, SceneRun, analyze, load_run
from normlab.scene.defaults import ROLES
from normlab.scene.report import (
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
    "scene", "episode", ROLES, SceneRun, SceneAnalysis, load_run, analyze, show, write_report
)
"""SCENE's read side (load, analyze, show, report) for ``scene analyze``, ``report``, the web
app and studies."""
run_scene = TaskRun(BENCHMARK, scene)
"""Run (or resume) SCENE episodes with [`scene`][normlab.scene.scene]'s arguments, print
the analysis and write the report."""

DEMO_MAX_TURNS = 1
DEMO_CAPS = {"judge": 300, "auditor": 150}
"""Output caps for the demo's labellers: the 0.5B model tends to run on until any cap."""


def run_demo(out: Path) -> Path:
    """SCENE on the embedded model: one episode of one round, every role, the report."""
    return run_scene.demo(out, tuples=1, reps=1, max_turns=DEMO_MAX_TURNS, max_tokens=DEMO_CAPS)
