"""Every system's description, found where it lives: a package of ``normlab`` with a ``spec.py``
declares one system (its ``SPEC``, a [`SystemSpec`][normlab.runs.SystemSpec]).

The command line, the web app, studies and the demo iterate over these; none keeps its own table
keyed by a system's name, so a fifth system is one more package (``docs/architecture.md``,
"Adding a fifth system"). Light: a spec module imports nothing heavy, so ``normlab --help`` lists
the systems without importing Inspect.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import normlab
from normlab.core.errors import InputError
from normlab.runs.system import System, SystemParts, SystemSpec

if TYPE_CHECKING:
    from inspect_ai import Task


@functools.cache
def specs() -> tuple[SystemSpec, ...]:
    """Every system's spec, in their ``position`` order."""
    found: list[SystemSpec] = []
    # Looked for on disk, not imported: a package without a spec (report, web…) stays unloaded.
    folders = sorted(folder for root in normlab.__path__ for folder in Path(root).iterdir())
    for folder in folders:
        if not (folder / "__init__.py").is_file() or not (folder / "spec.py").is_file():
            continue
        name = f"normlab.{folder.name}.spec"
        declared = getattr(importlib.import_module(name), "SPEC", None)
        if not isinstance(declared, SystemSpec):
            raise TypeError(f"{name} declares no SPEC (a SystemSpec)")
        found.append(declared)
    return tuple(sorted(found, key=lambda spec: spec.position))


def spec(name: str) -> SystemSpec:
    """The system named ``name``; one line naming the known systems if there is none."""
    for candidate in specs():
        if candidate.name == name:
            return candidate
    known = ", ".join(candidate.name for candidate in specs())
    raise InputError("system", f"no system {name!r} (known: {known})")


def parts(system: SystemSpec) -> System:
    """The rest of ``system``'s description: ``normlab.NAME.parts``'s ``PARTS`` (imported on
    first use: it imports the system)."""
    return _parts(system.name)


@functools.cache
def _parts(name: str) -> System:
    module = f"normlab.{name}.parts"
    declared = getattr(importlib.import_module(module), "PARTS", None)
    if not isinstance(declared, SystemParts):
        raise TypeError(f"{module} declares no PARTS (a SystemParts)")
    return declared


def task_function(system: SystemSpec) -> Callable[..., Task]:
    """``system``'s ``@task`` function (importing its task module registers every task of the
    system with Inspect)."""
    if system.task is None:
        raise TypeError(f"{system.name} is not an Inspect task")
    found: Callable[..., Task] = getattr(
        importlib.import_module(f"normlab.{system.name}.task"), system.task
    )
    return found
