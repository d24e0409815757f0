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
    from normlab.scene.dataset import SCENARIOS_PATH, load_scenarios
    from normlab.scene.defaults import SANCTIONS_PER_EPISODE
    from normlab.scene.lint import scaffold_findings
    from normlab.scene.rules import episode_views, label_lists
    from normlab.scene.runner import BENCHMARK, run_demo, run_scene
    from normlab.scene.schemas import (
        CastMember,
        Channel,
        ChatAction,
        Episode,
        FidelityCriteria,
        Hidden,
        HiddenPersona,
        Scaffold,
        ScaffoldTranscript,
        ScaffoldTurn,
        SceneScenario,
        with_own_norms,
    )
    from normlab.scene.scorer import episode_judge
    from normlab.scene.task import scene
    from normlab.scene.taxonomy import SceneNorm, SceneTuple, load_dimensions
else:
    __getattr__, __dir__ = lazy_face(__name__, __file__)

__all__ = [
    "BENCHMARK",
    "SANCTIONS_PER_EPISODE",
    "SCENARIOS_PATH",
    "CastMember",
    "Channel",
    "ChatAction",
    "Episode",
    "EpisodeRecord",
    "FidelityCriteria",
    "Hidden",
    "HiddenPersona",
    "Scaffold",
    "ScaffoldTranscript",
    "ScaffoldTurn",
    "SceneAnalysis",
    "SceneNorm",
    "SceneScenario",
    "SceneTuple",
    "analyze",
    "episode_judge",
    "episode_views",
    "label_lists",
    "load_dimensions",
    "load_episode_records",
    "load_run",
    "load_scenarios",
    "record_of",
    "run_demo",
    "run_scene",
    "scaffold_findings",
    "scene",
    "with_own_norms",
]
