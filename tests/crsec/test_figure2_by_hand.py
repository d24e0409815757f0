"""Every Figure 2 metric on a hand-written ``events.jsonl``, against values computed by hand.

Three agents (Bob Johnson, the norm entrepreneur; Tamara Rodriguez; Carlos Gomez, the smoker)
live two simulated hours, 09–10 and 10–11. The log below is what the simulation would write:
Bob creates his norms, spreads "no smoking" to Carlos in a chat, a second chat yields
nothing, thoughts yield norms that are accepted, rejected (two checks failed) or skipped as
exact duplicates, one identified item names a thought that does not exist, Bob's long-term
synthesis folds three norms into an abstract one, and the agents' plans and actions comply
with, or violate, the norms at stake. The run goes through the loader ``analyze`` and
``report`` use (there is no ``metrics.jsonl``: Figure 2(a) is counted from the events), and
each number of the per-hour curves, the emergence table and the per-hour table is the one
worked out by hand in the comments.
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

import normlab.crsec.analysis.report as report_module
from normlab.crsec.analysis.figure2 import CrsecAnalysis, analyze_runs, load_runs
from normlab.crsec.analysis.report import counts_table, emergence_table, write_report
from normlab.crsec.emergence import emergence_hour, over
from normlab.crsec.sim.counts import hour_counts
from normlab.crsec.sim.events import parse_event
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import AgentState, WorldState
from normlab.norms.schemas import NormDatabase, PersonalNorm
from normlab.report import LineSeries
from normlab.stats import Rate
from tests.crsec.support import client, config, write_script

BOB, TAMARA, CARLOS = "Bob Johnson", "Tamara Rodriguez", "Carlos Gomez"
AGENTS = [BOB, TAMARA, CARLOS]  # the society's order
SMOKING, QUIET, TIPPING = "no_smoking_indoors", "quiet_in_public", "tipping_after_meals"
TARGETS = [SMOKING, QUIET, TIPPING]

# What the judge says each qualified norm expresses (a strict judge: the abstract norm is too
# vague to express any target, which makes Bob's holding of "no smoking" dip in hour 2).
MATCHES = {
    "No smoking indoors.": [SMOKING],
    "No smoking inside the cafe.": [SMOKING],
    "Smoke only outside.": [SMOKING],
    "Keep your voice down inside the cafe.": [QUIET],
    "Use headphones when listening to music.": [QUIET],
    "Be quiet in public.": [QUIET],
    "People tip the staff after their meals.": [TIPPING],
    "Tip after eating.": [TIPPING],
    "Tip the waiter after lunch.": [TIPPING],
    "Be considerate of others in shared spaces.": [],
}


def norm(id: int, content: str, utility: int) -> dict[str, Any]:
    """One of Bob's created norms, as the ``create_norm`` event lists them."""
    return PersonalNorm(
        id=id,
        content=content,
        utility=utility,
        type="descriptive" if "tip the staff" in content else "injunctive",
        activated=True,
        valid=True,
        origin="created",
    ).model_dump()


BOB_CREATED = [
    norm(1, "No smoking indoors.", 100),
    norm(2, "Keep your voice down inside the cafe.", 90),
    norm(3, "People tip the staff after their meals.", 90),
    norm(4, "Use headphones when listening to music.", 80),
]


def held(*norms: tuple[int, str, int, str]) -> list[dict[str, Any]]:
    """An hour snapshot's qualified norms, as the simulation writes them."""
    return [
        {"id": id, "content": content, "utility": utility, "origin": origin}
        for id, content, utility, origin in norms
    ]


def snapshot(
    qualified: list[dict[str, Any]], plan: str, actions: list[list[str]]
) -> dict[str, Any]:
    return {"qualified": qualified, "plan": plan, "actions": actions}


def finding(observed: str, observation: str, conflict: bool, talk: bool) -> dict[str, Any]:
    return {
        "observed": observed,
        "observation": observation,
        "conflict": conflict,
        "talk": talk,
        "topic": "a norm" if conflict else "",
    }


