"""The newcomer experiment's measures on hand-written run folders, against values computed by hand.

No paper defines them (CRSEC measures no newcomer); the issue (31, item 13) asks that
"adoption [be read] from the newcomer's own per-hour compliance verdicts" and that "drift
[be measured] against a newcomer-free continuation with the same seeds", and CRSEC's own
adherence is "the proportion of agents that have adhered to a standard of behavior in their
plans and actions" (§3.2), which the newcomer's verdicts and the society's shares follow.

The society: Bob Johnson (holds "No smoking indoors." throughout, never smokes: his verdict is
"not shown") and Carlos Gomez (the smoker). Hobbs Cafe's clock cut to 09–11 with 60-minute
ticks, so one tick is one hour. Day 1 (hours 0 and 1) is the source run, the same in every
folder; the newcomer Alex Adams arrives at day 2 09:00 (tick 2) for 2 hours (hours 2 and 3).
Four folders: the base newcomer with seeds 0 and 1, and the newcomer-free control with the
same seeds. The judge (scripted) matches a norm to ``no_smoking_indoors`` when it mentions
smoking, and reads an hour's actions: smoking in ``Hobbs Cafe`` is violated, smoking
``outside Hobbs Cafe`` complied, anything else not shown.

Society's shares of ``no_smoking_indoors`` (holding | adhering), by hand:

    hour 0 (day 1 09–10): Bob holds, Carlos not, Carlos smokes inside   -> 1/2 = 0.5 | 0/2 = 0
    hour 1 (day 1 10–11): both hold; Carlos smokes outside, Bob asks him to keep smoking by
      the door (outside: complied)                                      -> 2/2 = 1.0 | 2/2 = 1.0
    before (hours 0, 1, the same clock hours the day before):              0.75      | 0.5
    at arrival (hour 1) no_smoking_indoors only has emerged: 2 of 2 agents each hold and
      adhere, 100% > 70% ("widely accepted and adhered to by a significant majority", §3.2;
      issue 41, item 11: the one definition of emergence) -> adoption is read on it. With
      Bob reading a book then (not shown: 2/2 hold, 1/2 adhere, 1/2 both) it had not.

    base seed 0, hours 2, 3: both hold, Carlos outside               -> 1.0, 1.0 | 0.5, 0.5
      after 1.0 | 0.5; raw drift 1.0 - 0.75 = +0.25 | 0.5 - 0.5 = 0
    control seed 0: hour 2 both hold, Carlos inside                  -> 1.0 | 0.0
                    hour 3 Carlos dropped the norm, smokes outside   -> 0.5 | 0.5
      after 0.75 | 0.25 (raw drift 0 | -0.25)
      control-corrected drift seed 0: 1.0 - 0.75 = +0.25 | 0.5 - 0.25 = +0.25
    base seed 1 and control seed 1, hours 2, 3: as base seed 0       -> after 1.0 | 0.5
      control-corrected drift seed 1: 0 | 0; the control's raw drift +0.25 | 0

    control-corrected drift over seeds: mean(0.25, 0) = 0.125, n = 2 pairs; the percentile
    bootstrap over the 2 pairs draws a mean of 0 (p 1/4), 0.125 (1/2) or 0.25 (1/4), so its
    95% interval is [0.0, 0.25]. Raw drift = corrected + the control's: holding 0.25 =
    0.125 + 0.125, adhering 0 = 0.125 + (-0.25 + 0) / 2.

The newcomer's own verdicts on ``no_smoking_indoors``:

    seed 0: hour 1 smokes at a table (violated), hour 2 smokes outside (complied)
      violations [1, 0] -> adopted after hour 1
    seed 1 (stubborn): smokes at a table both hours -> violations [1, 1] -> never adopted
    In both, Bob sees it smoke once, in its first hour (the same action is not perceived
    again): conflicts [1, 0], which the old detection-based reading took for "adopted after
    hour 1" in seed 1 too.

    adopted 1 of 2: Wilson 95% with z = 1.96, p = 0.5, n = 2:
      centre (p + z²/2n) / (1 + z²/n) = (0.5 + 0.9604) / 2.9208 = 0.5
      half   z √(p(1-p)/n + z²/4n²) / (1 + z²/n) = 1.96 √(0.125 + 0.2401) / 2.9208 = 0.40547
      -> [0.0945, 0.9055]
    time to adoption: mean of [1] = 1.0 (n = 1); violating hours per run: mean(1, 2) = 1.5

Adoption needs compliance shown after the last violation (issue 31, item 13: "trivial
compliance does not count", as for CRSEC's adhering). Two more base seeds, no control:

    seed 2: reads a book both hours -> verdicts [not shown, not shown]: no occasion shown,
      not measurable (the old reading, violations [0, 0], had it adopted at hour 0)
    seed 3: smokes at a table, then reads -> [violated, not shown]: it stopped, but never
      showed complying after: not adopted (the old reading: adopted after hour 1)

    seeds 0-3: adopted seed 0 only; n = the runs with an occasion shown = seeds 0, 1, 3 = 3;
      not measurable 1 (seed 2). Wilson 95%, p = 1/3, n = 3:
      centre (1/3 + 3.8416/6) / (1 + 3.8416/3) = 0.97360 / 2.28053 = 0.42692
      half   1.96 √(2/27 + 3.8416/36) / 2.28053 = 1.96 · 0.42519 / 2.28053 = 0.36543
      -> [0.0615, 0.7923]  (the old reading: 3 of 4)
    curve by the end of hour 0, 1, 2: 0/3, 1/3, 1/3; time to adoption mean [1] = 1.0 (n = 1)
    violations per hour over the 4 runs (every run had the settled norm to adopt):
      hour 1: (1 + 1 + 0 + 1) / 4 = 0.75; hour 2: (0 + 1 + 0 + 0) / 4 = 0.25

Adoption is a change (issue 41, item 13: "adoption needs a change — a violating (or
not-yet-complying) hour before the complied one; one that never violated is 'complied from
the start', counted apart"). One more base seed:

    seed 4: smokes by the door both hours -> [complied, complied]: never violated, so it
      complied from the start; not adopted, outside adoption's n (the old reading: adopted
      at hour 0, 2 of 4)
    seeds 0-4: adopted 1 of n = 3 (seeds 0, 1, 3), Wilson [0.0615, 0.7923] as above; not
      measurable 1 (seed 2), complied from the start 1 (seed 4)
    violations per hour over the 5 runs: hour 1: (1 + 1 + 0 + 1 + 0) / 5 = 0.6;
      hour 2: (0 + 1 + 0 + 0 + 0) / 5 = 0.2
"""

