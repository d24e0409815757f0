"""Figure 2's measures on hand-built run directories, checked against hand-computed values."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from normlab.crsec.analysis.figure2 import (
    MEASURES,
    CrsecAnalysis,
    Emergence,
    HourShares,
    RunResult,
    analyze_runs,
    group_result,
    load_runs,
    prompt_prefix_shares,
)
from normlab.crsec.analysis.judge import JUDGE_CACHE
from normlab.crsec.analysis.report import figure_ablations
from normlab.crsec.sim.events import CallEvent, Event, parse_event
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import AgentState, HourMetrics, Usage, WorldState
from normlab.stats import Rate
from tests.crsec.support import client, config, write_script

AGENTS = ["Bob Johnson", "Carlos Gomez", "Tamara Rodriguez", "Wolfgang Schulz"]
SMOKE_FREE = {"content": "No smoking inside.", "utility": 90, "id": 1, "origin": "created"}
QUIET = {"content": "Keep it down.", "utility": 50, "id": 2, "origin": "chat"}
OUTSIDE = [["outside Hobbs Cafe", "X is smoking outside"]]
INSIDE = [["Hobbs Cafe", "X is smoking at a table"]]


def judge_model(folder: Path) -> str:
    smoking = {"matches": ["no_smoking_indoors"]}
    compliant = {"verdicts": [{"norm": "no_smoking_indoors", "actions": "complied"}]}
    planned = {"verdicts": [{"norm": "no_smoking_indoors", "plan": "complied"},
                            {"norm": "tipping_after_meals", "plan": "complied"}]}  # fmt: skip
    violated = {"verdicts": [{"norm": "no_smoking_indoors", "plan": "complied",
                              "actions": "violated"}]}  # fmt: skip
    return write_script(
        folder,
        [
            ("PERSONAL NORM: No smoking inside", [smoking]),
            ("PERSONAL NORM: Keep it down", ["I cannot tell"]),  # never parses: no match
            ("HOUR: tip after lunch\n.*\nHobbs Cafe: X is smoking at a table", [violated]),
            ("HOUR: tip after lunch", [planned]),
            ("outside Hobbs Cafe: X is smoking outside", [compliant]),
            ("complied", [{"verdicts": []}]),
        ],
    )


def hand_run(
    folder: Path, hours: list[dict[str, Any]], calls: list[dict[str, Any]] | None = None
) -> None:
    """A finished two-hour run of four agents whose hour snapshots are ``hours``."""
    run_config = config(agents=AGENTS)
    run = RunDir(folder)
    run.create(run_config)
    events: list[Event] = []
    for call in calls or []:
        data = {k: v for k, v in call.items() if k != "agent"}
        events.append(parse_event({"seq": 0, "tick": 0, "time": "day 1 09:00", "kind": "call",
                                   "agent": call["agent"], "data": data}))  # fmt: skip
    for index, agents in enumerate(hours):
        events.append(
            parse_event({"seq": 0, "tick": index * 12 + 11, "time": "t", "kind": "hour", "data": {
                "hour": index, "label": f"day 1 {9 + index:02d}:00–{10 + index:02d}:00",
                "agents": agents}}),
        )  # fmt: skip
    for seq, event in enumerate(events, start=1):
        event.seq = seq
    state = WorldState(
        tick=24,
        created=True,
        finished=True,
        agents={
            name: AgentState(name=name, place="Hobbs Cafe", action="", doing="") for name in AGENTS
        },
        usage=Usage(calls=len(calls or []), input_tokens=10),
    )
    metrics = [
        HourMetrics(
            hour=index,
            label=f"h{index}",
            conflicts=3 - index,
            chats=index,
            norm_chats=index,
            thoughts=2,
            norm_thoughts=1,
        )
        for index in range(len(hours))
    ]
    run.save(state, events, metrics)


def agent(
    norms: list[dict[str, Any]], plan: str = "", actions: list[list[str]] | None = None
) -> dict[str, Any]:
    return {"qualified": norms, "plan": plan, "actions": actions or []}


HOURS = [
    {  # hour 1: 2 of 4 hold smoking (50%); Bob adheres in actions; Tamara plan ok, acts against
        "Bob Johnson": agent([SMOKE_FREE], "read", OUTSIDE),
        "Carlos Gomez": agent([QUIET], "smoke", INSIDE),
        "Tamara Rodriguez": agent([SMOKE_FREE, QUIET], "tip after lunch", INSIDE),
        "Wolfgang Schulz": agent([]),
    },
    {  # hour 2: 3 of 4 hold (75% ≥ 70%); 3 adhere (Bob, Carlos in actions; Wolfgang in plan)
        "Bob Johnson": agent([SMOKE_FREE], "read", OUTSIDE),
        "Carlos Gomez": agent([SMOKE_FREE], "smoke", OUTSIDE),
        "Tamara Rodriguez": agent([QUIET], "nap", []),
        "Wolfgang Schulz": agent([SMOKE_FREE], "tip after lunch", []),
    },
]


def analyze(folders: list[Path], model: str) -> CrsecAnalysis:
    return asyncio.run(analyze_runs(load_runs(folders), client(model), model))


def test_shares_emergence_and_final_values_by_hand(tmp_path: Path) -> None:
    model = judge_model(tmp_path)
    hand_run(tmp_path / "run", HOURS)
    analysis = analyze([tmp_path / "run"], model)
    (run,) = analysis.runs
    first, second = run.hours
    assert first.holding == {
        "no_smoking_indoors": 0.5,
        "quiet_in_public": 0.0,
        "tipping_after_meals": 0.0,
    }
    assert first.actions["no_smoking_indoors"] == 0.25 and first.plan["no_smoking_indoors"] == 0.25
    assert first.adhering["no_smoking_indoors"] == 0.25  # Tamara planned well but smoked inside
    assert second.holding["no_smoking_indoors"] == 0.75
    assert second.plan == {
        "no_smoking_indoors": 0.25,
        "quiet_in_public": 0.0,
        "tipping_after_meals": 0.25,
    }
    assert second.adhering["no_smoking_indoors"] == 0.75
    assert run.emergence["no_smoking_indoors"].model_dump() == {
        "holding": 2,
        "adhering": 2,
        "both": 2,
    }
    assert run.emergence["tipping_after_meals"].model_dump() == {
        "holding": None,
        "adhering": None,
        "both": None,
    }
    assert run.judge_failures == 1  # "Keep it down." never parsed: counted, not matched
    (group,) = analysis.groups
    final = group.final["no_smoking_indoors"]["holding"]
    assert isinstance(final, Rate) and (final.k, final.n) == (3, 4)
    # Figure 2(a) is counted from the events (these hold no detection, chat or thought),
    # not taken from metrics.jsonl (conflicts 3, thoughts 2): test_figure2_by_hand counts them
    assert group.counts["conflicts"][0].mean == 0 and run.counts[0].thoughts == 0


def test_bands_and_emergence_over_runs(tmp_path: Path) -> None:
    model = judge_model(tmp_path)
    hand_run(tmp_path / "a", HOURS)
    slower = [HOURS[0], {**HOURS[1], "Carlos Gomez": agent([QUIET], "smoke", INSIDE)}]
    hand_run(tmp_path / "b", slower)
    (group,) = analyze([tmp_path / "a", tmp_path / "b"], model).groups
    band = group.series["holding"]["no_smoking_indoors"][1]
    assert (band.mean, band.low, band.high, band.n) == (0.625, 0.5, 0.75, 2)
    assert group.reached["no_smoking_indoors"]["holding"] == (
        "1 of 2 runs; 1 censored (not over 70% by their last hour: 2)"
    )
    assert group.emergence["no_smoking_indoors"]["holding"].value == 2.0
    final = group.final["no_smoking_indoors"]["holding"]
    assert final.value == pytest.approx(0.625) and final.n == 2


def test_the_judge_is_cached_in_the_run_and_survives_a_cut_line(tmp_path: Path) -> None:
    model = judge_model(tmp_path)
    hand_run(tmp_path / "run", HOURS)
    first = analyze([tmp_path / "run"], model).runs[0]
    # 2 norms and 4 agents × 2 hours, Bob's two hours alike: asked once
    assert first.judge_calls == 2 + 7 and first.judge_cached == 0
    cache = tmp_path / "run" / JUDGE_CACHE
    lines = cache.read_text().splitlines()
    cache.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:20])  # a kill mid-append
    again = analyze([tmp_path / "run"], model).runs[0]
    assert again.judge_calls == 1 and again.judge_cached == 8
    assert again.hours == first.hours
    assert all(json.loads(line) for line in cache.read_text().splitlines())


def test_prefix_share_counts_what_repeats_the_agents_previous_prompt() -> None:
    calls = [
        {"agent": "A", "role": "agent", "system": "abcd", "prompt": "xy"},  # 7 chars, 0 shared
        {"agent": "A", "role": "agent", "system": "abcd", "prompt": "xz"},  # 6 shared of 7
        {"agent": "B", "role": "agent", "system": "abcd", "prompt": "xy"},  # B's first: 0
        {"agent": "A", "role": "judge", "system": "", "prompt": "ignored"},
    ]
    overall, by_agent = prompt_prefix_shares([call_event(call) for call in calls])
    assert by_agent == {"A": pytest.approx(6 / 14), "B": 0.0}
    assert overall == pytest.approx(6 / 21)


def call_event(call: dict[str, str]) -> CallEvent:
    """A logged call with what the prefix share reads (the rest as a cheap call's)."""
    data = {"phase": "talk", "operation": "utterance", "role": call["role"],
            "system": call["system"], "prompt": call["prompt"], "input_tokens": 1,
            "cached_input_tokens": 0, "output_tokens": 1, "cost": None}  # fmt: skip
    event = parse_event(
        {"seq": 1, "tick": 0, "time": "t", "kind": "call", "agent": call["agent"], "data": data}
    )
    assert isinstance(event, CallEvent)
    return event


def test_a_run_with_no_finished_hour_cannot_be_analyzed(tmp_path: Path) -> None:
    from normlab.core.errors import InputError

    RunDir(tmp_path / "run").create(config())
    with pytest.raises(InputError, match="has not finished a simulated hour"):
        load_runs([tmp_path / "run"])


def shares_run(label: str, hours: dict[int, float]) -> RunResult:
    """A run's result holding ``no_smoking_indoors`` at each hour's share (other norms 0)."""
    targets = ["no_smoking_indoors", "quiet_in_public"]

    def share(value: float) -> dict[str, float]:
        return {target: value if target == targets[0] else 0.0 for target in targets}

    return RunResult(
        folder=label, label=label, seed=0, models={}, faithful=False, finished=False, agents=3,
        hours=[HourShares(hour=h, label=f"hour {h}", holding=share(v), plan=share(0),
                          actions=share(0), adhering=share(v), both=share(v))
               for h, v in hours.items()],
        counts=[HourMetrics(hour=h, label=f"hour {h}", conflicts=h) for h in hours],
        emergence={t: Emergence(holding=None, adhering=None) for t in targets},
        final={t: dict.fromkeys(MEASURES, 0.0) for t in targets},
        usage=Usage(), by_operation={}, prefix_share=None, prefix_share_by_agent={},
        judge_calls=0, judge_cached=0, judge_failures=0,
    )  # fmt: skip


def test_runs_and_settings_of_unequal_length_line_up_by_hour() -> None:
    """A newcomer run stopped at its budget after one hour is judged on hours 0 (the day
    before), 7 (the hour before the arrival) and 8 (its own); a finished one on 0, 1, 2, 7, 8,
    9, 10. By position the stopped run's hour 7 was averaged with the finished run's hour 1,
    and an ablation figure of the two settings failed (x and y of different lengths)."""
    stopped = shares_run("stopped", {0: 0.0, 7: 1.0, 8: 1.0})
    finished = shares_run("finished", {0: 0.0, 1: 0.5, 2: 0.5, 7: 0.5, 8: 0.5, 9: 1.0, 10: 1.0})
    group = group_result("arm", [stopped, finished])
    assert group.indices == [0, 1, 2, 7, 8, 9, 10]
    assert group.hours == [f"hour {h}" for h in group.indices]
    bands = group.series["holding"]["no_smoking_indoors"]
    # hour 1: the finished run alone (0.5); hour 7: both, (1.0 + 0.5) / 2 = 0.75
    assert [(band.mean, band.n) for band in bands] == [
        (0.0, 2), (0.5, 1), (0.5, 1), (0.75, 2), (0.75, 2), (1.0, 1), (1.0, 1),
    ]  # fmt: skip
    assert [band.mean for band in group.counts["conflicts"]] == [0, 1, 2, 7, 8, 9, 10]
    arm, control = group_result("arm", [stopped]), group_result("control", [finished])
    targets = {"no_smoking_indoors": "No smoking indoors.", "quiet_in_public": "Quiet."}
    png = figure_ablations([arm, control], targets, "holding")
    assert png.startswith(b"\x89PNG")
