"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``) and ``--model embedded/…`` or
``scripted/…`` work.
"""

from normlab.losona.task import losona
from normlab.models.embedded import EmbeddedLlamaCpp
from normlab.models.scripted import ScriptedModel
from normlab.scene.task import scene

__all__ = ["EmbeddedLlamaCpp", "ScriptedModel", "losona", "scene"]
