"""HSII end to end on the scripted model: run → stages → analysis → report; play; COT."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii import load_cases
from normlab.hsii.analysis import analyze, load_run

FIXTURES = Path(__file__).parent / "fixtures"
CASES = FIXTURES / "paper_tables.jsonl"
SCRIPT = FIXTURES / "script.json"
MODEL = f"scripted/{SCRIPT}"
REFERENCE = f"scripted/{FIXTURES / 'reference.json'}"
runner = CliRunner()


def run(workdir: Path, *extra: str) -> Path:
    logs = workdir / "logs"
    result = runner.invoke(
        app,
        ["hsii", "run", "--model", MODEL, "--judge", MODEL, "--role", f"persona={MODEL}",
         "--role", f"reference={REFERENCE}", "--cases", str(CASES), "--log-dir", str(logs),
         "--report-dir", str(workdir / "report"), *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return logs


def test_all_four_stages_and_the_score(workdir: Path) -> None:
    # Script: agriculture answered right and preferred by the judge; business answered with
    # the wrong target; tennis answered in prose with no target at all.
    logs = run(workdir)
    analysis = analyze(load_run([logs]))
    result = analysis.models[MODEL]
    assert (result.n, result.n1, result.n2) == (3, 2, 1)
    assert (result.r1, result.r2, result.r3, result.r4) == pytest.approx((2 / 3, 1 / 2, 1, 1))
    assert result.hsii == pytest.approx(2 / 3 * (1 + 0.5 * 2))
    assert result.hsii_printed == pytest.approx(2 / 3 * (1 + 0.5 * (1 + 2)))
    roles = analysis.usage[MODEL].roles
    # the right case: subject 7 statements, persona 6 replies, reference 1, judge 2 + 2
    assert (roles["subject"].calls, roles["persona"].calls) == (2 + 7, 6)
    assert (roles["reference"].calls, roles["judge"].calls) == (1, 4)
    html = (workdir / "report" / "report.html").read_text()
    assert "Table 1 shape" in html and "Headline score form: table" in html
    assert "TECHNICAL COORDINATOR → Intelligent Assistant" in html  # who speaks to whom
    assert "decision round, reference" in html and "A names a day" in html
    # These are the paper's printed cases, not the shipped bank's: no other set's clusters.
    assert "are not all among the 477 cases of the shipped case bank" in html
    assert "Figure 3 shape" not in html


def test_the_long_run_alternates_with_the_target_and_ends_at_epsilon(workdir: Path) -> None:
    from inspect_ai.log import read_eval_log

    logs = run(workdir, "--epsilon", "3")
    (path,) = sorted(logs.glob("*.eval"))
    sample = next(s for s in read_eval_log(str(path)).samples or [] if "c80b" in str(s.id))
    long_run = sample.metadata["hsii"]["long_run"]
    speakers = [turn["speaker"] for turn in long_run["turns"]]
    assert speakers == ["Intelligent Assistant", "TECHNICAL COORDINATOR"] * 2  # turns 1–2
    assert long_run["history"][-1]["content"] == "Thanks, please send the agenda."
    assert long_run["reference"]["targets"] == ["TECHNICAL COORDINATOR"]
    roles = [m.role for m in sample.messages]  # the viewer's chat: the conversation
    assert roles == ["user", "assistant", "user", "assistant", "user", "assistant"]


def test_json_stdout_and_resume(workdir: Path) -> None:
    logs = run(workdir)
    before = sorted(p.name for p in logs.glob("*.eval"))
    run(workdir)
    assert sorted(p.name for p in logs.glob("*.eval")) == before
    result = runner.invoke(app, ["hsii", "analyze", str(logs), "--json", "--tie-weight", "0.5"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["models"][MODEL]["tie_weight"] == 0.5 and data["formula"] == "table"


def test_a_person_plays_from_the_terminal_and_gets_a_human_row(workdir: Path) -> None:
    # One case at a time. Agriculture: character 2 (TECHNICAL COORDINATOR), then the long run's
    # second statement; business: "I" by name, then its second statement; tennis: a wrong one.
    answers = ["2", "The meeting is set for Thursday.", "2", "Agenda sent."]
    answers += ["I", "The financial reports are attached.", "I", "Anything else?"]
    answers += ["Carlos Moya", "Congratulations!"]
    result = runner.invoke(
        app,
        ["hsii", "play", "--name", "tester", "--judge", MODEL, "--role", f"persona={MODEL}",
         "--role", f"reference={REFERENCE}", "--cases", str(CASES), "--epsilon", "2",
         "--log-dir", str(workdir / "human")],
        input="\n".join(answers) + "\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "Whom do you talk to next?" in result.output
    assert "Address (number or name)" in result.output
    human = analyze(load_run([workdir / "human"])).models["human/tester"]
    assert (human.n, human.n1, human.n2) == (3, 3, 2)
    assert human.r2 == pytest.approx(2 / 3)


def test_cot_complexity_counts_rounds_up_to_the_cap(workdir: Path) -> None:
    # The scripted subject picks the wrong target until its second reflection (the reflection
    # prompt is the same each round, so the script's replies cycle: wrong, then right).
    script = workdir / "cot.json"
    wrong = json.dumps({"role_to": "FARMERS", "content": "x"})
    right = json.dumps({"role_to": "TECHNICAL COORDINATOR", "content": "x"})
    script.write_text(json.dumps({"rules": [
        {"match": "Reflect once more", "replies": [wrong, right]},
        {"match": "(?s)Finally", "replies": [wrong]},
        {"match": "(?s)\"topic\": \"agriculture\"", "replies": [wrong]},
    ], "default": wrong}))  # fmt: skip
    model = f"scripted/{script}"
    case_id = next(c.case_id for c in load_cases(CASES) if c.topic == "agriculture")
    args = ["hsii", "cot", "--model", model, "--cases", str(CASES), "--case", case_id,
            "--cot", "fig4", "--json"]  # fmt: skip
    capped = runner.invoke(app, [*args, "--cap", "2", "--log-dir", str(workdir / "c2")])
    assert capped.exit_code == 0, capped.output
    (result,) = json.loads(capped.stdout)["cot"].values()
    assert (result["cap"], result["complexity"]["value"], result["solved"]["value"]) == (2, 2, 0)
    # a fresh copy of the script: the scripted model's reply cycle is per script file
    fresh = workdir / "cot2.json"
    fresh.write_text(script.read_text())
    args[args.index(model)] = f"scripted/{fresh}"
    wide = runner.invoke(app, [*args, "--cap", "5", "--log-dir", str(workdir / "c5")])
    (result,) = json.loads(wide.stdout)["cot"].values()
    # round 0 (no COT) wrong, round 1 (COT walk) wrong, round 2 wrong, round 3 right
    assert result["complexity"]["value"] == 3 and result["solved"]["value"] == 1
    assert result["without_cot"]["value"] == 0 and result["with_cot"]["value"] == 0
    assert result["rounds_to_target"] == 3

    # Issue 31: logs of `hsii cot` alone are analyzed and reported (Table 2), as `hsii cot` says.
    analyzed = runner.invoke(app, ["hsii", "analyze", str(workdir / "c5"), "--json"])
    assert analyzed.exit_code == 0, analyzed.output
    data = json.loads(analyzed.stdout)
    (table_two,) = data["cot"].values()
    assert data["models"] == {} and table_two["complexity"]["value"] == 3
    shown = runner.invoke(app, ["hsii", "analyze", str(workdir / "c5")])
    assert shown.exit_code == 0 and "COT complexity" in shown.output, shown.output
    reported = runner.invoke(app, ["hsii", "report", str(workdir / "c5"), "--out", str(workdir)])
    assert reported.exit_code == 0, reported.output
    assert "Table 2" in (workdir / "report.html").read_text()
