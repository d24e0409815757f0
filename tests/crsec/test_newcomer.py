"""``normlab crsec newcomer``: a scripted newcomer joins a scripted society converged on "No
smoking indoors.", breaches it, is sanctioned and adopts it, in a fair experiment.

The society (``fixtures/newcomer_society.json``: Bob Johnson creates the norm, Isabella
Rodriguez and Carlos Gomez take it up from their thoughts in the first hour) reads quietly and
finds a conflict only in "Alex Adams is smoking a cigarette at a table (at Hobbs Cafe)"; as
the judge it finds smoking in ``Hobbs Cafe`` violated and smoking outside complied. The
newcomer (``fixtures/newcomer_subject.json``) smokes at a table for the first half of each
hour unless its system message lists a smoking norm or it remembers a talk about smoking; in
a conversation it identifies "No smoking indoors." Worked out by hand, with 15-minute ticks:
in its first hour the three agents each see it smoke (3 conflicts) and Bob talks to it (1
sanction); both newcomers then plan again, with the talk in their memory (the norm-memory one
also with the norm it kept), and smoke outside from that tick on: hour 1 violated, hours 2
and 3 complied, adopted after hour 1. Without communication nobody talks: it smokes inside
every hour (3 conflicts each hour, as its action changes) and never adopts. The stubborn
newcomer (``fixtures/newcomer_stubborn.json``) smokes at its table the whole of every hour:
seen once (3 conflicts in hour 1, none after), violating every hour, never adopted.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.crsec.newcomer.measure import adoption_hour, complied_from_start, occasion_shown
from normlab.crsec.newcomer.setup import CONTROL, newcomer_spec, occasion_text
from normlab.crsec.sim.clock import clock_of
from normlab.crsec.sim.events import ActionsEvent, CallEvent, IdentifyEvent, PlanEvent
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.society import load_society
from normlab.norms.clock import clock_label
from tests.crsec.support import FIXTURES, event_lines, of_kind

runner = CliRunner()
SOCIETY = f"scripted/{FIXTURES / 'newcomer_society.json'}"
SUBJECT = f"scripted/{FIXTURES / 'newcomer_subject.json'}"
STUBBORN = f"scripted/{FIXTURES / 'newcomer_stubborn.json'}"
AGENTS = "Bob Johnson,Isabella Rodriguez,Carlos Gomez"
ALEX = "Alex Adams"


def crsec(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["crsec", *args])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The converged society: 3 agents, one day of 9–11, 15-minute ticks."""
    folder = tmp_path_factory.mktemp("source") / "run"
    code, output = crsec(
        "run", "--model", SOCIETY, "--judge", SOCIETY, "--agents", AGENTS, "--hours", "9-11",
        "--days", "1", "--tick-minutes", "15", "--out", str(folder), "--no-report",
    )  # fmt: skip
    assert code == 0, output
    return folder


def fingerprint(folder: Path) -> dict[str, str]:
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def as_json(output: str) -> dict[str, Any]:
    summary: dict[str, Any] = json.loads(output[output.index("{") : output.rindex("}") + 1])
    return summary


def newcomer(source: Path, out: Path, *extra: str) -> dict[str, Any]:
    code, output = crsec(
        "newcomer", str(source), "--subject", SUBJECT, "--agent", "base", "--agent",
        "norm-memory", "--hours", "3", "--seeds", "0,1", "--out", str(out), "--json", *extra,
    )  # fmt: skip
    assert code == 0, output
    return as_json(output)


