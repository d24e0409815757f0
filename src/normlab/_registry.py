"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``, ``normlab/losona_screen``)
and ``--model embedded/…`` or ``scripted/…`` work. Imports only from the
packages' public faces.
"""

from normlab.losona import losona, losona_screen
from normlab.models import EmbeddedLlamaCpp, ScriptedModel
from normlab.scene import scene

__all__ = ["EmbeddedLlamaCpp", "ScriptedModel", "losona", "losona_screen", "scene"]