def evaluated(
    content: str, id: int | None, qualified: bool, rejection: str | None = None
) -> dict[str, Any]:
    """An ``evaluate`` event's data: an item evaluated (``id``) or skipped (``id`` None)."""
    data: dict[str, Any] = {"content": content, "type": "injunctive", "origin": "chat",
                            "related": "…", "norms": []}  # fmt: skip
    if id is None:
        data["skipped"] = "same words as #1"
        return data
    checks = {"consistency": True, "duplication": True, "type": True, "conflict": True}
    if rejection:
        checks[rejection] = False
    data.update(id=id, mode="merged", checks=checks, qualified=qualified, utility=70,
                rejection=None if qualified else f"failed the {rejection} check")  # fmt: skip
    return data


def item(content: str, source: int = 1) -> dict[str, Any]:
    return {"content": content, "type": "injunctive", "source": source}


def talk(receiver: str, observation: str) -> dict[str, Any]:
    return {"receiver": receiver, "place": "Hobbs Cafe", "observation": observation,
            "topic": "a norm", "transcript": [["x", "Please stop."], [receiver, "Sorry."]],
            "ended": "turn limit", "minutes": 1}  # fmt: skip


# (tick, kind, agent, data) in the order the simulation writes them; ticks are 5 minutes,
# hour 1 is ticks 0–11, hour 2 ticks 12–23.
LOG: list[tuple[int, str, str, dict[str, Any]]] = [
    # --- hour 1, day 1 09:00–10:00 ---
    (0, "create_norm", BOB, {"norms": BOB_CREATED, "failed": False}),
    (0, "plan", BOB, {"day": 1, "plan": {"9": "drink coffee", "10": "have lunch"}}),
    (0, "actions", BOB, {"hour": 9, "subtasks": []}),
    (1, "perceive", BOB, {"observations": ["Carlos Gomez is smoking at a table (at Hobbs Cafe)"]}),
    # Bob: two conflicts, talks about one of them (conflicts 2, talk decisions 1)
    (1, "detect", BOB, {"findings": [
        finding(CARLOS, "Carlos Gomez is smoking at a table (at Hobbs Cafe)", True, True),
        finding(TAMARA, "Tamara Rodriguez is singing loudly (at Hobbs Cafe)", True, False)]}),
    # chat 1, norm-related: Carlos identifies an item and accepts it (accepted 1)
    (1, "conversation", BOB, talk(CARLOS, "Carlos Gomez is smoking at a table")),
    (1, "identify", CARLOS, {"source": "chat", "norms": [item("No smoking inside the cafe.")]}),
    (1, "evaluate", CARLOS, evaluated("No smoking inside the cafe.", 1, True)),
    # Carlos: no conflict, and an observation the reply left unanswered (counts nothing)
    (3, "detect", CARLOS, {"findings": [
        finding(TAMARA, "Tamara Rodriguez is singing loudly (at Hobbs Cafe)", False, False),
        {"observed": BOB, "observation": "Bob Johnson is reading", "answered": False}]}),
    # Bob: a third conflict, and he talks (conflicts 3, talk decisions 2)
    (6, "detect", BOB, {"findings": [
        finding(TAMARA, "Tamara Rodriguez is leaving without tipping (at Hobbs Cafe)", True,
                True)]}),
    # chat 2, not norm-related: Tamara identifies nothing
    (6, "conversation", BOB, talk(TAMARA, "Tamara Rodriguez is leaving without tipping")),
    (6, "identify", TAMARA, {"source": "chat", "norms": []}),
    # hour's end. Bob: 2 thoughts, 3 items from thoughts 1, 2, 2 (2 norm-related thoughts):
    # one skipped as an exact duplicate of #1, two rejected
    (11, "thought", BOB, {"thoughts": ["Carlos put out his cigarette.", "Tamara should tip."]}),
    (11, "identify", BOB, {"source": "thought", "norms": [
        item("No smoking indoors!", 1), item("Tip the staff after a meal.", 2),
        item("Staff deserve tips.", 2)]}),
    (11, "evaluate", BOB, evaluated("No smoking indoors!", None, False)),
    (11, "evaluate", BOB, evaluated("Tip the staff after a meal.", 5, False, "duplication")),
    (11, "evaluate", BOB, evaluated("Staff deserve tips.", 6, False, "type")),
    # Tamara: 2 thoughts; her one item names thought 9, which does not exist: filed under
    # thought 1 (1 norm-related thought); accepted
    (11, "thought", TAMARA, {"thoughts": ["I love to sing.", "Bob was rude."]}),
    (11, "identify", TAMARA, {"source": "thought", "norms": [item("Be quiet in public.", 9)]}),
    (11, "evaluate", TAMARA, evaluated("Be quiet in public.", 1, True)),
    # Carlos: 1 thought, nothing normative in it
    (11, "thought", CARLOS, {"thoughts": ["Smoking relaxes me."]}),
    (11, "identify", CARLOS, {"source": "thought", "norms": []}),
    (11, "hour", "", {"hour": 0, "label": "day 1 09:00–10:00", "agents": {
        BOB: snapshot(held((1, "No smoking indoors.", 100, "created"),
                           (2, "Keep your voice down inside the cafe.", 90, "created"),
                           (3, "People tip the staff after their meals.", 90, "created"),
                           (4, "Use headphones when listening to music.", 80, "created")),
                      "drink coffee",
                      [["Hobbs Cafe", "Bob Johnson is drinking coffee"],
                       ["Hobbs Cafe", "Bob Johnson is tipping the barista after breakfast"]]),
        TAMARA: snapshot(held((1, "Be quiet in public.", 70, "thought")),
                         "sing and read at Hobbs Cafe",
                         [["Hobbs Cafe", "Tamara Rodriguez is singing loudly"],
                          ["Hobbs Cafe", "Tamara Rodriguez is leaving without tipping"]]),
        CARLOS: snapshot(held((1, "No smoking inside the cafe.", 70, "chat")),
                         "smoke a cigarette at Hobbs Cafe",
                         [["Hobbs Cafe", "Carlos Gomez is smoking at a table"]])}}),
    # --- hour 2, day 1 10:00–11:00 ---
    (12, "actions", BOB, {"hour": 10, "subtasks": []}),
    # Carlos: one conflict, talks (conflicts 1, talk decisions 1)
    (13, "detect", CARLOS, {"findings": [
        finding(TAMARA, "Tamara Rodriguez is smoking at the counter (at Hobbs Cafe)", True,
                True)]}),
    # chat 3, norm-related: Tamara accepts one item, the other is the same words as her #1
    (13, "conversation", CARLOS, talk(TAMARA, "Tamara Rodriguez is smoking at the counter")),
    (13, "identify", TAMARA, {"source": "chat", "norms": [
        item("No smoking indoors."), item("Be quiet in public!")]}),
    (13, "evaluate", TAMARA, evaluated("No smoking indoors.", 2, True)),
    (13, "evaluate", TAMARA, evaluated("Be quiet in public!", None, False)),
    # hour's end. Bob: 1 thought, nothing normative; then he synthesizes (#1, #2, #4 → #7)
    (23, "thought", BOB, {"thoughts": ["The cafe is calm today."]}),
    (23, "identify", BOB, {"source": "thought", "norms": []}),
    (23, "synthesis", BOB, {"trigger": "paper", "qualified_utility_before": 360,
        "categories": [["Considerate behaviour", [1, 2, 4]], ["Tipping", [3]]],
        "abstracts": [{"id": 7, "theme": "Considerate behaviour",
                       "content": "Be considerate of others in shared spaces.",
                       "type": "injunctive", "members": [1, 2, 4], "utility": 90,
                       "qualified": True, "rejection": None}], "failed": False}),
    # Tamara: 1 thought, 1 item, accepted (1 norm-related thought)
    (23, "thought", TAMARA, {"thoughts": ["Bob tipped the waiter; I should too."]}),
    (23, "identify", TAMARA, {"source": "thought", "norms": [item("Tip the waiter after lunch.")]}),
    (23, "evaluate", TAMARA, evaluated("Tip the waiter after lunch.", 3, True)),
    # Carlos: 2 thoughts, an item from each (2 norm-related thoughts), both accepted
    (23, "thought", CARLOS, {"thoughts": ["I should smoke outside.", "Tipping is right."]}),
    (23, "identify", CARLOS, {"source": "thought", "norms": [
        item("Smoke only outside.", 1), item("Tip after eating.", 2)]}),
    (23, "evaluate", CARLOS, evaluated("Smoke only outside.", 2, True)),
    (23, "evaluate", CARLOS, evaluated("Tip after eating.", 3, True)),
    (23, "hour", "", {"hour": 1, "label": "day 1 10:00–11:00", "agents": {
        BOB: snapshot(held((3, "People tip the staff after their meals.", 90, "created"),
                           (7, "Be considerate of others in shared spaces.", 90, "synthesis")),
                      "have lunch and tip after eating",
                      [["Hobbs Cafe", "Bob Johnson is eating lunch"],
                       ["Hobbs Cafe", "Bob Johnson is tipping the waiter after lunch"]]),
        TAMARA: snapshot(held((1, "Be quiet in public.", 70, "thought"),
                              (2, "No smoking indoors.", 70, "chat"),
                              (3, "Tip the waiter after lunch.", 70, "thought")),
                         "sing at Hobbs Cafe",
                         [["outside Hobbs Cafe", "Tamara Rodriguez is singing outside"]]),
        CARLOS: snapshot(held((1, "No smoking inside the cafe.", 70, "chat"),
                              (2, "Smoke only outside.", 70, "thought"),
                              (3, "Tip after eating.", 70, "thought")),
                         "smoke a cigarette outside Hobbs Cafe",
                         [["outside Hobbs Cafe", "Carlos Gomez is smoking outside"]])}}),
]  # fmt: skip

