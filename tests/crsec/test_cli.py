"""``normlab crsec``: run, kill and resume, analyze, report, trace, bad input."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from normlab.cli import app
from normlab.crsec.cli import with_ablations
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.schemas import ABLATIONS, Ablation
from tests.crsec.support import BUSY, BUSY_MODEL, SMALL, event_lines, write_script
from tests.helpers.interrupt import kill_when

runner = CliRunner()
SMALL_RUN = ["--agents", ",".join(SMALL), "--hours", "9-11", "--days", "1"]


def crsec(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["crsec", *args])
    return result.exit_code, result.output


def run(folder: Path, *extra: str, model: str = BUSY_MODEL) -> str:
    code, output = crsec(
        "run", "--model", model, "--judge", BUSY_MODEL, "--out", str(folder), *SMALL_RUN, *extra
    )
    assert code == 0, output
    return output


def test_run_analyze_and_report(workdir: Path) -> None:
    output = run(workdir / "run")
    # Output that is not a terminal gets a line per tick as well as one per hour.
    assert output.splitlines()[0] == f"models: agent={BUSY_MODEL}, judge={BUSY_MODEL}"
    assert "day 1 09:00: tick 1/24 done" in output and "day 1 09:00–10:00: " in output
    assert (workdir / "run" / "report.html").exists()
    code, output = crsec("analyze", str(workdir / "run"), "--json")
    assert code == 0, output
    analysis = json.loads(output[output.index("{") :])
    (result,) = analysis["runs"]
    assert result["finished"] and len(result["hours"]) == 2 and result["agents"] == 4
    assert result["judge_calls"] == 0 and result["judge_cached"] > 0  # the run's report judged
    html = (workdir / "run" / "report.html").read_text()
    assert "Figure 2(a)" in html and "Figure 2(b)" in html and "personal norm database" in html


def test_several_runs_and_an_ablation_in_one_report(workdir: Path) -> None:
    run(workdir / "full", "--runs", "2", "--no-report")
    run(workdir / "quiet", "--no-communication", "--no-report")
    assert RunDir(workdir / "full" / "run-2").config().seed == 1
    code, output = crsec(
        "report", str(workdir / "full" / "run-1"), str(workdir / "full" / "run-2"),
        str(workdir / "quiet"), "--out", str(workdir / "report"),
    )  # fmt: skip
    assert code == 0, output
    html = (workdir / "report" / "report.html").read_text()
    assert "Ablations" in html and "no_communication" in html and "2 run(s)" in html
    metrics = json.loads((workdir / "report" / "metrics.json").read_text())
    assert [group["runs"] for group in metrics["groups"]] == [2, 1]


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_event_log(workdir: Path) -> None:
    run(workdir / "whole", "--no-report")
    slow = json.loads(BUSY.read_text())
    slow["delay"] = 0.02
    script = workdir / "slow.json"
    script.write_text(json.dumps(slow))
    model = f"scripted/{script}"
    folder = workdir / "killed"
    args = ["crsec", "run", "--model", model, "--out", str(folder), *SMALL_RUN, "--no-report"]

    def some_ticks_done() -> bool:
        state = RunDir(folder).checkpoint() if (folder / "checkpoint.json").exists() else None
        return state is not None and state.tick >= 5

    kill_when(args, some_ticks_done, workdir)
    state = RunDir(folder).checkpoint()
    assert state is not None and not state.finished
    code, output = crsec("resume", str(folder), "--no-report")
    assert code == 0, output
    # the same calls in the same order: only the model's name differs in the config
    assert event_lines(workdir / "whole") == event_lines(folder)


def test_a_budget_stop_exits_1_and_resume_keeps_it_until_raised(workdir: Path) -> None:
    code, output = crsec(
        "run", "--model", BUSY_MODEL, "--out", str(workdir / "r"), *SMALL_RUN,
        "--max-calls", "10", "--no-report",
    )  # fmt: skip
    assert code == 1 and "stopped at its budget (--max-calls 10, kept for resume)" in output
    events = event_lines(workdir / "r")
    # A plain resume keeps to the run's budget (issue 18): nothing more is spent.
    code, output = crsec("resume", str(workdir / "r"), "--no-report")
    assert code == 1 and "stopped at its budget" in output
    assert event_lines(workdir / "r") == events
    code, output = crsec("resume", str(workdir / "r"), "--no-report", "--max-calls", "100000")
    assert code == 0, output


def test_a_model_that_fails_mid_run_leaves_a_resumable_checkpoint(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from normlab.crsec.sim.loop import Simulation

    real_step = Simulation.step

    async def failing_step(self: Simulation, tick: int) -> None:
        if tick == 3:
            raise ConnectionError("the provider went away")
        await real_step(self, tick)

    monkeypatch.setattr(Simulation, "step", failing_step)
    code, output = crsec("run", "--model", BUSY_MODEL, "--out", str(workdir / "r"), *SMALL_RUN)
    assert (
        code == 1 and "stopped at day 1 09:15 by ConnectionError: the provider went away" in output
    )
    assert f"normlab crsec resume {workdir / 'r'}" in output and "Traceback" not in output
    monkeypatch.setattr(Simulation, "step", real_step)
    code, output = crsec("resume", str(workdir / "r"), "--no-report")
    assert code == 0, output
    run(workdir / "whole", "--no-report")
    assert event_lines(workdir / "whole") == event_lines(workdir / "r")


def test_a_script_with_no_answer_is_a_one_line_error(workdir: Path) -> None:
    model = write_script(workdir, [("TASK: generate 5 norms", ["{}"])])  # nothing else matches
    code, output = crsec("run", "--model", model, "--out", str(workdir / "r"), *SMALL_RUN)
    assert code == 2 and "no rule matches the prompt" in output and "Traceback" not in output


def test_trace_follows_an_agent_and_a_norm(workdir: Path) -> None:
    run(workdir / "run")
    code, output = crsec(
        "trace", str(workdir / "run"), "--agent", "Carlos Gomez", "--norm", "no_smoking_indoors"
    )
    assert code == 0, output
    lines = output.splitlines()
    assert any("conversation" in line for line in lines)
    assert any("action" in line and "smok" in line for line in lines)
    assert all("smok" in line.lower() or "qualified" in line or "identified" in line
               or "rejected" in line or "evaluation" in line or "synthesis" in line
               or "created" in line for line in lines)  # fmt: skip
    code, output = crsec("trace", str(workdir / "run"), "--agent", "Nobody")
    assert code == 2 and "--agent 'Nobody' is not in the society" in output
    code, output = crsec("trace", str(workdir / "run"), "--agent", "Carlos Gomez", "--norm", "x")
    assert code == 2 and "is not a norm at stake" in output


def test_a_malformed_society_file_is_one_line_naming_file_and_field(workdir: Path) -> None:
    from normlab.crsec.sim.society import HOBBS_CAFE

    bad = workdir / "society.json"
    society = json.loads(HOBBS_CAFE.read_text())
    society["agents"][3]["role"] = "mayor"
    bad.write_text(json.dumps(society))
    code, output = crsec("run", "--society", str(bad), "--out", str(workdir / "r"))
    assert code == 2
    assert output.strip().splitlines() == [
        f"normlab: error: {bad}: field 'agents.3.role': Input should be 'entrepreneur' or "
        "'ordinary'"
    ]
    yaml_file = workdir / "society.yaml"
    yaml_file.write_text("name: X\nplaces: [\n")
    code, output = crsec("run", "--society", str(yaml_file), "--out", str(workdir / "r"))
    assert code == 2 and "invalid YAML" in output and str(yaml_file) in output


def test_a_society_in_yaml_runs(workdir: Path) -> None:
    import yaml

    from normlab.crsec.sim.society import HOBBS_CAFE

    society = json.loads(HOBBS_CAFE.read_text())
    society["agents"] = society["agents"][:3]
    path = workdir / "small.yaml"
    path.write_text(yaml.safe_dump(society))
    code, output = crsec(
        "run", "--society", str(path), "--model", BUSY_MODEL, "--hours", "9-10",
        "--days", "1", "--out", str(workdir / "r"), "--no-report",
    )  # fmt: skip
    assert code == 0, output
    assert RunDir(workdir / "r").config().society.agents[2].name == "Francisco Lopez"


def test_bad_options_are_one_line_errors(workdir: Path) -> None:
    code, output = crsec("run", "--hours", "nine", "--out", str(workdir / "r"))
    assert code == 2 and "--hours: field 'hours': 'nine' is not START-END" in output
    code, output = crsec("run", "--hours", "15-9", "--out", str(workdir / "r"))
    assert code == 2 and "active_hours must be" in output
    code, output = crsec("run", "--agents", "Bob Johnson,Ghost", "--out", str(workdir / "r"))
    assert code == 2 and "'Ghost' is not in hobbs_cafe.json" in output
    code, output = crsec("analyze", str(workdir / "missing"))
    assert code == 2 and "not a CRSEC run directory" in output
    run(workdir / "once", "--no-report")
    code, output = crsec("run", "--model", BUSY_MODEL, "--out", str(workdir / "once"))
    assert code == 2 and "a run already exists here" in output


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (lambda s: s.update(start="2023-02-30"), "field 'start': start must be a calendar date"),
        (lambda s: s["agents"][0].update(age=-3), "agents.0.age': Input should be greater"),
        (lambda s: s["norms"].append(dict(s["norms"][0])), "norm ids must be unique"),
        (
            lambda s: s["agents"][1].update(name=s["agents"][0]["name"] + "\u200b"),
            "agents.1.name': name 'Bob Johnson\\u200b' holds an invisible",
        ),
    ],
)
def test_a_society_that_would_run_wrong_is_refused(
    workdir: Path, change: Callable[[dict[str, Any]], object], said: str
) -> None:
    """Each of these ran before: a date that is none (a traceback), a negative age, two
    norms with one id, two agents whose names print alike."""
    from normlab.crsec.sim.society import HOBBS_CAFE

    society = json.loads(HOBBS_CAFE.read_text())
    change(society)
    bad = workdir / "society.json"
    bad.write_text(json.dumps(society))
    code, output = crsec("run", "--society", str(bad), "--out", str(workdir / "r"))
    assert code == 2, output
    assert said in output and "Traceback" not in output
    assert not (workdir / "r").exists()


def test_an_empty_agents_option_is_an_error_not_everyone(workdir: Path) -> None:
    for value in ("", " , ", "Bob Johnson"):
        code, output = crsec("run", "--agents", value, "--out", str(workdir / "r"))
        assert code == 2 and "--agents: field 'agents': name at least two agents" in output


def test_each_ablation_flag_switches_off_its_own_part() -> None:
    """``crsec run``'s flags are made from the simulation's list of ablations: each flag
    names exactly its ablation, and a run with none given ablates nothing."""
    probe = typer.Typer()

    @probe.command()
    @with_ablations
    def ablated(*, ablations: list[Ablation]) -> None:
        typer.echo(json.dumps(ablations))

    def given(*flags: str) -> list[str]:
        result = runner.invoke(probe, list(flags))
        assert result.exit_code == 0, result.output
        return list(json.loads(result.output))

    assert given() == []
    for name in ABLATIONS:
        assert given(f"--{name.replace('_', '-')}") == [name]
    assert given(*(f"--{name.replace('_', '-')}" for name in reversed(ABLATIONS))) == list(
        ABLATIONS
    )


@pytest.mark.parametrize("tick", [10**30, -1])
def test_resume_refuses_a_checkpoint_tick_outside_the_run(workdir: Path, tick: int) -> None:
    """Issue 41, item 19: a checkpoint whose tick is 10^30 read as a finished run and exited 0
    saying nothing; past the run's end, or below 0, it is one line naming the file and the
    field, exit 2, whether or not it says finished."""
    folder = workdir / "r"
    code, output = crsec(
        "run", "--model", BUSY_MODEL, "--out", str(folder), "--agents", ",".join(SMALL),
        "--hours", "9-10", "--days", "1", "--tick-minutes", "30", "--no-report",
    )  # fmt: skip
    assert code == 0, output
    path = folder / "checkpoint.json"
    state = json.loads(path.read_text())
    for finished in (True, False):
        path.write_text(json.dumps({**state, "tick": tick, "finished": finished}))
        code, output = crsec("resume", str(folder), "--no-report")
        assert code == 2, output
        assert f"{path}: field 'tick'" in output and len(output.strip().splitlines()) == 1, output
