"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``, ``normlab/hsii``, ``normlab/hsii_cot``,
``normlab/losona_screen``) and ``--model embedded/…``, ``scripted/…``, ``human/…`` or ``spread/…``
work, and the plain progress lines of :mod:`normlab.core.progress` when stderr is not a
terminal. Imports only from the packages' public faces.
"""

from normlab.core.progress import LineProgress
from normlab.hsii import hsii, hsii_cot
from normlab.losona import losona, losona_screen
from normlab.models import EmbeddedLlamaCpp, HumanModel, ScriptedModel, SpreadModel
from normlab.scene import scene

__all__ = [
    "EmbeddedLlamaCpp",
    "HumanModel",
    "LineProgress",
    "ScriptedModel",
    "SpreadModel",
    "hsii",
    "hsii_cot",
    "losona",
    "losona_screen",
    "scene",
]
