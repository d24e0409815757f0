"""Inspect AI entry point: registers normlab's tasks and model providers.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``, ``normlab/hsii``, ``normlab/hsii_cot``,
``normlab/losona_screen``: every task of every system whose spec names one) and
``--model embedded/…``, ``scripted/…``, ``human/…`` or ``spread/…`` work, and the plain progress
lines of ``normlab.core.progress`` when stderr is not a terminal. Its logs record base URLs
without their credentials, as a ``normlab`` run's do
([`normlab.core.guard_inspect_logs`][normlab.core.guard_inspect_logs]).
"""

import sys

from normlab.core import guard_inspect_logs, register_progress
from normlab.models import EmbeddedLlamaCpp, HumanModel, ScriptedModel, SpreadModel
from normlab.specs import specs

__all__ = ["EmbeddedLlamaCpp", "HumanModel", "ScriptedModel", "SpreadModel"]

# Each system's task module, imported: its @task functions register themselves with Inspect.
for _system in specs():
    if _system.task is not None:
        _system.task()

guard_inspect_logs()

# ``inspect eval``: progress lines off a terminal. A normlab command registers them itself when
# its run starts (see normlab.core.progress on Inspect's banner).
if "normlab.cli" not in sys.modules:
    register_progress()
