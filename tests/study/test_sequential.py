"""Sequential study runs (issue 35, part 1): two scripted subjects of known, different rates
on LoSoNA stop early with --until-decided and say what that saved; a rerun with a tighter
half-width extends the same cells from where they stopped, running no sample twice."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log
from typer.testing import CliRunner

from normlab.cli import app
from tests.study.support import named_scenarios

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "study" / "fixtures" / "sequential"
JUDGE = REPO / "tests" / "losona" / "fixtures" / "script.json"
SCENARIOS = 40
runner = CliRunner()


def make_study(folder: Path) -> Path:
    """40 scenarios, one in four with the subject Tariq. The judge passes a reply that names
    the wiki: 'always' names it every time (rate 1), 'sometimes' only as Tariq (rate 1/4)."""
    named_scenarios(folder, SCENARIOS, 4)
    always, sometimes = FIXTURES / "always.json", FIXTURES / "sometimes.json"
    text = f"""
name: sequential
out: {folder / "out"}
seed: 0
systems:
  losona:
    options: {{scenarios: {folder / "scenarios.jsonl"}, conditions: [norm_informed], epochs: 1}}
    roles: {{judge: scripted/{JUDGE}}}
subjects:
  - {{name: always, model: scripted/{always}}}
  - {{name: sometimes, model: scripted/{sometimes}}}
prices:
  scripted/{always}: {{input: 2.5, output: 10.0}}
  scripted/{sometimes}: {{input: 2.5, output: 10.0}}
  scripted/{JUDGE}: {{input: 1.0, output: 4.0}}
"""
    path = folder / "study.yaml"
    path.write_text(text)
    return path


def invoke(*args: str | Path) -> dict[str, Any]:
    result = runner.invoke(app, ["study", *map(str, args)])
    assert result.exit_code == 0, result.stderr
    found: dict[str, Any] = json.loads(result.stdout)
    return found


def samples_in_logs(cell: Path) -> tuple[list[str], dict[str, str], int]:
    """Every sample id in the cell's logs (a repeat shows twice), each log's SHA-256, and the
    model calls the logs' samples made (their model events)."""
    ids, digests, calls = [], {}, 0
    for log in sorted(cell.rglob("*.eval")):
        digests[str(log)] = hashlib.sha256(log.read_bytes()).hexdigest()
        for sample in read_eval_log(str(log)).samples or []:
            ids.append(str(sample.id))
            calls += sum(1 for event in sample.events if event.event == "model")
    return ids, digests, calls


def test_stops_when_decided_and_extends_without_repeating_a_call(workdir: Path) -> None:
    path = make_study(workdir)
    first = invoke(
        "run", path, "--json", "--until-halfwidth", "0.2", "--until-decided", "--batch", "4"
    )
    cells = {c["subject"]: c for c in first["sequential"]["cells"]}
    # Decided before the half-width: 1.0 against 0.25 is told apart in a few batches.
    for cell in cells.values():
        assert cell["reason"] == "decided"
        assert cell["units_run"] < SCENARIOS and cell["units_run"] % 4 == 0
        assert cell["units_planned"] == SCENARIOS
        saved = cell["saved"]
        per_unit = cell["calls"] / cell["units_run"]
        assert saved["calls"] == round((SCENARIOS - cell["units_run"]) * per_unit)
        assert saved["cost"] is not None and saved["cost"] > 0
        lo, hi = cell["sequence_ci"]
        assert lo <= cell["value"] <= hi
    [pair] = first["sequential"]["pairs"]
    assert pair["decided"] and pair["ci"][0] > 0
    assert cells["always"]["value"] == 1.0
    cell_folder = workdir / "out" / "losona" / "always"
    ids_before, logs_before, calls_before = samples_in_logs(cell_folder)
    assert len(ids_before) == len(set(ids_before)) == cells["always"]["units_run"]

    second = invoke("run", path, "--json", "--until-halfwidth", "0.15", "--batch", "4")
    after = {c["subject"]: c for c in second["sequential"]["cells"]}
    assert after["always"]["units_run"] > cells["always"]["units_run"]
    assert after["always"]["reason"] in ("half-width reached", "all units")
    ids_after, logs_after, calls_after = samples_in_logs(cell_folder)
    assert len(ids_after) == len(set(ids_after)) == after["always"]["units_run"]  # none twice
    for log, digest in logs_before.items():  # the first run's logs untouched
        assert logs_after[log] == digest
    # Each new scenario made exactly the calls of one: its subject and its judge.
    per_scenario = calls_before / len(ids_before)
    assert calls_after - calls_before == per_scenario * (len(ids_after) - len(ids_before))

    report = invoke("report", path, "--json")
    reported = {c["subject"]: c for c in report["sequential"]["cells"]}
    assert reported["always"]["units_run"] == after["always"]["units_run"]
    assert (workdir / "out" / "study-report.html").read_text().count("Sequential run") >= 1


