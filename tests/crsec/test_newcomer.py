"""``normlab crsec newcomer``: a scripted newcomer joins a scripted society converged on "No
smoking indoors.", breaches it, is sanctioned and (with a norm database) adopts it.

The society (``fixtures/newcomer_society.json``: Bob Johnson creates the norm, Isabella
Rodriguez and Carlos Gomez take it up from their thoughts in the first hour) reads quietly and
finds a conflict only in "Alex Adams is smoking a cigarette at a table (at Hobbs Cafe)". The
newcomer (``fixtures/newcomer_subject.json``) smokes at a table for the first half of each
hour unless its system message lists a smoking norm; in a conversation it identifies
"No smoking indoors." Worked out by hand, with 15-minute ticks: in its first hour the three
agents each see it smoke (3 conflicts), Bob talks to it (1 sanction) and the norm-memory
newcomer keeps the norm, so from hour 2 it smokes outside: adoption after hour 1. The plain
newcomer keeps no database and smokes inside every hour (3 conflicts each; Bob, then
Isabella, then Bob again talk to it, the re-chat buffer keeping Bob apart for 130 minutes).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.events import CallEvent, IdentifyEvent, of_kind
from normlab.crsec.newcomer import newcomer_spec, plan, simulate
from normlab.crsec.newcomer_analysis import adoption_hour
from normlab.crsec.rundir import RunDir
from normlab.crsec.runner import model_client
from normlab.crsec.society import load_society
from tests.crsec.support import FIXTURES, event_lines

runner = CliRunner()
SOCIETY = f"scripted/{FIXTURES / 'newcomer_society.json'}"
SUBJECT = f"scripted/{FIXTURES / 'newcomer_subject.json'}"
AGENTS = "Bob Johnson,Isabella Rodriguez,Carlos Gomez"


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


def newcomer(source: Path, out: Path, *extra: str) -> dict[str, Any]:
    code, output = crsec(
        "newcomer", str(source), "--subject", SUBJECT, "--agent", "base", "--agent",
        "norm-memory", "--hours", "3", "--seeds", "0,1", "--out", str(out), "--json", *extra,
    )  # fmt: skip
    assert code == 0, output
    summary: dict[str, Any] = json.loads(output[output.index("{") : output.rindex("}") + 1])
    return summary


def test_the_newcomer_breaches_is_sanctioned_and_with_a_norm_database_adopts_after_hour_1(
    source: Path, tmp_path: Path
) -> None:
    before = fingerprint(source)
    summary = newcomer(source, tmp_path / "out")
    assert fingerprint(source) == before  # the source run is only read
    assert summary["newcomer"] == "Alex Adams" and summary["like"] == "Carlos Gomez"
    assert summary["arrival"] == "day 2 09:00–10:00" and summary["notes"] == []
    assert summary["society_holds"] == ["no_smoking_indoors"]
    runs = {(run["agent"], run["seed"]): run for run in summary["runs"]}
    for seed in (0, 1):
        memory, plain = runs[("norm-memory", seed)], runs[("base", seed)]
        assert [hour["conflicts"] for hour in memory["hours"]] == [3, 0, 0]
        assert [hour["sanctions"] for hour in memory["hours"]] == [1, 0, 0]
        assert memory["adoption"] == 1
        assert memory["holds"] == ["no_smoking_indoors"]
        assert memory["held_norms"] == ["No smoking indoors."]
        assert [hour["conflicts"] for hour in plain["hours"]] == [3, 3, 3]
        assert [hour["sanctions"] for hour in plain["hours"]] == [1, 1, 1]
        assert plain["adoption"] is None and plain["holds"] is None
        assert memory["before_hours"] == ["day 1 09:00–10:00", "day 1 10:00–11:00"]
        assert memory["drift"]["no_smoking_indoors"] == {"holding": 0.0, "adhering": 0.0}
    subjects = {subject["agent"]: subject for subject in summary["subjects"]}
    memory_summary, plain_summary = subjects["norm-memory"], subjects["base"]
    assert [rate["value"] for rate in memory_summary["adoption_curve"]] == [0.0, 1.0, 1.0, 1.0]
    assert [rate["value"] for rate in plain_summary["adoption_curve"]] == [0.0] * 4
    assert memory_summary["adopted"]["k"] == 2 and plain_summary["adopted"]["k"] == 0
    assert memory_summary["holds"]["no_smoking_indoors"]["k"] == 2
    assert plain_summary["holds"] is None
    assert memory_summary["conflicts"][0]["value"] == 3.0
    (comparison,) = summary["comparisons"]
    assert comparison["seeds"] == [0, 1] and comparison["adopted"]["value"] == 1.0
    assert comparison["conflicts_total"]["value"] == -6.0
    out = tmp_path / "out"
    assert json.loads((out / "newcomer_summary.json").read_text()) == summary
    html = (out / "report.html").read_text()
    assert "<h2>Newcomer</h2>" in html and "Time to adoption" in html
    # The newcomer's calls go to the subject model; a plain newcomer identifies nothing.
    memory_folder = Path(runs[("norm-memory", 0)]["folder"])
    plain_folder = Path(runs[("base", 0)]["folder"])
    calls = of_kind(RunDir(memory_folder).events(), CallEvent)
    assert {c.data.role for c in calls if c.agent == "Alex Adams"} == {"subject"}
    assert {c.data.role for c in calls if c.agent != "Alex Adams"} == {"agent"}
    plain_events = list(RunDir(plain_folder).events())
    identified = [e for e in of_kind(plain_events, IdentifyEvent) if e.agent == "Alex Adams"]
    assert identified and not [norm for e in identified for norm in e.data.norms]
    plain_calls = [c for c in of_kind(plain_events, CallEvent) if c.agent == "Alex Adams"]
    assert {c.data.operation for c in plain_calls} == {"plan", "actions", "utterance"}
    # The same command again finds every run finished: nothing more happens.
    lines = event_lines(memory_folder)
    assert newcomer(source, out) == summary
    assert event_lines(memory_folder) == lines


def test_a_stopped_newcomer_run_resumes_without_counting_twice(
    source: Path, tmp_path: Path
) -> None:
    whole = newcomer(source, tmp_path / "whole")
    out = tmp_path / "cut"
    folders = plan(
        source, out, subject=SUBJECT, agents=["base", "norm-memory"], seeds=[0, 1], hours=3
    )
    source_calls = RunDir(source).checkpoint().usage.calls  # type: ignore[union-attr]
    asyncio.run(simulate(folders, model_client, lambda line: None, source_calls + 10))
    for folder in folders:
        state = RunDir(folder).checkpoint()
        assert state is not None and not state.finished
        with (folder / "events.jsonl").open("a") as handle:  # a tick killed half-way
            handle.write('{"seq": 999, "tick": 99, "kind": "call", "da')
    assert newcomer(source, out)["runs"] == [
        {**run, "folder": run["folder"].replace(str(tmp_path / "whole"), str(out))}
        for run in whole["runs"]
    ]
    for folder in folders:
        twin = tmp_path / "whole" / folder.relative_to(out)
        assert event_lines(folder) == event_lines(twin)


def test_the_newcomer_is_a_renamed_copy_that_knows_nobody() -> None:
    society = load_society()
    spec = newcomer_spec(society, society.agent("Carlos Gomez"))
    assert spec.name == "Alex Adams" and spec.role == "ordinary" and spec.relationships == []
    assert spec.description.startswith(
        "Alex Adams has just come to Hobbs Cafe for the first time and knows nobody there. "
        "Alex Adams is an Egyptian poet."
    )
    assert "Tom" not in spec.description and "Carlos" not in spec.description
    assert spec.daily_requirement.startswith("Alex is SMOKING at Hobbs Cafe")
    assert spec.stances == society.agent("Carlos Gomez").stances


@pytest.mark.parametrize(
    ("conflicts", "hour"),
    [([3, 0, 0], 1), ([0, 0], 0), ([1, 0, 1], None), ([2, 0, 1, 0], 3), ([], None)],
)
def test_time_to_adoption(conflicts: list[int], hour: int | None) -> None:
    assert adoption_hour(conflicts) == hour


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
        ([str(source), "--like", "Nobody Here", "--out", str(tmp_path / "o")], "Nobody Here"),
        ([str(source), "--out", str(source / "newcomer")], "which is only read"),
    ]
    for args, message in cases:
        code, output = crsec("newcomer", *args, "--subject", SUBJECT)
        assert code == 2, (args, output)
        assert message in output and len(output.strip().splitlines()) == 1, (args, output)
