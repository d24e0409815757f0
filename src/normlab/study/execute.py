"""``study run``: every cell run by its system's own run function, into ``OUT/SYSTEM/SUBJECT``.

A cell is exactly what ``normlab SYSTEM run --log-dir OUT/SYSTEM/SUBJECT …`` would run, so it
resumes, counts once and stops on Ctrl-C as that command does: a rerun of the study gives each
unfinished cell's folder back to the system's own resume (Inspect's eval-set), and skips a cell
whose ``cell.json`` says it finished with the same models and options.

Where cells run is an :class:`Executor`, a one-method protocol: ``local`` runs them one after
another in this process (each cell already keeps its connections busy); ``ray``
(:mod:`normlab.study.ray_executor`) submits the same :func:`run_cell` as one Ray task per cell.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.outputs import replace_file
from normlab.study.schema import Study
from normlab.study.systems import SYSTEMS, Cell, cells

DONE_FILE = "cell.json"


class CellResult(BaseModel):
    system: str
    subject: str
    folder: str
    skipped: bool
    """Finished before this run: left as it was."""
    samples: int
    calls: int


class Executor(Protocol):
    """Runs cells; ``run_one`` is :func:`run_cell` bound to the study's settings."""

    def run(
        self, cells: Sequence[Cell], run_one: Callable[[Cell], CellResult]
    ) -> list[CellResult]: ...


class LocalExecutor:
    """Every cell in this process, in the study's order."""

    def run(self, cells: Sequence[Cell], run_one: Callable[[Cell], CellResult]) -> list[CellResult]:
        return [run_one(cell) for cell in cells]


EXECUTORS = ("local", "ray")


def make_executor(name: str, ray_address: str | None = None) -> Executor:
    """The named executor; Ray is imported only for ``ray``."""
    if name == "local":
        if ray_address:
            raise InputError("--ray-address", "only the ray executor takes an address")
        return LocalExecutor()
    if name == "ray":
        from normlab.study.ray_executor import RayExecutor

        return RayExecutor(ray_address)
    raise InputError("--executor", f"unknown executor {name!r}; choose from {', '.join(EXECUTORS)}")


def run_system(
    cell: Cell, model: str, roles: dict[str, str], folder: Path, connections: int
) -> Any:
    """The cell's task run (or resumed) by its system's own run function; its analysis. What
    the system prints goes to stderr: a study's stdout holds only its own result."""
    from normlab.commands import RunOptions, stdout_to_stderr

    system = SYSTEMS[cell.system]
    run = getattr(system.face(), system.run)
    options = RunOptions(log_dir=folder, report_dir=folder, max_connections=connections)
    with stdout_to_stderr():
        return run(model, roles, options, **cell.options)


def fingerprint(cell: Cell) -> dict[str, Any]:
    """What makes a cell's logs the cell's: a finished folder with another is run again
    (and then refused by the system, which will not mix configurations in one folder)."""
    return {"model": cell.model, "roles": cell.roles, "options": cell.options}


def _calls(analysis: Any) -> tuple[int, int]:
    usage = next(iter(analysis.usage.values()), None)
    if usage is None:
        return 0, 0
    return usage.units, sum(r.calls + r.cache_hits for r in usage.roles.values())


def run_cell(cell: Cell, connections: int) -> CellResult:
    """Run one cell unless it finished before; write ``cell.json`` when it finishes."""
    from normlab.commands import note

    done = cell.folder / DONE_FILE
    if done.is_file():
        recorded = json.loads(done.read_text("utf-8"))
        if recorded.get("fingerprint") == json.loads(json.dumps(fingerprint(cell), default=str)):
            note(f"study: {cell.label} finished before; skipped")
            return CellResult.model_validate({**recorded["result"], "skipped": True})
    note(f"study: {cell.label} running ({cell.model}, logs in {cell.folder})")
    analysis = run_system(cell, cell.model, cell.roles, cell.folder, connections)
    samples, calls = _calls(analysis)
    result = CellResult(
        system=cell.system,
        subject=cell.subject.name,
        folder=str(cell.folder),
        skipped=False,
        samples=samples,
        calls=calls,
    )
    record = {"fingerprint": fingerprint(cell), "result": result.model_dump()}
    # Written whole or not at all: a worker killed here leaves no half marker behind.
    replace_file(done, json.dumps(record, indent=2, default=str))
    note(f"study: {cell.label} finished ({samples} samples, {calls} calls)")
    return result


def run_study(
    study: Study, executor: str = "local", ray_address: str | None = None
) -> list[CellResult]:
    """Every cell of ``study`` through the named executor."""
    chosen = make_executor(executor, ray_address)
    if "://" in study.out:
        raise InputError("study", "object-storage outputs are a later step", field="out")
    connections = study.max_connections
    return chosen.run(cells(study), lambda cell: run_cell(cell, connections))