def test_a_sequential_option_without_a_halfwidth_is_refused(workdir: Path) -> None:
    path = make_study(workdir)
    result = runner.invoke(app, ["study", "run", str(path), "--until-decided"])
    assert result.exit_code == 2
    assert "--until-halfwidth" in result.stderr
    assert not (workdir / "out" / "losona").exists()


def test_plan_predicts_the_saving(workdir: Path) -> None:
    path = make_study(workdir)
    plan = invoke("plan", path, "--json", "--assumed-rate", "0.05", "--until-halfwidth", "0.3")
    for cell in plan["cells"]:
        found = cell["sequential"]
        assert found["units"] == SCENARIOS and found["halfwidth"] == 0.3
        # At a rate near 0 the sequence narrows fast: most units are left unrun.
        assert 0.3 < found["share_saved"] < 1
        assert abs(found["calls_saved"] - cell["calls"] * found["share_saved"]) < 0.5


# --- issue 41, item 18: the budget checked before a batch, the study's prices, the rule --------


def test_a_max_cost_below_the_first_batch_runs_nothing_and_says_so(workdir: Path) -> None:
    """``--max-cost 1e-9`` spent $0.0133 on a first batch and exited 0: the first batch was
    let run unpriced. Now each batch's cost is the plan's before it runs (here counted by
    the plan's dry run, since the study has no plan.json), and a cap no batch fits is refused."""
    path = make_study(workdir)
    args = ["study", "run", str(path), "--until-halfwidth", "0.2", "--batch", "4"]
    result = runner.invoke(app, [*args, "--max-cost", "1e-9"])
    assert result.exit_code == 2, result.output
    [line] = [line for line in result.stderr.splitlines() if line.startswith("normlab: error")]
    assert "--max-cost: $1e-09 runs no batch: losona/always's units 1–4" in line
    assert not list((workdir / "out" / "losona").rglob("*.eval"))  # no paid call was made


def test_a_sequential_run_stays_within_max_cost_and_prices_its_usage(workdir: Path) -> None:
    """Within the cap the study runs the batches that fit and stops; every batch's usage block
    is costed at the study's ``prices:`` (it said "cost unknown" for the scripted models)."""
    path = make_study(workdir)
    invoke("plan", path, "--json")  # plan.json: the batches' prices come from it
    args = ["study", "run", str(path), "--json", "--until-halfwidth", "0.2", "--batch", "4"]
    result = runner.invoke(app, [*args, "--max-cost", "0.03"])
    assert result.exit_code == 0, result.stderr
    assert "cost unknown" not in result.stderr and "cost: $" in result.stderr
    cells = json.loads(result.stdout)["sequential"]["cells"]
    assert {cell["reason"] for cell in cells} == {"max-cost"}
    assert 0 < sum(cell["cost"] for cell in cells) <= 0.03


def test_a_halfwidth_any_interval_meets_is_refused(workdir: Path) -> None:
    """``--until-halfwidth inf`` and ``2`` were accepted for LoSoNA's accuracy, a proportion
    whose every interval is at most 0.5 wide each side: each cell stopped after one batch."""
    path = make_study(workdir)
    for given in ("inf", "nan", "2", "0.51", "-0.1"):
        for command in ("run", "plan"):
            result = runner.invoke(app, ["study", command, str(path), "--until-halfwidth", given])
            assert result.exit_code == 2, (given, result.output)
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
            assert "--until-halfwidth" in result.stderr
    assert not (workdir / "out" / "losona").exists()
    accepted = runner.invoke(app, ["study", "plan", str(path), "--until-halfwidth", "0.5"])
    assert accepted.exit_code == 0, accepted.stderr
