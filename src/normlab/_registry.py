"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` and ``--model embedded/…`` / ``scripted/…`` work.
"""

from normlab.losona.task import losona
from normlab.models.embedded import EmbeddedLlamaCpp
from normlab.models.scripted import ScriptedModel

__all__ = ["EmbeddedLlamaCpp", "ScriptedModel", "losona"]