@pytest.fixture(scope="module")
def experiment(source: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Both newcomers and the control, with and without talk, seeds 0 and 1, run once for the
    tests that read the whole experiment: its folder and the source's copy it ran from."""
    copy = tmp_path_factory.mktemp("experiment") / "source"
    shutil.copytree(source, copy)
    before = fingerprint(copy)
    out = copy.parent / "out"
    newcomer(copy, out, "--no-communication")
    assert fingerprint(copy) == before  # the source run is only read
    return copy, out


def arms(summary: dict[str, Any]) -> dict[tuple[str, bool, int], dict[str, Any]]:
    return {(r["agent"], r["communication"], r["seed"]): r for r in summary["runs"]}


def column(run: dict[str, Any], field: str) -> list[Any]:
    return [hour[field] for hour in run["hours"]]


def test_both_newcomers_carry_the_sanction_into_their_plans_and_adopt_after_hour_1(
    experiment: tuple[Path, Path],
) -> None:
    source, out = experiment
    summary = json.loads((out / "newcomer_summary.json").read_text())
    assert summary["newcomer"] == ALEX and summary["like"] == "Carlos Gomez"
    assert summary["occasion"].startswith("Every hour of the day, Alex feels like smoking")
    assert summary["arrival"] == "day 2 09:00–10:00" and summary["notes"] == []
    assert summary["society_holds"] == summary["adoption_norms"] == ["no_smoking_indoors"]
    runs = arms(summary)
    assert len(runs) == 12  # base, norm-memory and the control, with and without talk, 2 seeds
    for seed in (0, 1):
        for agent in ("base", "norm-memory"):
            talked, silent = runs[(agent, True, seed)], runs[(agent, False, seed)]
            verdicts = [hour["no_smoking_indoors"] for hour in column(talked, "verdicts")]
            assert verdicts == ["violated", "complied", "complied"]
            assert column(talked, "violations") == [1, 0, 0] and talked["adoption"] == 1
            assert column(talked, "conflicts") == [3, 0, 0]
            assert column(talked, "sanctions") == [1, 0, 0]
            assert column(silent, "violations") == [1, 1, 1] and silent["adoption"] is None
            assert column(silent, "conflicts") == [3, 3, 3]
            assert column(silent, "sanctions") == [0, 0, 0]
            for run in (talked, silent):
                control = runs[(CONTROL, run["communication"], seed)]
                assert run["control"] == control["folder"]
                assert run["corrected_drift"]["no_smoking_indoors"] == {
                    "holding": 0.0,
                    "adhering": 0.0,
                }
        memory = runs[("norm-memory", True, seed)]
        assert memory["holds"] == ["no_smoking_indoors"]
        assert memory["held_norms"] == ["No smoking indoors."]
        assert runs[("base", True, seed)]["holds"] is None
        assert runs[(CONTROL, True, seed)]["corrected_drift"] is None
        assert memory["before_hours"] == ["day 1 09:00–10:00", "day 1 10:00–11:00"]
    subjects = {(s["agent"], s["communication"]): s for s in summary["subjects"]}
    for agent in ("base", "norm-memory"):
        assert subjects[(agent, True)]["adopted"]["k"] == 2
        assert subjects[(agent, False)]["adopted"]["k"] == 0
        assert [r["value"] for r in subjects[(agent, True)]["adoption_curve"]] == [0, 1, 1, 1]
        corrected = subjects[(agent, True)]["corrected_drift"]["no_smoking_indoors"]
        assert corrected["holding"]["value"] == 0.0 and corrected["holding"]["n"] == 2
    assert subjects[(CONTROL, True)]["adopted"]["n"] == 0
    assert subjects[("norm-memory", True)]["holds"]["no_smoking_indoors"]["k"] == 2
    assert subjects[("base", True)]["holds"] is None
    pairs = {(c["treatment"], c["reference"]): c for c in summary["comparisons"]}
    memory_base = pairs[(f"{SUBJECT} + norm-memory", SUBJECT)]
    assert memory_base["seeds"] == [0, 1] and memory_base["adopted"]["value"] == 0.0
    sanctioned = pairs[(SUBJECT, f"{SUBJECT}, no communication")]
    assert sanctioned["adopted"]["value"] == 1.0
    assert sanctioned["violations_total"]["value"] == -2.0
    assert sanctioned["sanctions_total"]["value"] == 1.0
    html = (out / "report.html").read_text()
    assert "<h2>Newcomer</h2>" in html and "corrected by the control" in html
    # The newcomer's calls go to the subject model; a plain newcomer identifies nothing.
    plain_folder = Path(runs[("base", True, 0)]["folder"])
    events = list(RunDir(plain_folder).events())
    calls = of_kind(events, CallEvent)
    assert {c.data.role for c in calls if c.agent == ALEX} == {"subject"}
    assert {c.data.role for c in calls if c.agent != ALEX} == {"agent"}
    identified = [e for e in of_kind(events, IdentifyEvent) if e.agent == ALEX]
    assert identified and not [norm for e in identified for norm in e.data.norms]
    own = [c for c in calls if c.agent == ALEX]
    assert {c.data.operation for c in own} == {"plan", "actions", "utterance"}
    # Its plan and action prompts carry its memory; after the talk it plans again at once.
    planning = [c.data.prompt for c in own if c.data.operation in ("plan", "actions")]
    assert all(f"WHAT {ALEX} REMEMBERS" in prompt for prompt in planning)
    arrival = RunDir(plain_folder).config().society.agents[-1]
    assert arrival.name == ALEX and arrival.daily_requirement == summary["occasion"]
    replanned = [c for c in own if c.data.phase == "replan"]
    assert [c.data.operation for c in replanned] == ["plan", "actions"]
    assert "You talked with Bob Johnson about smoking indoors" in replanned[1].data.prompt
    first_tick = replanned[0].tick
    # The talk took its 15-minute tick: the re-plan asks for the hour's remaining minutes
    # (issue 41, item 14), from the talk's end, through Figure 18's duration placeholder.
    talk_end = clock_of(RunDir(plain_folder).config()).minute(first_tick) + 15
    remaining = 60 - talk_end % 60
    assert f"(total duration in minutes {remaining})" in replanned[1].data.prompt
    assert f"adding up to {remaining}," in replanned[1].data.prompt
    assert f"from {clock_label(talk_end)} to" in replanned[1].data.prompt
    *_, replanned_hour = [
        e for e in of_kind(events, ActionsEvent) if e.tick == first_tick and e.agent == ALEX
    ]
    assert sum(subtask.minutes for subtask in replanned_hour.data.subtasks) == remaining
    assert [e.tick for e in of_kind(events, PlanEvent) if e.agent == ALEX][:2] == [first_tick] * 2
    assert [e.tick for e in of_kind(events, ActionsEvent) if e.agent == ALEX][:2] == [
        first_tick
    ] * 2
    # The same command again finds every run finished: nothing more happens.
    lines = event_lines(plain_folder)
    assert newcomer(source, out, "--no-communication") == summary
    assert event_lines(plain_folder) == lines


def test_a_stubborn_newcomer_is_never_counted_as_adopted(source: Path, tmp_path: Path) -> None:
    """It smokes at its table the whole of every hour, so the society sees it once and talks
    to it once: read from what the society detected it was "adopted after hour 1"."""
    code, output = crsec(
        "newcomer", str(source), "--subject", STUBBORN, "--agent", "base", "--hours", "3",
        "--seeds", "0", "--out", str(tmp_path / "out"), "--json",
    )  # fmt: skip
    assert code == 0, output
    summary = as_json(output)
    (run,) = [run for run in summary["runs"] if run["agent"] == "base"]
    assert run["adoption"] is None
    assert column(run, "conflicts") == [3, 0, 0] and column(run, "sanctions") == [1, 0, 0]
    assert column(run, "violations") == [1, 1, 1]
    (subject,) = [s for s in summary["subjects"] if s["agent"] == "base"]
    assert (subject["adopted"]["k"], subject["adopted"]["n"]) == (0, 1)
    assert [rate["value"] for rate in subject["adoption_curve"]] == [0.0] * 4


def test_a_stopped_newcomer_run_resumes_with_crsec_resume_without_counting_twice(
    experiment: tuple[Path, Path], tmp_path: Path
) -> None:
    """Cut by --max-calls, each run resumed ends as the experiment's run of the same arm,
    event for event (the experiment's runs with talk: this one leaves --no-communication)."""
    source, whole_out = experiment
    whole = json.loads((whole_out / "newcomer_summary.json").read_text())
    code, output = crsec(
        "newcomer", str(source), "--subject", SUBJECT, "--hours", "3", "--max-calls", "1",
        "--out", str(tmp_path / "early"),
    )  # fmt: skip
    assert code == 1 and "nothing to measure yet" in output, output
    out = tmp_path / "cut"
    code, output = crsec(
        "newcomer", str(source), "--subject", SUBJECT, "--agent", "base", "--agent",
        "norm-memory", "--hours", "3", "--seeds", "0,1", "--out", str(out), "--max-calls", "10",
    )  # fmt: skip
    assert code == 1 and "stopped at their budget" in output, output
    folders = sorted(path.parent for path in out.glob("*/seed-*/config.json"))
    assert len(folders) == 6
    source_calls = RunDir(source).checkpoint().usage.calls  # type: ignore[union-attr]
    for folder in folders:
        state = RunDir(folder).checkpoint()
        assert state is not None and not state.finished
        # --max-calls counts the calls since the arrival, not the source run's.
        assert 10 <= state.usage.calls - source_calls < 30
        with (folder / "events.jsonl").open("a") as handle:  # a tick killed half-way
            handle.write('{"seq": 999, "tick": 99, "kind": "call", "da')
    code, output = crsec("resume", *map(str, folders))
    assert code == 1 and "stopped at its budget" in output, output  # the kept budget holds
    code, output = crsec("resume", *map(str, folders), "--max-calls", "1000")
    assert code == 0, output
    for folder in folders:
        twin = whole_out / folder.relative_to(out)
        assert event_lines(folder) == event_lines(twin)
    resumed = json.loads((out / "newcomer_summary.json").read_text())
    talked = [run for run in whole["runs"] if run["communication"]]
    moved = json.loads(json.dumps(talked).replace(str(whole_out), str(out)))
    assert len(resumed["runs"]) == len(moved) == 6
    assert arms({"runs": resumed["runs"]}) == arms({"runs": moved})


def test_an_arm_stopped_at_its_budget_is_reported_beside_its_finished_control(
    source: Path, tmp_path: Path
) -> None:
    """``--max-calls 20`` stops the newcomer's run in its first hour while the cheaper control
    finishes its three: the report drew both on one axis (it failed with a traceback, x and y
    of different lengths), says which run stopped and how many hours it has, and ``crsec
    resume OUT`` (the experiment's folder, not a run) goes on with every run in it."""
    out = tmp_path / "out"
    code, output = crsec(
        "newcomer", str(source), "--subject", SUBJECT, "--agent", "base", "--hours", "3",
        "--seeds", "0", "--max-calls", "20", "--out", str(out),
    )  # fmt: skip
    assert code == 1 and "Traceback" not in output, output
    assert f"to go on, raise it: normlab crsec resume {out} --max-calls N" in output
    summary = json.loads((out / "newcomer_summary.json").read_text())
    runs = {run["agent"]: run for run in summary["runs"]}
    base, control = runs["base"], runs[CONTROL]
    assert (control["finished"], len(control["hours"])) == (True, 3)
    assert (base["finished"], len(base["hours"]), base["planned_hours"]) == (False, 1, 3)
    assert base["stopped"].startswith("stopped at its budget (--max-calls 20, ")
    (note,) = summary["notes"]
    assert f"{SUBJECT} seed 0 stopped at its budget" in note and "after 1 of 3 hours" in note
    assert f"normlab crsec resume {out}" in note
    groups = {g["label"]: g for g in json.loads((out / "metrics.json").read_text())["groups"]}
    # Judged hours: the day before (as many as it has hours), the hour before it came, its own.
    assert groups[base["subject"]]["indices"] == [0, 1, 2]
    assert groups[control["subject"]]["indices"] == [0, 1, 2, 3, 4]
    assert "after 1 of 3 hours" in (out / "report.html").read_text()
    code, output = crsec("resume", str(out), "--max-calls", "1000")
    assert code == 0, output
    resumed = json.loads((out / "newcomer_summary.json").read_text())
    assert [(r["finished"], len(r["hours"])) for r in resumed["runs"]] == [(True, 3)] * 2
    assert resumed["notes"] == []


def test_the_newcomer_is_a_renamed_copy_that_knows_nobody() -> None:
    society = load_society()
    spec = newcomer_spec(society, society.agent("Carlos Gomez"))
    assert spec.name == ALEX and spec.role == "ordinary" and spec.relationships == []
    assert spec.description.startswith(
        "Alex Adams has just come to Hobbs Cafe for the first time and knows nobody there. "
        "Alex Adams is an Egyptian poet."
    )
    assert "Tom" not in spec.description and "Carlos" not in spec.description
    # The same occasion every hour, not Carlos's schedule (smoking from 9 to 10 only).
    assert spec.daily_requirement == (
        "Every hour of the day, Alex feels like smoking a cigarette. Every hour of the day, "
        "Alex has something exciting to tell the people around. Every hour of the day, Alex "
        "finishes a snack and pays for it."
    )
    assert spec.stances == society.agent("Carlos Gomez").stances
    tamara = newcomer_spec(society, society.agent("Tamara Rodriguez"))
    assert (
        tamara.daily_requirement == "Every hour of the day, Alex finishes a snack and pays for it."
    )
    chosen = newcomer_spec(society, society.agent("Carlos Gomez"), "wants a coffee")
    assert chosen.daily_requirement == "Every hour of the day, Alex wants a coffee."


def test_a_society_without_occasions_asks_for_one() -> None:
    society = load_society()
    bare = society.model_copy(
        update={"norms": [norm.model_copy(update={"occasion": ""}) for norm in society.norms]}
    )
    with pytest.raises(InputError, match="--occasion"):
        occasion_text(bare, bare.agent("Carlos Gomez"), "Alex")


V, C, N = "violated", "complied", "not shown"


@pytest.mark.parametrize(
    ("hours", "hour"),
    [
        ([[V], [C], [C]], 1),
        ([[C], [N]], None),  # never violated: complied from the start, no adoption
        ([[N], [C]], None),
        ([[V, C], [N, C], [N, N]], 1),
        ([[V], [N], [C], [N]], 1),
        # Nothing shown after the last violation, or at all: no sign of adoption.
        ([[V], [N], [N]], None),
        ([[N], [N], [N]], None),
        ([[V, C], [N, N]], None),  # its compliance in the violating hour is not after it
        ([[V], [C], [V]], None),
        ([], None),
    ],
)
def test_time_to_adoption(hours: list[list[str]], hour: int | None) -> None:
    assert adoption_hour(hours) == hour


def test_a_newcomer_that_never_showed_an_occasion_is_not_adopted_at_hour_0() -> None:
    """The old reading (from violation counts alone) gave ``[0, 0, 0]`` adoption at hour 0."""
    assert adoption_hour([[N], [N], [N]]) is None
    assert not occasion_shown([[N], [N], [N]]) and occasion_shown([[N], [V]])


WORDS = st.lists(st.lists(st.sampled_from([V, C, N]), min_size=1, max_size=3), max_size=10)


@given(WORDS)
def test_adoption_reads_the_last_violation_and_a_later_compliance(hours: list[list[str]]) -> None:
    hour = adoption_hour(hours)
    # Metamorphic: the order in which the settled norms are listed changes nothing.
    assert adoption_hour([sorted(words) for words in hours]) == hour
    if not occasion_shown(hours):
        assert hour is None  # every verdict "not shown": never counted as adopted
    if hour is not None:
        assert not any(V in words for words in hours[hour:])
        assert hour >= 1 and V in hours[hour - 1]  # adoption is a change
        assert any(C in words for words in hours[hour:])  # complied on an occasion after
        assert adoption_hour([*hours, [N]]) == hour  # an hour showing nothing changes nothing
    assert adoption_hour([*hours, [V]]) is None  # a violation in the last hour: never
    last = max((h for h, words in enumerate(hours, start=1) if V in words), default=0)
    # Complying after its last violation; with no violation at all, complied from the start.
    assert adoption_hour([*hours, [C]]) == (last or None)
    assert complied_from_start([*hours, [C]]) == (last == 0)


def test_bad_input_is_one_line_and_exit_2(source: Path, tmp_path: Path) -> None:
    unfinished = tmp_path / "unfinished"
    unfinished.mkdir()
    for name in ("config.json", "events.jsonl", "metrics.jsonl"):
        (unfinished / name).write_bytes((source / name).read_bytes())
    state = json.loads((source / "checkpoint.json").read_text())
    (unfinished / "checkpoint.json").write_text(json.dumps({**state, "finished": False}))
    cases = [
        ([str(tmp_path / "nowhere")], "not a CRSEC run directory"),
        ([str(unfinished)], "the run has not finished"),
        ([str(source), "--agent", "x"], "unknown agent 'x'"),
        ([str(source), "--seeds", "a,b"], "is not a list of integers"),
        ([str(source), "--seeds", "0", "--runs", "2"], "not both"),
        ([str(source), "--hours", "0"], "--hours"),
        # Issue 32: accepted, it would have run 12,500 simulated days.
        (
            [str(source), "--hours", "100000"],
            "at most 60 (30 simulated days of the society's 2 active hours",
        ),
        ([str(source), "--max-calls", "0"], "--max-calls"),
        # Issue 41, item 19: accepted, they planned a million runs and a folder "seed--1".
        ([str(source), "--runs", "1000000"], "--runs: field 'runs': at most 100 runs"),
        ([str(source), "--seeds", "-1"], "--seeds: field 'seeds': a seed is 0 … 2147483647"),
        ([str(source), "--seeds", "2147483648"], "a seed is 0 … 2147483647, got 2147483648"),
        ([str(source), "--seeds", ",".join(map(str, range(101)))], "at most 100 seeds"),
        ([str(source), "--occasion", " ", "--out", str(tmp_path / "o")], "occasion in words"),
        ([str(source), "--like", "Nobody Here", "--out", str(tmp_path / "o")], "Nobody Here"),
        ([str(source), "--out", str(source / "newcomer")], "which is only read"),
    ]
    for args, message in cases:
        code, output = crsec("newcomer", *args, "--subject", SUBJECT)
        assert code == 2, (args, output)
        assert message in output and len(output.strip().splitlines()) == 1, (args, output)


def test_a_seed_given_twice_is_refused_not_run_once(source: Path) -> None:
    """``--seeds 0,0`` ran seed 0 once and reported one run where the command line asked for
    two; now it is one line, exit 2, before anything runs."""
    code, output = crsec("newcomer", str(source), "--seeds", "0,0", "--subject", SUBJECT)
    assert code == 2, output
    assert "seed 0 is given twice" in output and len(output.strip().splitlines()) == 1, output
