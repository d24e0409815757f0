"""Shared pieces of the CRSEC tests: scripts, small configs, a scripted client."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from inspect_ai.model import get_model

from normlab.crsec.sim.events import Event, EventBase
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import Ablation, RunConfig
from normlab.crsec.sim.society import load_society
from normlab.models import ModelClient
from normlab.norms.calls import Caller

FIXTURES = Path(__file__).parent / "fixtures"
BUSY = FIXTURES / "busy.json"
BUSY_MODEL = f"scripted/{BUSY}"
SMALL = ["Bob Johnson", "Carlos Gomez", "Tamara Rodriguez", "Wolfgang Schulz"]


def reply(value: Any) -> str:
    return json.dumps(value)


def write_script(folder: Path, rules: list[tuple[str, list[Any]]], **extra: Any) -> str:
    """A scripted model string answering each regex with its replies (dicts become JSON)."""
    path = folder / f"script-{len(list(folder.glob('script-*.json')))}.json"
    path.write_text(
        json.dumps(
            {
                "rules": [
                    {"match": match, "replies": [r if isinstance(r, str) else reply(r) for r in rs]}
                    for match, rs in rules
                ],
                **extra,
            }
        )
    )
    return f"scripted/{path}"


def client(model: str) -> ModelClient:
    return ModelClient({"agent": get_model(model), "judge": get_model(model)})


def caller(model: str, agent: str = "Bob Johnson") -> Caller:
    return Caller(client(model), agent, seed=0, tick=0, phase="test")


def config(
    model: str = BUSY_MODEL,
    agents: list[str] | None = None,
    hours: tuple[int, int] = (9, 11),
    days: int = 1,
    seed: int = 0,
    ablations: list[Ablation] | None = None,
    **options: Any,
) -> RunConfig:
    society = load_society()
    chosen = agents or SMALL
    society = society.model_copy(
        update={
            "agents": [agent for agent in society.agents if agent.name in chosen],
            "active_hours": hours,
            "days": days,
        }
    )
    return RunConfig(
        society=society,
        society_file="hobbs_cafe.json",
        seed=seed,
        models={"agent": model, "judge": model},
        ablations=ablations or [],
        **options,
    )


def new_run(folder: Path, run_config: RunConfig) -> RunDir:
    run = RunDir(folder)
    run.create(run_config)
    return run


def event_lines(folder: Path) -> list[str]:
    return (folder / "events.jsonl").read_text().splitlines()


EventT = TypeVar("EventT", bound=EventBase)


def of_kind(events: Iterable[Event], kind: type[EventT]) -> list[EventT]:
    """The events of one kind, typed as such."""
    return [event for event in events if isinstance(event, kind)]
