"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``, ``normlab/hsii``, ``normlab/hsii_cot``,
``normlab/losona_screen``) and ``--model embedded/…``, ``scripted/…``, ``human/…`` or ``spread/…``
work, and the plain progress lines of ``normlab.core.progress`` when stderr is not a
terminal. Its logs record base URLs without their credentials, as a ``normlab`` run's do
([`normlab.core.guard_inspect_logs`][normlab.core.guard_inspect_logs]). Imports only from the
packages' public faces.
"""

import sys

from normlab.core import guard_inspect_logs, register_progress
from normlab.hsii import hsii, hsii_cot
from normlab.losona import losona, losona_screen
from normlab.models import EmbeddedLlamaCpp, HumanModel, ScriptedModel, SpreadModel
from normlab.scene import scene

__all__ = [
    "EmbeddedLlamaCpp",
    "HumanModel",
    "ScriptedModel",
    "SpreadModel",
    "hsii",
    "hsii_cot",
    "losona",
    "losona_screen",
    "scene",
]

guard_inspect_logs()

# ``inspect eval``: progress lines off a terminal. A normlab command registers them itself when
# its run starts (see normlab.core.progress on Inspect's banner).
if "normlab.cli" not in sys.modules:
    register_progress()