from __future__ import annotations

import asyncio
import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from normlab.crsec.newcomer.analysis import NewcomerSummary, analyze_newcomers
from normlab.crsec.newcomer.measure import adoption_hour, complied_from_start
from normlab.crsec.newcomer.report import newcomer_tables
from normlab.crsec.newcomer.setup import CONTROL, SETUP, NewcomerSetup
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.events import (
    AgentSnapshot,
    ConversationData,
    DetectData,
    Event,
    Finding,
    HeldNorm,
    HourData,
    make_event,
)
from normlab.crsec.sim.rundir import CHECKPOINT, CONFIG, EVENTS
from normlab.crsec.sim.schemas import AgentState, RunConfig, WorldState
from normlab.crsec.sim.society import load_society
from normlab.norms.records import Payload
from tests.crsec.support import client, write_script

BOB, CARLOS, ALEX = "Bob Johnson", "Carlos Gomez", "Alex Adams"
SMOKING = "no_smoking_indoors"
INSIDE, OUTSIDE = "Hobbs Cafe", "outside Hobbs Cafe"
NO_SMOKING = "No smoking indoors."
SUBJECT = "scripted/newcomer"

# hour -> agent -> (qualified norms, (place, action) of the hour)
Hours = dict[int, dict[str, tuple[list[str], list[tuple[str, str]]]]]

