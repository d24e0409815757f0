"""Inspect AI entry point: registers normlab's tasks and model providers, and nothing else.

Loaded by Inspect through ``[project.entry-points.inspect_ai]``, so that
``inspect eval normlab/losona`` (or ``normlab/scene``, ``normlab/hsii``, ``normlab/hsii_cot``,
``normlab/losona_screen``: every task of every system whose spec names one) and
``--model embedded/…``, ``scripted/…``, ``human/…`` or ``spread/…`` work. Loading it patches
nothing and registers no hook, so a process that loads it to run other tasks is as Inspect made
it: a normlab task, when it is built, makes its own logs' base URLs redacted and its own
progress lines printed off a terminal (``normlab.core.progress.normlab_task_built``). A task
module imports its dataset, solver and scorer only then, so loading this costs little more
than Inspect itself (``python -m benchmarks.startup``).
"""

from normlab.models import EmbeddedLlamaCpp, HumanModel, ScriptedModel, SpreadModel
from normlab.specs import specs, task_function

__all__ = ["EmbeddedLlamaCpp", "HumanModel", "ScriptedModel", "SpreadModel"]

# Each system's task module, imported: its @task functions register themselves with Inspect.
for _system in specs():
    if _system.task is not None:
        task_function(_system)