# The judge's compliance verdicts per (agent, plan): what the plan and the actions show.
VERDICTS = {
    # hour 1: Bob tips after breakfast (actions); Tamara sings loudly and leaves without
    # tipping (violations); Carlos plans and does his smoking indoors (violations)
    (BOB, "drink coffee"): [(TIPPING, "not shown", "complied")],
    (TAMARA, "sing and read at Hobbs Cafe"): [(QUIET, "violated", "violated"),
                                              (TIPPING, "not shown", "violated")],
    (CARLOS, "smoke a cigarette at Hobbs Cafe"): [(SMOKING, "violated", "violated")],
    # hour 2: Bob plans and does his tipping; Tamara plans to sing inside but sings outside
    # (complies in actions, violates in the plan: not adhering); Carlos smokes outside
    (BOB, "have lunch and tip after eating"): [(TIPPING, "complied", "complied")],
    (TAMARA, "sing at Hobbs Cafe"): [(QUIET, "violated", "complied")],
    (CARLOS, "smoke a cigarette outside Hobbs Cafe"): [(SMOKING, "complied", "complied")],
}  # fmt: skip


def judge(folder: Path) -> str:
    """A scripted judge that answers :data:`MATCHES` and :data:`VERDICTS`."""
    rules: list[tuple[str, list[Any]]] = [
        (f"PERSONAL NORM: {re.escape(content)}\n", [{"matches": targets}])
        for content, targets in MATCHES.items()
    ]
    for (agent, plan), verdicts in VERDICTS.items():
        rules.append((
            f"AGENT: {re.escape(agent)}\nTHE DAY'S PLAN FOR THIS HOUR: {re.escape(plan)}\n",
            [{"verdicts": [{"norm": target, "plan": plan_verdict, "actions": actions}
                           for target, plan_verdict, actions in verdicts]}],
        ))  # fmt: skip
    return write_script(folder, rules)


