"""SCENE: the interactive benchmark: scripted personas enforce a hidden norm with sanctions."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.scene.analysis import SceneAnalysis, analyze, load_episode_records, load_run
    from normlab.scene.dataset import load_scenarios
    from normlab.scene.runner import BENCHMARK, run_demo, run_scene
    from normlab.scene.schemas import Episode, SceneScenario
    from normlab.scene.task import scene
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "Episode",
    "SceneAnalysis",
    "SceneScenario",
    "analyze",
    "load_episode_records",
    "load_run",
    "load_scenarios",
    "run_demo",
    "run_scene",
    "scene",
]
