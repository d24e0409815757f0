"""Scaling a society: grown society files, attention that spreads, calls made at once, and the
chains ``benchmarks.crsec_scale`` reads from a run's events."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from benchmarks.crsec_scale import chains
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.runner import model_client
from normlab.crsec.sim.events import CallEvent
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import RunConfig
from normlab.crsec.sim.society import load_society, scaled_society
from normlab.norms.calls import Caller, call_seed
from normlab.norms.replies import Utterance
from tests.crsec.support import BUSY_MODEL, client, config, new_run, write_script

runner = CliRunner()


def test_a_grown_society_is_hobbs_cafe_then_copies_under_new_surnames(tmp_path: Path) -> None:
    hobbs = load_society()
    grown = scaled_society(hobbs, 25)
    names = [agent.name for agent in grown.agents]
    assert len(set(names)) == 25 and grown.agents[:10] == hobbs.agents
    assert names[10:13] == ["Bob Adams", "Abigail Baker", "Francisco Bennett"]
    isabella = grown.agent("Isabella Brooks")  # the Rodriguez sisters are the Brooks sisters
    assert isabella.relationships == [
        "Tamara Brooks's sister",
        "member of the charity with Abigail Baker and Tamara Brooks",
    ]
    assert "Rodriguez" not in isabella.description and "Isabella Brooks" in isabella.description
    assert [agent.role for agent in grown.agents[10:20]] == [a.role for a in hobbs.agents]
    assert scaled_society(hobbs, 3).agents == hobbs.agents[:3]
    assert len({agent.name for agent in scaled_society(hobbs, 1000).agents}) == 1000
    out = tmp_path / "society.json"
    result = runner.invoke(app, ["crsec", "society", "--agents", "25", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert load_society(out) == grown
    result = runner.invoke(app, ["crsec", "society", "--agents", "1", "--out", str(out)])
    assert result.exit_code == 2 and "must be at least 2, got 1" in result.output


def test_attention_goes_to_the_nearest_so_every_agent_is_watched_by_as_many(
    tmp_path: Path,
) -> None:
    society = scaled_society(load_society(), 20)
    run = new_run(
        tmp_path / "run",
        RunConfig(society=society, society_file="grown", models={"agent": BUSY_MODEL}),
    )
    seen = Simulation(run, client(BUSY_MODEL)).perceive(0)
    watched = Counter(other for found in seen.values() for other, _ in found)
    assert all(len(found) == 8 for found in seen.values()) and len(seen) == 20
    assert set(watched.values()) == {8}  # not everyone watching the society's first eight
    first = [other for other, _ in seen["Bob Johnson"]]
    assert first[:4] == ["Abigail Chen", "Carlos Collins", "Francisco Lopez", "Jennifer Cooper"]


def test_calls_made_at_once_are_logged_in_order_with_seeds_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three calls made at once: the first is made only after the other two have finished,
    which calls made one after another never could, so they ran at once; the log keeps the
    order they were made in, and each carries the seed of its own branch (``detect/0``…),
    never another's. No clock is read: a loaded machine slows them all alike."""
    model = write_script(tmp_path, [("line", [json.dumps({"utterance": "hm"})])])
    models = client(model)
    caller = Caller(models, "Bob Johnson", seed=0, tick=0, phase="detect")
    seeds: dict[str, int | None] = {}
    structured = models.structured

    async def seen(*args: Any, **kwargs: Any) -> Any:
        prompt, config = args[2][-1].text, args[4]
        seeds[prompt] = config.seed
        return await structured(*args, **kwargs)

    monkeypatch.setattr(models, "structured", seen)

    async def made_at_once() -> list[Utterance | None]:
        others_done = asyncio.Event()
        finished: list[int] = []

        async def unit(branch: Caller, index: int) -> Utterance | None:
            if index == 0:  # waits for the two after it: only calls made at once get past
                await asyncio.wait_for(others_done.wait(), timeout=60)
            reply = await branch.ask("utterance", f"Say line {index}", Utterance)
            finished.append(index)
            if sorted(finished) == [1, 2]:
                others_done.set()
            return reply

        replies = await caller.each([0, 1, 2], unit)
        assert finished[-1] == 0
        return replies

    assert all(asyncio.run(made_at_once()))
    entries = caller.log.entries
    assert [entry.data.phase for entry in entries] == ["detect/0", "detect/1", "detect/2"]
    assert [entry.data.prompt for entry in entries] == ["Say line 0", "Say line 1", "Say line 2"]
    # Each branch's seed, as a resumed run recomputes it from the branch alone.
    assert seeds == {
        f"Say line {index}": call_seed(0, 0, f"detect/{index}", "Bob Johnson", "utterance", 1)
        for index in range(3)
    }
    assert len(set(seeds.values())) == 3


def test_max_connections_reaches_the_models() -> None:
    models = model_client({"agent": BUSY_MODEL}, 3)
    assert models.model("agent").config.max_connections == 3
    assert model_client({"agent": BUSY_MODEL}).model("agent").config.max_connections is None


def test_chains_are_the_longest_unit_of_each_phase(tmp_path: Path) -> None:
    run = new_run(tmp_path / "run", config(hours=(9, 10), faithful=True, max_utterances=4))
    asyncio.run(Simulation(run, client(BUSY_MODEL)).run())
    events = list(RunDir(tmp_path / "run").events())
    found = chains(events)
    calls = [event for event in events if isinstance(event, CallEvent)]
    assert sum(item["requests"] for item in found.values()) == sum(
        call.data.attempts + call.data.retries for call in calls
    )
    for (tick, phase), item in found.items():
        here = [c for c in calls if c.tick == tick and c.data.phase.split("/")[0] == phase]
        if phase in ("plan", "actions", "detect"):  # one call per agent (faithful detection:
            # per observation), all at once, each retried when cut off
            assert item["depth"] == max(call.data.attempts for call in here)
        if phase == "talk":  # a conversation's turns, one after another
            assert item["depth"] >= 2
    assert max(item["requests"] for (_, phase), item in found.items() if phase == "detect") > 4