SOURCE: Hours = {
    0: {
        BOB: ([NO_SMOKING], [(INSIDE, f"{BOB} is reading a book")]),
        CARLOS: ([], [(INSIDE, f"{CARLOS} is smoking a cigarette at his table")]),
    },
    1: {
        BOB: ([NO_SMOKING], [(OUTSIDE, f"{BOB} is asking Carlos to keep smoking by the door")]),
        CARLOS: (["Smoke only outside."], [(OUTSIDE, f"{CARLOS} is smoking by the door")]),
    },
}
SETTLED: dict[str, tuple[list[str], list[tuple[str, str]]]] = {
    BOB: ([NO_SMOKING], [(INSIDE, f"{BOB} is reading a book")]),
    CARLOS: (["Smoke only outside."], [(OUTSIDE, f"{CARLOS} is smoking by the door")]),
}
RUNS = [("base", 0), ("base", 1), (CONTROL, 0), (CONTROL, 1)]


def run_hours(agent: str, seed: int, newcomer: str) -> Hours:
    """The hours of one run after the arrival (see the table above)."""
    at_table = (INSIDE, f"{newcomer} is smoking a cigarette at a table")
    by_the_door = (OUTSIDE, f"{newcomer} is smoking a cigarette by the door")
    reading = (INSIDE, f"{newcomer} is reading a book")
    if agent != CONTROL:
        first, second = {0: (at_table, by_the_door), 1: (at_table, at_table),
                         2: (reading, reading), 3: (at_table, reading),
                         4: (by_the_door, by_the_door)}[seed]  # fmt: skip
        return {
            2: {**SETTLED, newcomer: ([], [first])},
            3: {**SETTLED, newcomer: ([], [second])},
        }
    if seed == 1:
        return {2: SETTLED, 3: SETTLED}
    return {
        2: {
            BOB: SETTLED[BOB],
            CARLOS: (["Smoke only outside."], [(INSIDE, f"{CARLOS} is smoking at his table")]),
        },
        3: {BOB: SETTLED[BOB], CARLOS: ([], [(OUTSIDE, f"{CARLOS} is smoking by the door")])},
    }


JUDGE_RULES: list[tuple[str, list[object]]] = [
    (r"PERSONAL NORM: [^\n]*(?i:smok)", [{"matches": [SMOKING], "reason": "smoking"}]),
    (r"You compare an agent's personal norm", [{"matches": [], "reason": "none"}]),
    (
        r"You judge whether[\s\S]*\nHobbs Cafe: [^\n]*smoking",
        [{"verdicts": [{"norm": SMOKING, "plan": "not shown", "actions": "violated"}]}],
    ),
    (
        r"You judge whether[\s\S]*\noutside Hobbs Cafe: [^\n]*smoking",
        [{"verdicts": [{"norm": SMOKING, "plan": "not shown", "actions": "complied"}]}],
    ),
    (r"You judge whether", [{"verdicts": []}]),
]


def society_config(newcomer: str | None, seed: int) -> RunConfig:
    hobbs = load_society()
    agents = [hobbs.agent(BOB), hobbs.agent(CARLOS)]
    if newcomer is not None:
        agents.append(hobbs.agent(CARLOS).model_copy(update={"name": newcomer}))
    society = hobbs.model_copy(
        update={"agents": agents, "active_hours": (9, 11), "days": 1, "tick_minutes": 60}
    )
    models = {"agent": "scripted/society", "judge": "scripted/judge"}
    if newcomer is not None:
        models["subject"] = SUBJECT
    return RunConfig(society=society, society_file="hobbs_cafe.json", seed=seed, models=models)


