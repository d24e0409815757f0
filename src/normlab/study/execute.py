"""``study run``: every cell run by its system's own run function, into ``OUT/SYSTEM/SUBJECT``.

A cell is exactly what ``normlab SYSTEM run --log-dir OUT/SYSTEM/SUBJECT …`` would run, so it
resumes, counts once and stops on Ctrl-C as that command does: a rerun of the study gives each
unfinished cell's folder back to the system's own resume (Inspect's eval-set, CRSEC's
checkpoints), and skips a cell whose ``cell.json`` says it finished with the same models and
options. A cell of a system with ``shards: N`` runs as N parts, ``--shard I/N`` each into
``OUT/SYSTEM/SUBJECT/shard-I-of-N``; the system's analysis of the cell's folder reads the
shards as one run, so a part run twice (a retried Ray task) still counts each sample once.
A system's prompt variants (``variants:``) are cells of their own, in
``OUT/variants/SYSTEM/VARIANT/SUBJECT``, run, resumed and skipped the same way.

Where parts run is an ``Executor``, a one-method protocol: ``local`` runs them one after
another in this process (each keeps its connections busy); ``ray``
(``normlab.study.ray_executor``) submits the same ``run_part`` as one Ray task per part.
A cell's ``cell.json`` is written by the study's own process once every part of it finished.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol, TypeVar

from pydantic import BaseModel

from normlab.core.errors import InputError, OutputError
from normlab.core.storage import log_location, mirror_folder
from normlab.study.location import read_text, write_text
from normlab.study.schema import Price, Study
from normlab.study.sequential import Rule
from normlab.study.systems import (
    SYSTEMS,
    Cell,
    Part,
    cells,
    refuse_sequential_variants,
    variant_cells,
)
from normlab.study.variant_logs import logged_variant

DONE_FILE = "cell.json"
LOCK_FILE = ".study-run.lock"
R = TypeVar("R")


class CellResult(BaseModel):
    """What one cell of a study run did: where its logs are, whether it ran now or was done
    before, and what it measured (its samples, CRSEC's runs) and called."""

    system: str
    """The system's name."""
    subject: str
    """The subject's name (the cell folder's)."""
    folder: str
    """The cell's folder, ``OUT/SYSTEM/SUBJECT``."""
    skipped: bool
    """Finished before this run: left as it was."""
    samples: int
    """Samples its logs hold (CRSEC: runs)."""
    calls: int
    """Model calls, the judge's included."""
    wall_s: float = 0.0
    """Seconds its parts ran in this study run, summed (0 for a cell finished before)."""
    variant: str | None = None
    """The prompt variant it ran (``variants:``); None for the paper's prompt."""


class PartResult(BaseModel):
    """What one part's run measured: its samples (CRSEC: runs) and calls, judge included."""

    samples: int
    calls: int
    wall_s: float = 0.0


class Executor(Protocol):
    """Runs parts; ``run_one`` is ``run_part`` bound to the study's settings."""

    def run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]: ...


class LocalExecutor:
    """Every part in this process, in the study's order."""

    def run(self, parts: Sequence[Part], run_one: Callable[[Part], R]) -> list[R]:
        return [run_one(part) for part in parts]


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


def measured(system: str, analysis: object) -> PartResult:
    """Samples and calls (cache hits included: a fresh paid run makes those calls)."""
    usage = SYSTEMS[system].usage(analysis)
    if usage is None:
        return PartResult(samples=0, calls=0)
    calls = sum(r.calls + r.cache_hits for r in usage.roles.values())
    return PartResult(samples=usage.units, calls=calls)


def run_part(part: Part, connections: int, prices: Mapping[str, Price] | None = None) -> PartResult:
    """Run (or resume) one part of a cell; what it measured. What the system prints goes to
    stderr: a study's stdout holds only its own result; its usage is costed at the study's
    ``prices``."""
    from normlab.runs import note, stdout_to_stderr

    cell = part.cell
    note(f"study: {part.label} running ({cell.model}, logs in {cell.folder})")
    started = time.monotonic()
    with stdout_to_stderr():
        analysis = SYSTEMS[cell.system].run(cell, connections, part.shard, prices=prices)
    wall = round(time.monotonic() - started, 2)
    return measured(cell.system, analysis).model_copy(update={"wall_s": wall})


def fingerprint(cell: Cell) -> dict[str, object]:
    """What makes a cell's logs the cell's: a finished folder with another is run again
    (and then refused by the system, which will not mix configurations in one folder)."""
    return {"model": cell.model, "roles": cell.roles, "options": cell.options}


def _plain(value: object) -> object:
    """``value`` as its JSON reads back (a recorded fingerprint compares with it)."""
    return json.loads(json.dumps(value, default=str))


