"""A CRSEC run survives a faulty endpoint and SIGKILLs, nothing lost or counted twice (issue 12).

Smaller than ``python -m benchmarks.crsec_scale``, through the same code: agents of a grown
society (``normlab crsec society``) run with ``--max-connections`` against
``benchmarks/endpoint.py`` as an OpenAI-compatible URL, with 20% rate limits and server
errors, 10% bodies that are no reply and 5% requests held past the attempt timeout; and a run
killed three times at seeded moments, resumed each time, against the same run uninterrupted.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from benchmarks.endpoint import Faults
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.events import CallEvent
from normlab.crsec.sim.rundir import RunDir
from tests.crsec.support import BUSY, SMALL, event_lines
from tests.helpers.endpoint import model_name, serving
from tests.helpers.interrupt import kill_when

runner = CliRunner()

FAULTS = Faults(rate_limit=0.1, server_error=0.1, malformed=0.05, truncated=0.05, timeout=0.05)
GROWN = ["Bob Johnson", "Bob Adams", "Abigail Baker", "Carlos Gomez"]
"""Two of Hobbs Cafe's agents and two of their copies in a society of twelve."""
FAULTY_RUN = ["--agents", ",".join(GROWN), "--hours", "9-10", "--days", "1",
              "--tick-minutes", "30", "--max-utterances", "2"]  # fmt: skip


ONCE_PER_AGENT_AND_TICK = (
    "create_norm",
    "plan",
    "actions",
    "perceive",
    "detect",
    "thought",
    "hour",
)


def crsec(*args: str) -> str:
    result = runner.invoke(app, ["crsec", *args], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    return result.output


def analysis(*folders: Path) -> dict[str, Any]:
    output = crsec("analyze", *map(str, folders), "--json")
    value: dict[str, Any] = json.loads(output[output.index("{") :])
    return value


def single_reply_judge(folder: Path) -> str:
    """The busy script with one reply per rule: a judge whose verdicts do not depend on the
    order in which concurrent judge calls reach it."""
    script = json.loads(BUSY.read_text())
    for rule in script["rules"]:
        rule["replies"] = rule["replies"][:1]
    path = folder / "judge.json"
    path.write_text(json.dumps(script))
    return f"scripted/{path}"


def calls(folder: Path) -> list[CallEvent]:
    return [event for event in RunDir(folder).events() if isinstance(event, CallEvent)]


def without_retries(folder: Path) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in event_lines(folder)]
    for event in events:
        if event["kind"] == "call":
            event["data"].pop("retries")
    return events


def assert_every_tick_once(folder: Path) -> None:
    """Finished, with each tick's events written once, in order, and every call counted once."""
    run = RunDir(folder)
    state = run.checkpoint()
    total = clock_of(run.config()).total_ticks
    assert state is not None and state.finished and state.tick == total
    events = list(run.events())
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    ticks = [event.tick for event in events]
    assert ticks == sorted(ticks) and ticks[-1] == total - 1
    once = [(e.tick, e.kind, e.agent) for e in events if e.kind in ONCE_PER_AGENT_AND_TICK]
    assert len(once) == len(set(once))  # no tick's events written twice
    hours = [event.data.hour for event in events if event.kind == "hour"]
    assert hours == list(range(len(hours))) == [m.hour for m in run.metrics()]
    assert sum(event.kind == "call" for event in events) == state.usage.calls