def write_run(
    folder: Path,
    model: str,
    log: list[tuple[int, str, str, dict[str, Any]]] = LOG,
    agents: list[str] = AGENTS,
) -> None:
    """The run directory: its config, the hand-written ``events.jsonl`` (``log``, two hours of
    ``agents``), a final checkpoint holding the last hour's qualified norms."""
    run = RunDir(folder)
    run.create(config(model=model, agents=agents, hours=(9, 11)))
    lines = []
    for seq, (tick, kind, agent, data) in enumerate(log, start=1):
        minute = 9 * 60 + 5 * tick
        row = {"seq": seq, "tick": tick, "time": f"day 1 {minute // 60:02d}:{minute % 60:02d}",
               "kind": kind, "agent": agent, "data": data}  # fmt: skip
        parse_event(row)  # the real schema of a line of events.jsonl
        lines.append(json.dumps(row, ensure_ascii=False))
    (folder / "events.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    last = log[-1][3]["agents"]
    state = WorldState(
        tick=24,
        created=True,
        finished=True,
        events_written=len(lines),
        agents={
            name: AgentState(
                name=name,
                place="Hobbs Cafe",
                action="",
                doing="",
                norms=NormDatabase(
                    norms=[
                        PersonalNorm(id=n["id"], content=n["content"], utility=n["utility"],
                                     type="injunctive", activated=True, valid=True,
                                     origin=n["origin"])
                        for n in last[name]["qualified"]
                    ]
                ),
            )
            for name in agents
        },
    )  # fmt: skip
    (folder / "checkpoint.json").write_text(state.model_dump_json(), encoding="utf-8")


@pytest.fixture
def analysis(tmp_path: Path) -> CrsecAnalysis:
    model = judge(tmp_path)
    write_run(tmp_path / "run", model)
    return asyncio.run(analyze_runs(load_runs([tmp_path / "run"]), client(model), model))


def test_figure_2a_counts_per_hour_by_hand(analysis: CrsecAnalysis) -> None:
    (run,) = analysis.runs
    first, second = run.counts
    assert (first.label, second.label) == ("day 1 09:00–10:00", "day 1 10:00–11:00")
    # Social conflicts: detect rows with conflict = yes. Hour 1: Bob's 2 at 09:05 + Bob's 1
    # at 09:30 (Carlos's "no" and his unanswered row count nothing) = 3. Hour 2: Carlos's 1.
    assert (first.conflicts, second.conflicts) == (3, 1)
    # Talk decisions: of those, the ones with talk = yes: hour 1 Bob's smoking and tipping
    # rows = 2 (not the singing one); hour 2 Carlos's = 1.
    assert (first.talk_decisions, second.talk_decisions) == (2, 1)
    # Chats: conversation events, 2 then 1. Norm-related chats: the receiver identified at
    # least one item: hour 1 Carlos yes, Tamara no = 1; hour 2 Tamara yes (an item she
    # accepted and one skipped still count: information was identified) = 1.
    assert (first.chats, second.chats) == (2, 1)
    assert (first.norm_chats, second.norm_chats) == (1, 1)
    # Thoughts: hour 1 Bob 2 + Tamara 2 + Carlos 1 = 5; hour 2 Bob 1 + Tamara 1 + Carlos 2 = 4.
    assert (first.thoughts, second.thoughts) == (5, 4)
    # Norm-related thoughts: distinct thoughts items came from. Hour 1: Bob {1, 2} = 2 (three
    # items, two of them from thought 2), Tamara {1} = 1 (thought 9 does not exist: thought
    # 1), Carlos 0 → 3. Hour 2: Bob 0, Tamara {1} = 1, Carlos {1, 2} = 2 → 3.
    assert (first.norm_thoughts, second.norm_thoughts) == (3, 3)
    # Evaluate events: hour 1 Carlos 1 + Bob 3 + Tamara 1 = 5 identified: accepted Carlos's
    # and Tamara's = 2, rejected Bob's #5 and #6 = 2, skipped Bob's "No smoking indoors!" = 1.
    # Hour 2 Tamara 2 + Tamara 1 + Carlos 2 = 5: accepted 4, rejected 0, skipped 1.
    assert (first.identified, first.accepted, first.rejected, first.duplicates_skipped) == (
        5, 2, 2, 1)  # fmt: skip
    assert (second.identified, second.accepted, second.rejected, second.duplicates_skipped) == (
        5, 4, 0, 1)  # fmt: skip
    # Syntheses: Bob's, in hour 2.
    assert (first.syntheses, second.syntheses) == (0, 1)
    # Unanswered observations: Carlos's row at 09:15 that his reply left out = 1; hour 2 none.
    assert (first.unanswered, second.unanswered) == (1, 0)


def test_figure_2b_shares_per_hour_by_hand(analysis: CrsecAnalysis) -> None:
    (run,) = analysis.runs
    first, second = run.hours
    third = 1 / 3
    # Holding, hour 1: smoking Bob #1 + Carlos #1 = 2 of 3; quiet Bob #2/#4 + Tamara #1 =
    # 2 of 3; tipping Bob #3 = 1 of 3.
    assert first.holding == pytest.approx({SMOKING: 2 * third, QUIET: 2 * third, TIPPING: third})
    # Hour 2: Bob's #1, #2 and #4 are folded into #7, which expresses no target (the dip):
    # smoking Tamara #2 + Carlos #1/#2 = 2 of 3; quiet Tamara #1 = 1 of 3; tipping Bob #3 +
    # Tamara #3 + Carlos #3 = 3 of 3.
    assert second.holding == pytest.approx({SMOKING: 2 * third, QUIET: third, TIPPING: 1.0})
    # Complying in plans, hour 1: nobody's plan complied (Bob's showed nothing, Tamara's and
    # Carlos's violated). Hour 2: Carlos (smoking) and Bob (tipping); Tamara's plan violated.
    assert first.plan == {SMOKING: 0.0, QUIET: 0.0, TIPPING: 0.0}
    assert second.plan == pytest.approx({SMOKING: third, QUIET: 0.0, TIPPING: third})
    # Complying in actions, hour 1: Bob's tip = 1 of 3 tipping. Hour 2: Carlos smoking
    # outside, Tamara singing outside, Bob tipping: 1 of 3 each.
    assert first.actions == pytest.approx({SMOKING: 0.0, QUIET: 0.0, TIPPING: third})
    assert second.actions == pytest.approx({SMOKING: third, QUIET: third, TIPPING: third})
    # Adhering (complied in plan or actions, violated in neither), hour 1: Bob tipping (his
    # plan showed nothing) = 1 of 3. Hour 2: Carlos smoking, Bob tipping; Tamara complied in
    # actions but violated in her plan: not adhering to quiet.
    assert first.adhering == pytest.approx({SMOKING: 0.0, QUIET: 0.0, TIPPING: third})
    assert second.adhering == pytest.approx({SMOKING: third, QUIET: 0.0, TIPPING: third})


def test_emergence_and_final_shares_by_hand(analysis: CrsecAnalysis) -> None:
    (run,) = analysis.runs
    # Over 70%: only tipping's curve (i), held by 3 of 3 at the end of hour 2; 2 of 3 (66.7%)
    # never is. Tipping has not emerged (issue 41, item 11: "widely accepted and adhered to by
    # a significant majority", §3.2): at hour 2 all 3 hold it but 1 of 3 adheres, so 1 of 3
    # (33.3%) both hold and adhere; hour 1: 1 holds, 1 adheres, at most 1 of 3 both.
    assert run.emergence[TIPPING].model_dump() == {"holding": 2, "adhering": None, "both": None}
    assert run.emergence[SMOKING].model_dump() == {"holding": None, "adhering": None, "both": None}
    assert run.emergence[QUIET].model_dump() == {"holding": None, "adhering": None, "both": None}
    # Final shares: hour 2's. One run: k of the 3 agents, with no interval (issue 41, item
    # 14: one run's agents talk to each other, no independent sample; intervals over runs).
    (group,) = analysis.groups
    expected = {
        SMOKING: {"holding": 2, "plan": 1, "actions": 1, "adhering": 1, "both": 1},
        QUIET: {"holding": 1, "plan": 0, "actions": 1, "adhering": 0, "both": 0},
        TIPPING: {"holding": 3, "plan": 1, "actions": 1, "adhering": 1, "both": 1},
    }
    for target, measures in expected.items():
        for measure, k in measures.items():
            final = group.final[target][measure]
            assert isinstance(final, Rate) and (final.k, final.n) == (k, 3), (target, measure)
            assert final.ci == (None, None)
    # Emergence over runs: tipping held by hour 2 in 1 of 1 runs; the others never.
    assert group.emergence[TIPPING]["holding"].value == 2.0
    assert group.reached[TIPPING]["holding"] == "1 of 1 runs"
    # The run that never got over 70% is censored at its last hour, 2 (issue 41, item 14).
    assert group.reached[SMOKING]["holding"] == (
        "0 of 1 runs; 1 censored (not over 70% by their last hour: 2)"
    )
    assert group.censored[SMOKING]["holding"] == [2] and group.censored[TIPPING]["holding"] == []
    assert group.emergence[SMOKING]["holding"].value is None


def test_the_emergence_table_and_the_hour_axis_by_hand(
    analysis: CrsecAnalysis, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = emergence_table(analysis)
    rows = {row[1]: row for row in table.rows}
    # setting, norm, emerged (hold and adhere > 70%), curve (i) hold > 70%, curve (ii) adhere
    # > 70% (hours), final hold / plans / actions / adhere / hold and adhere: 3 of 3 is 100%,
    # 2 of 3 66.7%, 1 of 3 33.3% (one run: no interval). Tipping's curve (i) is over 70% at
    # hour 2, but it never emerged: the table once showed its hold column as its emergence.
    never = "never (0 of 1 runs; 1 censored (not over 70% by their last hour: 2))"
    assert rows["Tip after meals."][:5] == [
        "full", "Tip after meals.", never, "2.0 [2.0, 2.0] (1 of 1 runs)", never]  # fmt: skip
    assert table.header[2:5] == [
        "emerged: hold and adhere > 70% (hour)", "curve (i) hold > 70% (hour)",
        "curve (ii) adhere > 70% (hour)"]  # fmt: skip
    assert rows["Tip after meals."][5:] == [
        "100.0% (3 of 3 agents)", "33.3% (1 of 3 agents)", "33.3% (1 of 3 agents)",
        "33.3% (1 of 3 agents)", "33.3% (1 of 3 agents)"]  # fmt: skip
    assert "not independent" in table.caption and "censored" in table.caption
    assert [cell.split(" ")[0] for cell in rows["No smoking indoors."][5:]] == [
        "66.7%", "33.3%", "33.3%", "33.3%", "33.3%"]  # fmt: skip
    assert [cell.split(" ")[0] for cell in rows["Be quiet in public."][5:]] == [
        "33.3%", "0.0%", "33.3%", "0.0%", "0.0%"]  # fmt: skip
    # "Hour 2" is the second simulated hour: the one the figures put at x = 2 and name 10–11.
    assert "hour 1 is day 1 09:00–10:00, the figures' x-axis tick 09–10" in table.caption
    (group,) = analysis.groups
    assert counts_table(group).rows == [
        # hour, conflicts, norm thoughts, norm chats, chats, norms accepted, unanswered
        ["day 1 09:00–10:00", "3", "3", "1", "2", "2", "1"],
        ["day 1 10:00–11:00", "1", "3", "1", "1", "4", "0"],
    ]
    # The usage tables' unit: per simulated hour, 2 of them.
    assert analysis.usage[analysis.runs[0].folder].units == 2

    drawn: list[tuple[list[float], list[tuple[str, list[LineSeries]]], str, Any]] = []

    def capture(
        x: list[float], panels: list[tuple[str, list[LineSeries]]], xlabel: str, ylabel: str,
        **options: Any,
    ) -> bytes:  # fmt: skip
        drawn.append((x, panels, xlabel, options.get("xticks")))
        return b""

    monkeypatch.setattr(report_module, "line_panels", capture)
    write_report(analysis, tmp_path / "report")
    counts, shares = drawn[0], drawn[1]
    for x, _, xlabel, ticks in (counts, shares):
        assert x == [1.0, 2.0] and xlabel == "simulated hour"
        assert ticks == [(1.0, "09–10"), (2.0, "10–11")]
    # Figure 2(a): the per-hour counts above, as drawn (one run: the band is the line).
    lines = {line.label: line for line in counts[1][0][1]}
    assert lines["social conflicts"].values == [3.0, 1.0]
    assert lines["norm-related thoughts"].values == [3.0, 3.0]
    assert lines["norm-related chats"].values == [1.0, 1.0]
    assert lines["social conflicts"].low == lines["social conflicts"].high == [3.0, 1.0]
    # Figure 2(b): per norm, holding (solid) and adhering (dashed) per hour.
    panels = {title: {line.label: line.values for line in panel} for title, panel in shares[1]}
    assert panels["Tip after meals."]["hold"] == pytest.approx([1 / 3, 1.0])
    assert panels["Tip after meals."]["adhere"] == pytest.approx([1 / 3, 1 / 3])
    assert panels["No smoking indoors."]["hold"] == pytest.approx([2 / 3, 2 / 3])
    assert panels["No smoking indoors."]["adhere"] == pytest.approx([0.0, 1 / 3])
    assert panels["Be quiet in public."]["hold"] == pytest.approx([2 / 3, 1 / 3])
    assert panels["Be quiet in public."]["adhere"] == pytest.approx([0.0, 0.0])


def test_emergence_needs_more_than_70_percent() -> None:
    # "adopted … by over 70% agents": 7 of 10 agents (70%) is not over it, 8 of 10 is.
    assert emergence_hour([0.5, 0.7, 0.8]) == 3
    assert emergence_hour([0.7, 0.7]) is None
    assert emergence_hour([0.71]) == 1
    # One rule everywhere (issue 41, item 11): over the threshold; a threshold of 1, every agent.
    assert not over(0.7) and over(0.71) and over(1.0, 1.0) and not over(0.99, 1.0)


def test_the_simulations_own_counts_agree_with_the_event_log(tmp_path: Path) -> None:
    """``metrics.jsonl`` (what ``run`` prints per hour) and :func:`hour_counts` (what the
    analysis reads) are the same numbers on a simulated run."""
    from normlab.crsec.sim.loop import Simulation

    run = RunDir(tmp_path / "run")
    run.create(config())
    asyncio.run(Simulation(run, client(run.config().models["agent"])).run())
    counted = hour_counts(run.events())
    assert counted and len(counted) == len(run.metrics())
    for mine, theirs in zip(counted, run.metrics(), strict=True):
        assert mine.model_dump(exclude={"usage", "qualified", "qualified_utility"}) == (
            theirs.model_dump(exclude={"usage", "qualified", "qualified_utility"})
        )
    assert sum(m.conflicts for m in counted) > 0 and sum(m.norm_thoughts for m in counted) > 0
