"""Scaling a society: grown society files, attention that spreads, calls made at once, and the
chains ``benchmarks.crsec_scale`` reads from a run's events."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from pathlib import Path

from benchmarks.crsec_scale import chains
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.runner import model_client
from normlab.crsec.sim.events import CallEvent
from normlab.crsec.sim.loop import Simulation
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import RunConfig
from normlab.crsec.sim.society import load_society, scaled_society
from normlab.norms.calls import Caller
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


def test_calls_made_at_once_are_logged_in_order_with_seeds_of_their_own(tmp_path: Path) -> None:
    model = write_script(tmp_path, [("line", [json.dumps({"utterance": "hm"})])])
    caller = Caller(client(model), "Bob Johnson", seed=0, tick=0, phase="detect")

    async def unit(branch: Caller, pause: float) -> Utterance | None:
        await asyncio.sleep(pause)  # the first item finishes last
        return await branch.ask("utterance", f"Say a line ({pause})", Utterance)

    started = time.perf_counter()
    replies = asyncio.run(caller.each([0.3, 0.0, 0.1], unit))
    assert time.perf_counter() - started < 0.35 and all(reply for reply in replies)
    entries = caller.log.entries
    assert [entry.data.phase for entry in entries] == ["detect/0", "detect/1", "detect/2"]
    assert [entry.data.prompt for entry in entries] == [
        "Say a line (0.3)", "Say a line (0.0)", "Say a line (0.1)"
    ]  # fmt: skip


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