@pytest.mark.slow
def test_a_run_through_a_faulty_endpoint_completes_every_tick_and_counts_its_retries(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NORMLAB_ATTEMPT_TIMEOUT", "2")
    society = workdir / "society.json"
    crsec("society", "--agents", "12", "--out", str(society))
    judge = single_reply_judge(workdir)
    stats: dict[str, Any] = {}
    for name, faults in (("faulty", FAULTS), ("clean", Faults())):
        with serving(workdir / f"endpoint-{name}", BUSY, monkeypatch, faults=faults) as endpoint:
            crsec(
                "run", "--model", model_name(endpoint), "--judge", judge, "--society",
                str(society), "--out", str(workdir / name), *FAULTY_RUN,
                "--max-connections", "8", "--no-report",
            )  # fmt: skip
            stats[name] = endpoint.stats()
    assert_every_tick_once(workdir / "faulty")
    faults = sum(stats["faulty"]["faults"].values())
    assert set(stats["faulty"]["faults"]) >= {"rate_limit", "server_error", "malformed"}
    faulty, clean = analysis(workdir / "faulty", workdir / "clean")["runs"]
    assert faulty["agents"] == 4 and len(faulty["hours"]) == 1
    # every request that brought no reply was made again, and counted once: the faults, and
    # any answer that came after the attempt timeout
    replies = sum(event.data.attempts for event in calls(workdir / "faulty"))
    retries = faulty["usage"]["retries"]
    assert retries == stats["faulty"]["requests"] - replies >= faults > 0
    assert sum(item["retries"] for item in faulty["by_operation"].values()) == retries
    assert clean["usage"]["retries"] == 0
    # the faults changed how often a request was sent, never what the run did
    assert without_retries(workdir / "faulty") == without_retries(workdir / "clean")
    table = crsec("analyze", str(workdir / "faulty"))
    usage = faulty["usage"]
    shown = f"{usage['parse_failures']} / {usage['truncations']} / {retries}"
    assert "parse failures / truncations / retries" in table and shown in table


@pytest.mark.slow
def test_a_run_killed_three_times_resumes_to_the_uninterrupted_runs_norms_and_metrics(
    workdir: Path,
) -> None:
    judge = single_reply_judge(workdir)
    options = ["--agents", ",".join(SMALL), "--hours", "9-11", "--days", "1",
               "--tick-minutes", "15", "--no-report"]  # fmt: skip
    crsec("run", "--model", f"scripted/{BUSY}", "--judge", judge, "--out",
          str(workdir / "whole"), *options)  # fmt: skip
    slow = json.loads(BUSY.read_text())
    # Every tick waits for at least one reply, so takes 0.25 s or more (0.1 s was too little: a
    # loaded machine's kill landed past the last tick): the last target lies three ticks, about
    # 1.8 s, before the run's end, against a pause of at most 0.5 s and a poll of 0.05 s.
    slow["delay"] = 0.25
    script = workdir / "slow.json"
    script.write_text(json.dumps(slow))
    folder = workdir / "killed"
    run = ["crsec", "run", "--model", f"scripted/{script}", "--judge", judge, "--out",
           str(folder), *options]  # fmt: skip
    rng = random.Random("crsec-kills")
    total = clock_of(RunDir(workdir / "whole").config()).total_ticks
    done = 0
    for kill, target in enumerate(sorted(rng.sample(range(1, total - 2), 3))):
        pause = rng.uniform(0.0, 0.5)  # past a checkpoint, somewhere inside the next tick
        goal = max(target, done + 1)  # each run gets somewhere before it is killed
        reached: list[float] = []

        def ready(goal: int = goal, pause: float = pause, at: list[float] = reached) -> bool:
            state = RunDir(folder).checkpoint() if (folder / "checkpoint.json").exists() else None
            if not at and state is not None and state.tick >= goal:
                at.append(time.monotonic())
            return bool(at) and time.monotonic() - at[0] >= pause

        args = run if kill == 0 else ["crsec", "resume", str(folder), "--no-report"]
        kill_when(args, ready, workdir, poll=0.05)
        state = RunDir(folder).checkpoint()
        assert state is not None, "killed before its first checkpoint"
        assert goal <= state.tick < total and not state.finished, (goal, state.tick, total)
        done = state.tick
    crsec("resume", str(folder), "--no-report")
    assert_every_tick_once(folder)
    assert event_lines(folder) == event_lines(workdir / "whole")
    (killed, whole) = analysis(folder, workdir / "whole")["runs"]
    assert len(killed["hours"]) == 2 and killed["finished"]
    for measure in ("hours", "counts", "final", "emergence", "norm_databases", "usage"):
        assert killed[measure] == whole[measure], measure


def test_a_torn_line_before_the_first_checkpoint_is_cut_on_resume(workdir: Path) -> None:
    """A disk that fills before the first checkpoint leaves a torn events.jsonl line and no
    checkpoint; resume used to say success and the analysis then failed forever on the line.
    Now the lines no checkpoint counts are cut, said, and the run equals an unbroken one."""
    import shutil

    judge = single_reply_judge(workdir)
    options = ["--agents", ",".join(SMALL), "--hours", "9-10", "--days", "1",
               "--tick-minutes", "30", "--no-report"]  # fmt: skip
    crsec("run", "--model", f"scripted/{BUSY}", "--judge", judge, "--out",
          str(workdir / "whole"), *options)  # fmt: skip
    torn = workdir / "torn"
    torn.mkdir()
    shutil.copy(workdir / "whole" / "config.json", torn / "config.json")
    first = event_lines(workdir / "whole")[0]
    (torn / "events.jsonl").write_text(first + "\n" + first[: len(first) // 2])
    output = crsec("resume", str(torn), "--no-report")
    assert "cut 2 line(s) of events.jsonl that no checkpoint counts" in output
    assert_every_tick_once(torn)
    assert event_lines(torn) == event_lines(workdir / "whole")
    (repaired, whole) = analysis(torn, workdir / "whole")["runs"]
    assert repaired["hours"] == whole["hours"]