def finished_before(cell: Cell) -> CellResult | None:
    """The cell's result if its ``cell.json`` says it finished with these models and options."""
    text = read_text(cell.folder, DONE_FILE)
    if text is None:
        return None
    recorded = json.loads(text)
    if recorded.get("fingerprint") != _plain(fingerprint(cell)):
        return None
    return CellResult.model_validate({**recorded["result"], "skipped": True, "wall_s": 0.0})


def finish_cell(cell: Cell, parts: list[PartResult]) -> CellResult:
    """Write ``cell.json`` (whole or not at all) once every part of the cell finished."""
    from normlab.runs import note

    result = CellResult(
        system=cell.system,
        subject=cell.subject.name,
        folder=str(cell.folder),
        skipped=False,
        samples=sum(p.samples for p in parts),
        calls=sum(p.calls for p in parts),
        wall_s=round(sum(p.wall_s for p in parts), 2),
        variant=cell.variant,
    )
    record = {"fingerprint": fingerprint(cell), "result": result.model_dump()}
    write_text(cell.folder, DONE_FILE, json.dumps(record, indent=2, default=str))
    note(f"study: {cell.label} finished ({result.samples} samples, {result.calls} calls)")
    return result


@contextmanager
def study_lock(folder: Path) -> Iterator[None]:
    """Hold ``FOLDER/.study-run.lock`` while a study runs into ``folder``, or refuse at once.

    Two ``study run`` on one out folder each ran every unfinished cell (twice the calls, and
    one could fail on the other's half-written logs). The lock is ``flock`` on a file that
    holds who took it, so the refusal can say which process to wait for; the kernel lets go
    of it when its holder ends, however it ends (a crash leaves no stale lock)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputError(
                folder,
                f"another study run is writing here ({_holder(fd)}); wait for it to finish or "
                "stop it: two at once would run every cell twice",
            ) from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "started": _now()}
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(holder).encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


def _holder(fd: int) -> str:
    """Who holds the lock, as its file says: pid, host, when it started."""
    try:
        found = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        found = {}
    if not isinstance(found, dict) or "pid" not in found:
        return "a process that has not yet said which"
    return f"pid {found['pid']} on {found.get('host', '?')}, since {found.get('started', '?')}"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def run_study(
    study: Study,
    executor: str = "local",
    ray_address: str | None = None,
    rule: Rule | None = None,
) -> list[CellResult]:
    """Every unfinished cell's parts through the named executor; every cell's result. One
    study run at a time per out folder (``study_lock``; an out in object storage is locked
    in its local mirror, so on this machine). With a ``rule`` (or once a study has started
    so), cells run in batches until the rule stops them (``normlab.study.sequential``)."""
    if rule is not None and executor != "local":
        raise InputError("--executor", "a sequential run (--until-halfwidth) runs locally")
    if rule is not None:
        refuse_sequential_variants(study)
    chosen = make_executor(executor, ray_address)  # a refused executor leaves no folder
    location = log_location(study.out)
    with study_lock(location if isinstance(location, Path) else mirror_folder(location)):
        return _run_study(study, chosen, rule)


def _run_study(study: Study, chosen: Executor, rule: Rule | None = None) -> list[CellResult]:
    from normlab.runs import note
    from normlab.study.sequential.run import (
        EVERY_UNIT,
        batched_result,
        run_sequential,
        sequential_cells,
    )

    connections = study.max_connections
    every = cells(study)
    variants = variant_cells(study)  # run whole, as cells of their own
    done: dict[str, CellResult] = {}
    batched = sequential_cells(study, every, rule)
    if batched:
        run_sequential(study, batched, rule or EVERY_UNIT, connections)
        for cell in batched:
            found = batched_result(study, cell)
            done[cell.label] = CellResult(
                system=cell.system,
                subject=cell.subject.name,
                folder=str(cell.folder),
                skipped=False,
                samples=found["samples"],
                calls=found["calls"],
            )
    for cell in variants:
        logged_variant(cell)  # logs of another variant, or of an edited file: refused
    for cell in [*every, *variants]:
        if cell.label in done:
            continue
        before = finished_before(cell)
        if before is not None:
            note(f"study: {cell.label} finished before; skipped")
            done[cell.label] = before
    todo = [cell for cell in [*every, *variants] if cell.label not in done]
    parts = [Part(cell, shard) for cell in todo for shard in cell.parts()]
    prices = dict(study.prices)
    measured_parts = chosen.run(parts, lambda part: run_part(part, connections, prices))
    for cell in todo:
        mine = [m for part, m in zip(parts, measured_parts, strict=True) if part.cell == cell]
        done[cell.label] = finish_cell(cell, mine)
    from normlab.study.judges import judge_cells

    # A system's extra judges: each finished cell of the paper's prompt judged again, once.
    judge_cells(study, every)
    return [done[cell.label] for cell in [*every, *variants]]
