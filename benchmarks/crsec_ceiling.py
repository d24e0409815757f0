"""Why the paper's "100% of agents … adhered" is out of reach here: two consequences, measured.

    python -m benchmarks.crsec_ceiling [--out results.json]

Runs the scripted society of ``benchmarks.crsec_second_chat`` (the converge society: Bob
Johnson holds "No smoking indoors." from the start, Tamara Rodriguez accepts it at 9:00,
Carlos Gomez refuses it at 10:00 and accepts it at 11:00; norm holders who do not smoke
drink coffee at their tables, Carlos smokes outside once he holds it; hours 9–13, 5-minute
ticks, seed 0) with a watch on every tick, and counts:

1. **A continuing violation is seen once.** Perception registers changes only (an agent
   notices another's action when it changes; the authors' code likewise skips events already
   in memory), so 30 minutes of smoking at a table is one observation for whoever is there
   when it starts, and none for whoever comes later or was talking. Per tick: the ticks an
   agent violated the norm (its visible action names the norm's keywords at an indoor place)
   in sight of a free agent holding qualified norms; the ticks at which such a witness
   observed it (a DetectConflict input); the conflicts DetectConflict found.
2. **Adherence needs an occasion every hour.** Adhering is a plan or actions the judge finds
   explicitly compliant, violating in neither (the README's definition: trivial compliance
   does not count); an agent who holds the norm and has nothing to do with it in an hour (a
   non-smoker drinking coffee) is "not shown". Per agent-hour: held; held and adhering; held,
   violating in neither and showing nothing. And the last hour's shares, holding and adhering,
   from ``normlab crsec analyze``'s own analysis.

Everything is scripted and seeded: the numbers are the same on every run.
"""

from __future__ import annotations

import asyncio
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks import command, emit
from benchmarks.crsec_second_chat import NORM_ID, create, write_script
from normlab.crsec.analysis.figure2 import analyze_runs, load_runs
from normlab.crsec.analysis.judge import Judge
from normlab.crsec.runner import model_client
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.schemas import TargetNorm

HOURS = "9-13"
"""An hour more than the second-chat benchmark: Carlos, who accepts the norm at 11:00, has
an hour planned under it."""


@dataclass
class Sightings:
    """Ticks of violation in sight of a norm holder, and how many of them were observed."""

    in_sight: int = 0
    observed: int = 0


class Watched(Simulation):
    """The run's own tick loop, with every tick's perception watched for one norm."""

    target: TargetNorm
    sightings: Sightings

    def violating(self, name: str, tick: int) -> bool:
        """``name``'s visible action names the norm, at an indoor place, and is not a talk."""
        state = self.agent(name)
        indoor = {place.name: place.indoor for place in self.society.places}
        words = "|".join(re.escape(word) for word in self.target.keywords)
        return (
            not self.busy(name, tick)
            and indoor.get(state.place, True)
            and re.search(rf"\b(?:{words})", state.action, re.IGNORECASE) is not None
        )

    def perceive(self, tick: int) -> dict[str, list[tuple[str, str]]]:
        witnesses = {
            name: [
                other
                for other in self.order
                if other != name
                and self.agent(other).place == self.agent(name).place
                and not self.busy(other, tick)
                and self.agent(other).norms.qualified()
            ]
            for name in self.order
            if self.violating(name, tick)
        }
        seen = super().perceive(tick)
        for name, watching in witnesses.items():
            if not watching:
                continue
            self.sightings.in_sight += 1
            if any(name in (observed for observed, _ in seen.get(w, [])) for w in watching):
                self.sightings.observed += 1
        return seen


async def occasions(folder: Path, model: str, target: TargetNorm) -> dict[str, int]:
    """Agent-hours: held; held and adhering; held, violating in neither and showing nothing
    (the judge's cached verdicts, the ones ``analyze`` read)."""
    run = load_runs([folder])[0]
    judge = Judge(model_client({"judge": model}), model, folder, run.config.society.norms)
    counts = {"held": 0, "held_adhering": 0, "held_not_shown": 0}
    for hour in run.hours:
        for name, state in hour.agents.items():
            matched = [await judge.matches(norm.content) for norm in state.qualified]
            if not any(target.id in ids for ids in matched):
                continue
            plan, actions = (await judge.compliance(name, state.plan, list(state.actions)))[
                target.id
            ]
            shown = "complied" in (plan, actions)
            violated = "violated" in (plan, actions)
            counts["held"] += 1
            counts["held_adhering"] += shown and not violated
            counts["held_not_shown"] += not shown and not violated
    return counts


def measure(root: Path) -> dict[str, Any]:
    """The watched run under ``root`` (a fresh folder), then both consequences' numbers."""
    model = write_script(root)
    folder = root / "run"
    if folder.exists():
        raise FileExistsError(f"{folder}: the watch needs a fresh run")
    run = create(folder, model, faithful=False, hours=HOURS)
    simulation = Watched(run, model_client(run.config().models))
    simulation.target = next(n for n in simulation.society.norms if n.id == NORM_ID)
    simulation.sightings = Sightings()
    if asyncio.run(simulation.run()) != "finished":
        raise RuntimeError(f"{folder}: the run stopped")
    analysis = asyncio.run(analyze_runs(load_runs([folder]), model_client({"judge": model}), model))
    (result,) = analysis.runs
    last = result.hours[-1]
    return {
        "norm": NORM_ID,
        "agents": result.agents,
        "hours": len(result.hours),
        "violation_ticks_in_sight_of_a_holder": simulation.sightings.in_sight,
        "of_them_observed": simulation.sightings.observed,
        "conflicts": sum(hour.conflicts for hour in result.counts),
        "agent_hours": asyncio.run(occasions(folder, model, simulation.target)),
        "last_hour": {
            "label": last.label,
            "holding": last.holding[NORM_ID],
            "adhering": last.adhering[NORM_ID],
        },
    }


def main() -> None:
    parser = command(__doc__)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="crsec-ceiling-") as scratch:
        summary = measure(Path(scratch))
    emit(summary, arguments.out)


if __name__ == "__main__":
    main()
