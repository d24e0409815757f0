"""The simulation loop on the scripted model: phases, determinism, ablations, budgets, resume."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any, get_args

import pytest

from normlab.core.errors import InputError
from normlab.crsec.sim.events import (
    CallEvent,
    ConversationEvent,
    DetectEvent,
    EvaluateEvent,
    Event,
    EventKind,
    SynthesisEvent,
    parse_event,
)
from normlab.crsec.sim.loop import Simulation, action_text
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import Ablation, RunConfig
from normlab.crsec.sim.society import load_society
from normlab.norms.normdb import normalized
from normlab.norms.records import AssessedItem, SkippedItem
from tests.crsec.support import client, config, event_lines, new_run, of_kind


def simulate(folder: Path, run_config: RunConfig | None = None, **budget: Any) -> str:
    run = RunDir(folder) if run_config is None else new_run(folder, run_config)
    model = run.config().models["agent"]
    return asyncio.run(Simulation(run, client(model)).run(**budget))


def events(folder: Path) -> list[Event]:
    return list(RunDir(folder).events())


def operations(folder: Path) -> Counter[str]:
    return Counter(e.data.operation for e in of_kind(events(folder), CallEvent))


def test_a_run_goes_through_every_phase_and_writes_its_files(tmp_path: Path) -> None:
    assert simulate(tmp_path / "run", config()) == "finished"
    run = RunDir(tmp_path / "run")
    state = run.checkpoint()
    assert state is not None and state.finished and state.tick == 24  # 2 hours of 5 minutes
    kinds = Counter(event.kind for event in events(tmp_path / "run"))
    for kind in ("create_norm", "plan", "actions", "perceive", "detect", "conversation",
                 "identify", "evaluate", "thought", "hour", "call"):  # fmt: skip
        assert kinds[kind] > 0, kind
    assert kinds["create_norm"] == 1  # Bob is the only entrepreneur of the four
    assert kinds["plan"] == 4 and kinds["actions"] == 8 and kinds["hour"] == 2
    metrics = run.metrics()
    assert [m.label for m in metrics] == ["day 1 09:00–10:00", "day 1 10:00–11:00"]
    assert sum(m.usage.calls for m in metrics) == state.usage.calls == kinds["call"]
    seqs = [event.seq for event in events(tmp_path / "run")]
    assert seqs == list(range(1, state.events_written + 1))


def test_calls_carry_the_agents_stable_prefix(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config())
    calls = [e for e in of_kind(events(tmp_path / "run"), CallEvent) if e.agent == "Carlos Gomez"]
    spec = load_society().agent("Carlos Gomez")
    for call in calls:
        assert call.data.system.startswith("You are Carlos Gomez, an ordinary agent in Hobbs Cafe.")
        assert spec.description in call.data.system
        assert "YOUR QUALIFIED PERSONAL NORMS:" in call.data.system


def test_the_same_seed_gives_the_same_event_log_and_another_seed_does_not(tmp_path: Path) -> None:
    simulate(tmp_path / "a", config(seed=3))
    simulate(tmp_path / "b", config(seed=3))
    simulate(tmp_path / "c", config(seed=4))
    assert event_lines(tmp_path / "a") == event_lines(tmp_path / "b")
    assert event_lines(tmp_path / "a") != event_lines(tmp_path / "c")


def test_receivers_store_evaluated_information_with_provenance(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config())
    evaluated = of_kind(events(tmp_path / "run"), EvaluateEvent)
    assert {e.data.origin for e in evaluated} == {"chat", "thought"}
    state = RunDir(tmp_path / "run").checkpoint()
    assert state is not None
    for event in evaluated:
        database = state.agents[event.agent].norms
        data = event.data
        if isinstance(data, SkippedItem):
            assert data.skipped.startswith("same words as #")
            continue
        (item,) = [n for n in database.norms if n.id == data.id]
        assert item.origin == data.origin and item.qualified == data.qualified
        assert item.source_text == data.related


def test_conversations_respect_busy_agents_and_the_pair_buffer(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config(pair_buffer_minutes=60))
    talks = of_kind(events(tmp_path / "run"), ConversationEvent)
    assert talks
    last: dict[frozenset[str], int] = {}
    for talk in talks:
        pair = frozenset((talk.agent, talk.data.receiver))
        if pair in last:
            assert talk.tick - last[pair] >= 12  # 60 minutes of 5-minute ticks
        last[pair] = talk.tick
        assert 1 <= len(talk.data.transcript) <= 6
    by_tick = Counter((t.tick, who) for t in talks for who in (t.agent, t.data.receiver))
    assert max(by_tick.values()) == 1  # nobody is in two conversations at once


@pytest.mark.parametrize(
    ("ablation", "absent"),
    [
        ("no_entrepreneurs", "create_norm"),
        ("no_communication", "utterance"),
        ("no_observation", "generate_thought"),
        ("no_evaluation", "evaluate"),
        ("no_synthesis", "classify"),
    ],
)
def test_each_ablation_switches_its_part_off(
    tmp_path: Path, ablation: Ablation, absent: str
) -> None:
    simulate(tmp_path / "full", config())
    full = operations(tmp_path / "full")
    simulate(tmp_path / ablation, config(ablations=[ablation]))
    assert full[absent] > 0 and operations(tmp_path / ablation)[absent] == 0
    assert RunDir(tmp_path / ablation).config().label == ablation


def test_no_evaluation_accepts_everything_it_rates(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config(ablations=["no_evaluation"]))
    evaluated = [
        e.data
        for e in of_kind(events(tmp_path / "run"), EvaluateEvent)
        if isinstance(e.data, AssessedItem)
    ]
    assert evaluated and all(item.qualified and item.mode == "none" for item in evaluated)


def test_faithful_mode_makes_one_call_per_operation(tmp_path: Path) -> None:
    simulate(tmp_path / "merged", config())
    simulate(tmp_path / "faithful", config(faithful=True))
    merged, faithful = operations(tmp_path / "merged"), operations(tmp_path / "faithful")
    assert faithful["evaluate"] == 0 and faithful["check_consistency"] > 0
    assert faithful["detect_conflict"] > merged["detect_conflict"]
    detects = of_kind(events(tmp_path / "faithful"), DetectEvent)
    calls = [e for e in of_kind(events(tmp_path / "faithful"), CallEvent)
             if e.data.operation == "detect_conflict"]  # fmt: skip
    assert len(calls) == sum(len(e.data.findings) for e in detects)


def test_synthesis_folds_norms_into_an_abstract_norm(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config())
    syntheses = of_kind(events(tmp_path / "run"), SynthesisEvent)
    assert syntheses and syntheses[0].agent == "Bob Johnson"
    first = syntheses[0].data
    assert first.trigger == "paper" and first.qualified_utility_before > 350
    state = RunDir(tmp_path / "run").checkpoint()
    assert state is not None
    bob = state.agents["Bob Johnson"].norms
    for abstract in first.abstracts:
        if abstract.qualified:
            members = [n for n in bob.norms if n.id in abstract.members]
            assert members and all(not n.activated and n.valid for n in members)


@pytest.mark.parametrize("faithful", [False, True])
def test_no_agent_ever_holds_two_qualified_norms_with_the_same_words(
    tmp_path: Path, faithful: bool
) -> None:
    """The busy script gives every category the same abstract: once one category's abstract is
    qualified, another's with the same words is a duplicate of it (issue 31: Bob held it
    twice)."""
    simulate(tmp_path / "run", config(faithful=faithful))
    for event in events(tmp_path / "run"):
        if event.kind == "hour":
            for name, agent in event.data.agents.items():
                words = [normalized(norm.content) for norm in agent.qualified]
                assert len(words) == len(set(words)), (event.data.label, name, words)
    repeated = 0
    for synthesis in of_kind(events(tmp_path / "run"), SynthesisEvent):
        held: dict[str, int] = {}
        for abstract in synthesis.data.abstracts:
            if normalized(abstract.content) in held:
                repeated += 1
                assert not abstract.qualified
                assert abstract.rejection == f"same words as #{held[normalized(abstract.content)]}"
            elif abstract.qualified:
                held[normalized(abstract.content)] = abstract.id
    assert repeated > 0 or faithful  # the default run has Bob's two identical abstracts


def test_a_budget_stops_at_a_checkpoint_and_resuming_finishes_the_same_log(tmp_path: Path) -> None:
    simulate(tmp_path / "whole", config())
    assert simulate(tmp_path / "parts", config(), max_calls=30) == "budget"
    stopped = RunDir(tmp_path / "parts").checkpoint()
    assert stopped is not None and not stopped.finished and stopped.usage.calls >= 30
    assert simulate(tmp_path / "parts", max_calls=60) == "budget"
    assert simulate(tmp_path / "parts") == "finished"
    assert event_lines(tmp_path / "whole") == event_lines(tmp_path / "parts")
    whole, parts = RunDir(tmp_path / "whole"), RunDir(tmp_path / "parts")
    assert [m.model_dump() for m in whole.metrics()] == [m.model_dump() for m in parts.metrics()]


def test_an_unpriced_model_cannot_be_held_to_a_cost_budget(tmp_path: Path) -> None:
    # the first tick runs (no call has told the price yet), then the run stops at its checkpoint
    assert simulate(tmp_path / "run", config(), max_cost=1.0) == "cost unknown"
    state = RunDir(tmp_path / "run").checkpoint()
    assert state is not None and state.tick == 1 and state.usage.unpriced_calls > 0


def test_a_half_written_tick_is_cut_back_on_resume(tmp_path: Path) -> None:
    simulate(tmp_path / "whole", config())
    simulate(tmp_path / "parts", config(), max_calls=40)
    with (tmp_path / "parts" / "events.jsonl").open("a") as handle:
        handle.write('{"seq": 999, "tick": 99, "time": "x", "kind": "call", "da')
    with (tmp_path / "parts" / "metrics.jsonl").open("a") as handle:
        handle.write('{"hour": 7}\n')
    state = RunDir(tmp_path / "parts").checkpoint()
    assert state is not None and len(events(tmp_path / "parts")) == state.events_written
    simulate(tmp_path / "parts")
    assert event_lines(tmp_path / "whole") == event_lines(tmp_path / "parts")


def test_a_finished_run_resumes_to_nothing(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config())
    before = event_lines(tmp_path / "run")
    assert simulate(tmp_path / "run") == "finished"
    assert event_lines(tmp_path / "run") == before


def test_subtasks_are_written_about_the_agent_who_does_them() -> None:
    carlos = load_society().agent("Carlos Gomez")
    assert action_text(carlos, "smoking a pipe.") == "Carlos Gomez is smoking a pipe"
    assert action_text(carlos, "Carlos is reading") == "Carlos Gomez is reading"
    assert (
        action_text(carlos, "Kelly is deciding on her order")
        == "Carlos Gomez is deciding on her order"
    )
    assert action_text(carlos, "Carlos Gomez is writing") == "Carlos Gomez is writing"
    assert action_text(carlos, "Writing a poem") == "Carlos Gomez is writing a poem"


def test_the_event_log_is_json_lines_of_events(tmp_path: Path) -> None:
    simulate(tmp_path / "run", config())
    lines = event_lines(tmp_path / "run")
    assert lines, "the run wrote no events: nothing would be checked"
    parsed: list[Event] = [parse_event(json.loads(line)) for line in lines]
    assert {event.kind for event in parsed} == set(get_args(EventKind))  # every kind is typed
    for line, event in zip(lines, parsed, strict=True):  # and the types lose nothing
        assert json.dumps(event.model_dump(mode="json"), ensure_ascii=False) == line


def test_a_malformed_event_line_is_one_error_naming_the_file_line_and_field(
    tmp_path: Path,
) -> None:
    simulate(tmp_path / "run", config(), max_calls=1)
    path = tmp_path / "run" / "events.jsonl"
    first, *rest = event_lines(tmp_path / "run")
    row = json.loads(first)
    for change, field, line in (
        ({"kind": "dance"}, "kind", 1),
        ({"data": {**row["data"], "phase": 3}}, "data.phase", 1),
    ):
        path.write_text("\n".join([json.dumps({**row, **change}), *rest]) + "\n")
        with pytest.raises(InputError) as error:
            list(RunDir(tmp_path / "run").events())
        assert error.value.one_line().startswith(f"{path}:{line}: field '{field}': ")
