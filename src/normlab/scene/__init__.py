"""SCENE: the interactive benchmark: scripted personas enforce a hidden norm with sanctions."""

from normlab.scene.analysis import SceneAnalysis, analyze, load_episode_records, load_run
from normlab.scene.cli import run_demo, scene_app
from normlab.scene.dataset import load_scenarios
from normlab.scene.schemas import Episode, SceneScenario
from normlab.scene.task import scene

__all__ = [
    "Episode",
    "SceneAnalysis",
    "SceneScenario",
    "analyze",
    "load_episode_records",
    "load_run",
    "load_scenarios",
    "run_demo",
    "scene",
    "scene_app",
]