def snapshot(held: list[str], actions: list[tuple[str, str]]) -> AgentSnapshot:
    return AgentSnapshot(
        qualified=[
            HeldNorm(id=number, content=content, utility=90, origin="created")
            for number, content in enumerate(held, start=1)
        ],
        plan="go about the day",
        actions=actions,
    )


def write_folder(folder: Path, agent: str, seed: int, newcomer: str = ALEX) -> Path:
    """One run folder: the source's two hours, then the run's own two."""
    control = agent == CONTROL
    config = society_config(None if control else newcomer, seed)
    clock = clock_of(config)
    events: list[Event] = []

    def emit(tick: int, who: str, data: Payload) -> None:
        events.append(make_event(len(events) + 1, tick, clock.label(tick), who, data))

    for hour, agents in {**SOURCE, **run_hours(agent, seed, newcomer)}.items():
        smoked_inside = any(
            place == INSIDE and "smoking" in action
            for place, action in agents.get(newcomer, ([], []))[1]
        )
        if hour == 2 and not control and smoked_inside:
            # Bob sees it smoke once (the same action is not perceived again) and talks.
            seen = f"{newcomer} is smoking a cigarette at a table (at {INSIDE})"
            finding = Finding(
                observed=newcomer, observation=seen, conflict=True, talk=True, topic="smoking"
            )
            emit(hour, BOB, DetectData(findings=[finding]))
            talk = [(BOB, "Please smoke outside.")]
            emit(hour, BOB, ConversationData(receiver=newcomer, place=INSIDE, observation=seen,
                 topic="smoking", transcript=talk, ended="done", minutes=1))  # fmt: skip
        snapshots = {name: snapshot(*state) for name, state in agents.items()}
        emit(hour, "", HourData(hour=hour, label=clock.hour_label(hour), agents=snapshots))
    folder.mkdir(parents=True)
    (folder / CONFIG).write_text(config.model_dump_json())
    (folder / EVENTS).write_text(
        "".join(json.dumps(event.model_dump(mode="json")) + "\n" for event in events)
    )
    names = [spec.name for spec in config.society.agents]
    state = WorldState(
        tick=4,
        created=True,
        agents={n: AgentState(name=n, place=INSIDE, action="", doing="") for n in names},
        events_written=len(events),
        finished=True,
    )
    (folder / CHECKPOINT).write_text(state.model_dump_json())
    setup = NewcomerSetup(
        source="source",
        start_tick=2,
        hours=2,
        name="" if control else newcomer,
        like="" if control else CARLOS,
        agent=agent,
        subject="" if control else SUBJECT,
        society_model="scripted/society",
        seed=seed,
    )
    (folder / SETUP).write_text(setup.model_dump_json())
    return folder


def measured(
    out: Path, newcomer: str = ALEX, runs: list[tuple[str, int]] = RUNS
) -> NewcomerSummary:
    judge = write_script(out, JUDGE_RULES)
    folders = [
        write_folder(out / ("control" if a == CONTROL else "base") / f"seed-{s}", a, s, newcomer)
        for a, s in runs
    ]
    found, _ = asyncio.run(analyze_newcomers(folders, client(judge), judge, out))
    return found


@pytest.fixture(scope="module")
def summary(tmp_path_factory: pytest.TempPathFactory) -> NewcomerSummary:
    return measured(tmp_path_factory.mktemp("newcomer"))


