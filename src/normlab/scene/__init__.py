"""SCENE: the interactive benchmark: scripted personas enforce a hidden norm with sanctions."""

from typing import TYPE_CHECKING

from normlab._faces import lazy_face

if TYPE_CHECKING:
    from normlab.scene.analysis import (
        EpisodeRecord,
        SceneAnalysis,
        analyze,
        load_episode_records,
        load_run,
        record_of,
    )
    from normlab.scene.audit import analyze_study, export_study, study_columns
    from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
    from normlab.scene.rules import episode_views, label_lists
    from normlab.scene.runner import BENCHMARK, run_demo, run_scene
    from normlab.scene.schemas import ChatAction, Episode, SceneScenario
    from normlab.scene.task import scene
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "SCENARIOS_PATH",
    "ChatAction",
    "Episode",
    "EpisodeRecord",
    "SceneAnalysis",
    "SceneScenario",
    "analyze",
    "analyze_study",
    "episode_views",
    "export_study",
    "label_lists",
    "load_episode_records",
    "load_run",
    "load_scenarios",
    "record_of",
    "run_demo",
    "run_scene",
    "scene",
    "study_columns",
]
