"""A run directory: ``config.json``, append-only ``events.jsonl``, ``metrics.jsonl``, a checkpoint.

The simulation writes each tick's events and metrics, forces them to disk, and only then
replaces ``checkpoint.json`` (through a temporary file and a rename) with a state that
counts the lines written. A run killed at any moment therefore has a checkpoint that
matches a prefix of its logs; resuming cuts the logs back to that prefix (dropping a
half-finished tick) and continues from the checkpoint's tick, so no tick is repeated or
counted twice and the final event log equals an uninterrupted run's.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from normlab.core.errors import InputError
from normlab.core.jsonio import decode_text, read_json, read_jsonl_rows, validate_row
from normlab.core.outputs import replace_file
from normlab.crsec.sim.events import Event, parse_event
from normlab.crsec.sim.schemas import HourMetrics, RunConfig, WorldState

CONFIG = "config.json"
EVENTS = "events.jsonl"
METRICS = "metrics.jsonl"
CHECKPOINT = "checkpoint.json"
BUDGET = "budget.json"
SUMMARY = "metrics.json"
"""What ``crsec analyze`` writes beside its report (``analysis/report.py``): the analysis,
whose last hour's holding shares the runs page shows."""


class Budget(BaseModel):
    """Where a run stops cleanly at a checkpoint: kept in its folder, so ``resume`` keeps to
    the budget the run was given until a larger one is named."""

    max_calls: int | None = None
    max_cost: float | None = None

    def raised(self, max_calls: int | None, max_cost: float | None) -> Budget:
        """This budget with the limits given now in place of the kept ones."""
        return Budget(
            max_calls=self.max_calls if max_calls is None else max_calls,
            max_cost=self.max_cost if max_cost is None else max_cost,
        )

    def describe(self) -> str:
        parts = [f"--max-calls {self.max_calls}"] if self.max_calls is not None else []
        parts += [f"--max-cost {self.max_cost:g}"] if self.max_cost is not None else []
        return ", ".join(parts) or "none"


def _line(row: BaseModel) -> str:
    return json.dumps(row.model_dump(mode="json"), ensure_ascii=False) + "\n"


def _keep_lines(path: Path, count: int) -> int:
    """Cut ``path`` back to its first ``count`` complete lines; how many lines (a torn last
    one included) were cut."""
    if not path.exists():
        if count:
            raise InputError(path, f"missing, but the checkpoint counts {count} lines in it")
        return 0
    with path.open("rb") as handle:
        kept = b"".join(line for _, line in zip(range(count), handle, strict=False))
        rest = handle.read()  # what the tick that never finished wrote: small
    if kept.count(b"\n") < count:
        raise InputError(path, f"holds fewer lines than the checkpoint counts ({count})")
    if rest:
        replace_file(path, decode_text(kept, path))
    return rest.count(b"\n") + (not rest.endswith(b"\n") if rest else 0)


class RunDir:
    """One simulation run's folder; see the module docstring."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def file(self, name: str) -> Path:
        return self.path / name

    def exists(self) -> bool:
        return self.file(CONFIG).exists()

    def create(self, config: RunConfig) -> None:
        if self.exists():
            raise InputError(
                self.file(CONFIG), "a run already exists here: resume it, or choose another --out"
            )
        self.path.mkdir(parents=True, exist_ok=True)
        replace_file(self.file(CONFIG), config.model_dump_json(indent=1) + "\n")

    def config(self) -> RunConfig:
        path = self.file(CONFIG)
        if not path.exists():
            raise InputError(self.path, "not a CRSEC run directory (no config.json)")
        return validate_row(RunConfig, read_json(path), path)

    def budget(self) -> Budget:
        path = self.file(BUDGET)
        return validate_row(Budget, read_json(path), path) if path.exists() else Budget()

    def save_budget(self, budget: Budget) -> None:
        replace_file(self.file(BUDGET), budget.model_dump_json() + "\n")

    def checkpoint(self) -> WorldState | None:
        path = self.file(CHECKPOINT)
        if not path.exists():
            return None
        return validate_row(WorldState, read_json(path), path)

    def save(self, state: WorldState, events: list[Event], metrics: list[HourMetrics]) -> None:
        """Append a tick's events and metrics, force them to disk, then move the checkpoint."""
        for name, rows in ((EVENTS, events), (METRICS, metrics)):
            if not rows:
                continue
            with self.file(name).open("a", encoding="utf-8") as handle:
                handle.writelines(_line(row) for row in rows)
                handle.flush()
                os.fsync(handle.fileno())
        state.events_written += len(events)
        state.metrics_written += len(metrics)
        replace_file(self.file(CHECKPOINT), state.model_dump_json() + "\n")

    def restore(self, state: WorldState) -> str | None:
        """Cut the logs back to what ``state`` counts: a tick killed half-way, or a disk
        that filled, leaves more (a torn last line among them), also before the first
        checkpoint, when ``state`` is the initial one and counts none. Says what was cut."""
        cut = [
            f"{dropped} line(s) of {name}"
            for name, counted in ((EVENTS, state.events_written), (METRICS, state.metrics_written))
            if (dropped := _keep_lines(self.file(name), counted))
        ]
        if not cut:
            return None
        return (
            f"{self.path}: cut {' and '.join(cut)} that no checkpoint counts (a tick that "
            "never finished); resuming from the last checkpoint"
        )

    def _rows(self, name: str, counted: int | None) -> Iterator[tuple[int, dict[str, Any]]]:
        """The rows the checkpoint counts (a run killed mid-tick leaves a few more)."""
        path = self.file(name)
        if path.exists():
            yield from read_jsonl_rows(path, counted)

    def events(self) -> Iterator[Event]:
        state = self.checkpoint()
        path = self.file(EVENTS)
        for number, row in self._rows(EVENTS, state.events_written if state else None):
            yield parse_event(row, path, number)

    def metrics(self) -> list[HourMetrics]:
        state = self.checkpoint()
        path = self.file(METRICS)
        rows = self._rows(METRICS, state.metrics_written if state else None)
        return [validate_row(HourMetrics, row, path, number) for number, row in rows]

    def read(self, name: str) -> Any:
        return read_json(self.file(name))