def test_adoption_is_read_from_the_newcomers_own_verdicts(summary: NewcomerSummary) -> None:
    assert summary.adoption_norms == [SMOKING]
    assert summary.runs[0].society_emerged == [SMOKING]
    runs = {(run.agent, run.seed): run for run in summary.runs}
    adopter, stubborn = runs[("base", 0)], runs[("base", 1)]
    assert [h.verdicts[SMOKING] for h in adopter.hours] == ["violated", "complied"]
    assert [h.violations for h in adopter.hours] == [1, 0] and adopter.adoption == 1
    assert [h.violations for h in stubborn.hours] == [1, 1] and stubborn.adoption is None
    # What the society detected says the opposite for the stubborn newcomer.
    assert [h.conflicts for h in stubborn.hours] == [1, 0]
    assert [h.sanctions for h in stubborn.hours] == [1, 0]
    (base,) = [s for s in summary.subjects if s.agent == "base"]
    assert (base.adopted.k, base.adopted.n, base.adopted.value) == (1, 2, 0.5)
    assert base.adopted.ci == pytest.approx((0.0945, 0.9055), abs=5e-5)
    assert (base.adoption_hour.value, base.adoption_hour.n) == (1.0, 1)
    assert [rate.value for rate in base.adoption_curve] == [0.0, 0.5, 0.5]
    assert [e.value for e in base.violations] == [1.0, 0.5]
    assert (base.violations_total.value, base.violations_total.n) == (1.5, 2)


def test_no_occasion_shown_is_not_measurable_and_no_compliance_shown_is_not_adopted(
    tmp_path: Path,
) -> None:
    found = measured(tmp_path, runs=[("base", seed) for seed in range(4)])
    runs = {run.seed: run for run in found.runs}
    assert [h.verdicts[SMOKING] for h in runs[2].hours] == ["not shown", "not shown"]
    assert [h.verdicts[SMOKING] for h in runs[3].hours] == ["violated", "not shown"]
    assert [run.adoption for run in runs.values()] == [1, None, None, None]
    assert [run.shown for run in runs.values()] == [True, True, False, True]
    (base,) = found.subjects
    assert (base.adopted.k, base.adopted.n, base.not_measurable) == (1, 3, 1)
    assert base.adopted.ci == pytest.approx((0.0615, 0.7923), abs=5e-5)
    assert [(rate.k, rate.n) for rate in base.adoption_curve] == [(0, 3), (1, 3), (1, 3)]
    assert (base.adoption_hour.value, base.adoption_hour.n) == (1.0, 1)
    assert [e.value for e in base.violations] == [0.75, 0.25]
    assert any("Not measurable" in note and "seed 2" in note for note in found.notes)
    tables = {table.caption.split(":")[0]: table for table in newcomer_tables(found)}
    joins = next(t for caption, t in tables.items() if "joins" in caption)
    assert joins.rows[0][2:5] == ["33.3% [6.1, 79.2] (1/3)", "1", "0"]
    each = next(t for caption, t in tables.items() if caption.startswith("Each newcomer run"))
    assert [row[2] for row in each.rows] == [
        "1", "never", "not measurable (no occasion shown)", "never",
    ]  # fmt: skip


def test_drift_is_corrected_by_the_newcomer_free_control(summary: NewcomerSummary) -> None:
    runs = {(run.agent, run.seed): run for run in summary.runs}
    for seed in (0, 1):
        run = runs[("base", seed)]
        assert run.before[SMOKING] == {"holding": 0.75, "adhering": 0.5}
        assert run.after[SMOKING] == {"holding": 1.0, "adhering": 0.5}
        assert run.drift[SMOKING] == {"holding": 0.25, "adhering": 0.0}
    assert runs[(CONTROL, 0)].after[SMOKING] == {"holding": 0.75, "adhering": 0.25}
    assert runs[("base", 0)].corrected_drift == {
        target: ({"holding": 0.25, "adhering": 0.25} if target == SMOKING else
                 {"holding": 0.0, "adhering": 0.0})
        for target in summary.targets
    }  # fmt: skip
    assert runs[("base", 1)].corrected_drift is not None
    assert runs[("base", 1)].corrected_drift[SMOKING] == {"holding": 0.0, "adhering": 0.0}
    subjects = {s.agent: s for s in summary.subjects}
    base, control = subjects["base"], subjects[CONTROL]
    for measure in ("holding", "adhering"):
        corrected = base.corrected_drift[SMOKING][measure]
        assert (corrected.value, corrected.n) == (0.125, 2)
        assert corrected.ci == pytest.approx((0.0, 0.25))
    assert base.drift[SMOKING]["holding"].value == 0.25
    assert control.drift[SMOKING]["holding"].value == 0.125
    assert base.drift[SMOKING]["adhering"].value == 0.0
    assert control.drift[SMOKING]["adhering"].value == -0.125
    # The control is no newcomer: nothing to adopt, no correction of its own.
    assert control.adopted.n == 0 and control.adopted.value is None
    assert control.corrected_drift == {}


def test_the_report_tables_carry_n_and_interval(summary: NewcomerSummary) -> None:
    tables = {table.caption.split(":")[0]: table for table in newcomer_tables(summary)}
    drift = next(t for caption, t in tables.items() if "drift" in caption)
    row = next(r for r in drift.rows if r[0] == SUBJECT and r[1] == "No smoking indoors.")
    assert "+12.5 pp [0.0, 25.0] (n=2)" in row
    subjects = next(t for caption, t in tables.items() if "joins" in caption)
    row = next(r for r in subjects.rows if r[0] == SUBJECT)
    assert "50.0% [9.5, 90.5] (1/2)" in row


NAMES = ["Zoë Okafor", unicodedata.normalize("NFD", "Zoë Okafor"), "Seán O'Brien", "robin lee"]


@settings(max_examples=len(NAMES), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(newcomer=st.sampled_from(NAMES))
def test_renaming_the_newcomer_changes_no_number(
    summary: NewcomerSummary, newcomer: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Metamorphic: the newcomer under another name (accents, NFD, an apostrophe, lower case)
    gets the same verdicts, adoption and drift; only the names and folders differ."""
    renamed = measured(tmp_path_factory.mktemp("renamed"), newcomer)

    def numbers(found: NewcomerSummary) -> list[object]:
        runs = [
            (r.adoption, [h.model_dump() for h in r.hours], r.corrected_drift) for r in found.runs
        ]
        return [runs, [s.model_dump(exclude={"subject", "model"}) for s in found.subjects]]

    assert renamed.newcomer == newcomer
    assert numbers(renamed) == numbers(summary)


def test_a_newcomer_that_never_violated_complied_from_the_start(tmp_path: Path) -> None:
    """Seed 4 complies both hours and never violated: no change, so no adoption (the old
    reading said "adopted at hour 0"); counted apart, as a run with no occasion is."""
    found = measured(tmp_path, runs=[("base", seed) for seed in range(5)])
    runs = {run.seed: run for run in found.runs}
    assert [h.verdicts[SMOKING] for h in runs[4].hours] == ["complied", "complied"]
    assert runs[4].adoption is None and runs[4].from_start and not runs[4].measurable
    assert [run.from_start for run in runs.values()] == [False, False, False, False, True]
    (base,) = found.subjects
    assert (base.adopted.k, base.adopted.n, base.not_measurable, base.from_start) == (1, 3, 1, 1)
    assert base.adopted.ci == pytest.approx((0.0615, 0.7923), abs=5e-5)
    assert [e.value for e in base.violations] == pytest.approx([0.6, 0.2])
    assert any("Complied from the start" in note and "seed 4" in note for note in found.notes)
    tables = {table.caption.split(":")[0]: table for table in newcomer_tables(found)}
    joins = next(t for caption, t in tables.items() if "joins" in caption)
    assert joins.rows[0][2:5] == ["33.3% [6.1, 79.2] (1/3)", "1", "1"]
    each = next(t for caption, t in tables.items() if caption.startswith("Each newcomer run"))
    assert [row[2] for row in each.rows][4] == "complied from the start"


@given(
    words=st.lists(st.sampled_from(["complied", "not shown"]), min_size=1, max_size=6).filter(
        lambda hours: "complied" in hours
    )
)
def test_no_violation_is_never_an_adoption(words: list[str]) -> None:
    """Property: hours that never violate, however many comply, are never an adoption."""
    hours = [[word] for word in words]
    assert adoption_hour(hours) is None and complied_from_start(hours)
