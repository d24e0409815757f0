"""Which trials a scenario counts: a planned trial that is absent is a missing label (K is the
run's, not the rows'), two judges are never pooled, and one trial labelled twice two ways is an
error. Hand-made records and scripted runs, the expected numbers worked out by hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.scorer import MetricProtocol, SampleScore, Score
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.losona.analysis import analyze, analyze_records, load_records, load_run
from normlab.losona.dataset import build_dataset
from normlab.losona.schemas import Scenario
from normlab.losona.scorer import condition_measures, trials
from tests.helpers.inputs import write_jsonl as write
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli
from tests.losona.conftest import trial_row as row
from tests.losona.factory import clean_row

VERDICT = {"elicitor_uptake": "u", "norm_requirement": "r", "evidence": "e"}


def analysis_json(*paths: Path) -> dict[str, Any]:
    """``losona analyze PATHS --json``: stdout only (notes on what was skipped go to stderr)."""
    result = CliRunner().invoke(app, ["losona", "analyze", *map(str, paths), "--json"])
    assert result.exit_code == 0, result.output
    value: dict[str, Any] = json.loads(result.stdout)
    return value


def judge_reply(complies: bool) -> str:
    return json.dumps({**VERDICT, "reasoning": "r", "complies": complies})


# --- item 9: a planned trial that is absent counts like a missing label ---------------------


def test_an_absent_trial_is_a_missing_label_in_imported_records(tmp_path: Path) -> None:
    # s1 has 2 of its trials, [T, F]; s2 all 3, [T, F, T]: K = 3, the condition's largest count.
    # s1: [T, F, absent] → 1 < ⌈3/2⌉ = 2, fails; compliance 1/3 (before: 1 ≥ ⌈2/2⌉, passed).
    # s2: 2 ≥ 2, passes; compliance 2/3.
    # accuracy (0 + 1)/2 = 0.5; compliance (1/3 + 2/3)/2 = 0.5; consistency: both disagree → 0.
    path = write(tmp_path / "trials.jsonl", [
        row("s1", 1, True), row("s1", 2, False),
        row("s2", 1, True), row("s2", 2, False), row("s2", 3, True),
    ])  # fmt: skip
    naive = analyze_records(load_records([path])).models["m"].conditions["naive"]
    assert naive.accuracy.value == 0.5
    assert naive.compliance.value == pytest.approx(0.5)
    assert naive.consistency.value == 0.0
    assert (naive.k, naive.n_trials, naive.absent_trials) == (3, 5, 1)
    assert (naive.parse_failures, naive.judge_truncations) == (0, 0)  # absent is neither
    assert naive.scenarios_with_missing_label == 1
    cell = analysis_json(path)["models"]["m"]["conditions"]["naive"]
    assert (cell["accuracy"]["value"], cell["absent_trials"], cell["k"]) == (0.5, 1, 3)
    code, output = run_cli("losona", "analyze", str(path))
    assert code == 0 and "absent trials" in output


def test_a_partial_log_alone_counts_the_runs_k(tmp_path: Path) -> None:
    # K = 3; per scenario the subject answers epoch 1 "wiki" (complies), epoch 2 "make deploy"
    # (breach), epoch 3 "wiki" (complies): [T, F, T] → 2 ≥ 2, both scenarios pass.
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"rules": [
        {"match": "(?s)^You are judging.*\\nwiki\\n", "replies": [judge_reply(True)]},
        {"match": "^You are judging", "replies": [judge_reply(False)]},
        {"match": "Your next message:", "replies": ["wiki", "make deploy", "wiki"]},
    ]}))  # fmt: skip
    model = f"scripted/{script}"
    logs = tmp_path / "logs"
    code, output = run_cli(
        "losona", "run", "--model", model, "--judge", model, "--data", str(SCENARIOS),
        "-c", "naive", "--log-dir", str(logs), "--report-dir", str(tmp_path / "report"),
    )  # fmt: skip
    assert code == 0, output
    whole = analyze_records(load_records([logs])).models[model].conditions["naive"]
    assert whole.accuracy.value == 1.0
    # The log as a run killed before epoch 3 left it: [T, F] of K = 3 (the log's epochs) →
    # [T, F, absent] → 1 < 2, both fail: accuracy 0 (before: K = 2, 1 ≥ 1, accuracy 1.0);
    # compliance 1/3; 2 absent trials, 4 read.
    (path,) = sorted(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    log.samples = [sample for sample in log.samples or [] if sample.epoch < 3]
    log.status = "started"
    write_eval_log(log, str(path))
    run = load_run([path])
    naive = analyze(run).models[model].conditions["naive"]
    assert naive.accuracy.value == 0.0
    assert naive.compliance.value == pytest.approx(1 / 3)
    assert (naive.k, naive.n_trials, naive.absent_trials, naive.parse_failures) == (3, 4, 2, 0)
    assert whole.absent_trials == 0
    assert naive.scenarios_with_missing_label == 2
    code, output = run_cli("losona", "report", str(path), "--out", str(tmp_path / "partial"))
    assert code == 0, output
    assert "absent trials" in (tmp_path / "partial" / "report.html").read_text()


def test_inspect_metric_counts_an_absent_trial_as_the_analysis_does() -> None:
    # Inspect reduces what each sample has: A [1, 0] (an epoch errored), B [1, 0, 1]. K = 3,
    # the condition's largest count: A → [T, F, absent] fails, B passes: accuracy-at-3 0.5
    # (before: A passed at K = 2, 1.0), compliance (1/3 + 2/3)/2 = 0.5, 1 absent trial.
    reduce = trials()
    scenario = Scenario.model_validate(clean_row())
    told = build_dataset([scenario], ["naive"])[0].metadata
    reduced = [
        SampleScore(
            score=reduce([Score(value=value) for value in values]),
            sample_id=sample_id,
            sample_metadata=told,
        )
        for sample_id, values in (("A", [1.0, 0.0]), ("B", [1.0, 0.0, 1.0]))
    ]
    measures = cast(MetricProtocol, condition_measures())
    shown = measures(reduced)
    assert isinstance(shown, dict)
    assert shown["naive accuracy-at-3"] == 0.5
    assert shown["naive compliance"] == pytest.approx(0.5)
    assert shown["naive consistency"] == 0.0
    assert (shown["naive parse failures"], shown["naive absent trials"]) == (0, 1)


# --- item 10: two judges are never pooled --------------------------------------------------


def test_two_judges_are_two_results(tmp_path: Path) -> None:
    # Judge j1: s1 [T, F, F] fails (1 < 2), s2 [F, F, F] fails → accuracy 0/2 = 0.
    # Judge j2: s1 [T, T, F] passes, s2 [T, F, F] fails → accuracy 1/2 = 0.5.
    # Pooled (before): s1 3 of 6 ≥ ⌈6/2⌉ = 3 passes, s2 1 of 6 fails → 0.5 for "m".
    labels = {
        "j1": {"s1": [True, False, False], "s2": [False, False, False]},
        "j2": {"s1": [True, True, False], "s2": [True, False, False]},
    }
    path = write(tmp_path / "trials.jsonl", [
        row(scenario, trial, label, judge_model=judge)
        for judge, per_scenario in labels.items()
        for scenario, values in per_scenario.items()
        for trial, label in enumerate(values, start=1)
    ])  # fmt: skip
    models = analyze_records(load_records([path])).models
    assert set(models) == {"m (judge j1)", "m (judge j2)"}
    first, second = models["m (judge j1)"], models["m (judge j2)"]
    assert (first.subject, first.judge, second.subject, second.judge) == ("m", "j1", "m", "j2")
    assert first.conditions["naive"].accuracy.value == 0.0
    assert first.conditions["naive"].compliance.value == pytest.approx(1 / 6)  # (1/3 + 0)/2
    assert second.conditions["naive"].accuracy.value == 0.5
    assert second.conditions["naive"].compliance.value == pytest.approx(1 / 2)  # (2/3 + 1/3)/2
    assert {cell.k for r in models.values() for cell in r.conditions.values()} == {3}
    shown = analysis_json(path)["models"]
    assert shown["m (judge j2)"]["judge"] == "j2"
    assert shown["m (judge j2)"]["conditions"]["naive"]["accuracy"]["value"] == 0.5


def test_a_run_with_its_rescore_output_keeps_each_judge(finished_run: Path) -> None:
    # The run's judge: naive 1 of 3 per scenario → both fail (0.0), compliance 1/3. A second
    # judge calls everything compliant: 3 of 3 → 1.0. Pooled (before): 4 of K = 6 ≥ 3 → 1.0.
    lenient = finished_run / "lenient.json"
    lenient.write_text(json.dumps({"default": judge_reply(True)}))
    out = finished_run / "rescore"
    code, output = run_cli(
        "losona", "rescore", str(finished_run / "logs"), "--judge", f"scripted/{lenient}",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, output
    models = analysis_json(finished_run / "logs", out)["models"]
    model = f"scripted/{SCRIPT}"
    original = models[f"{model} (judge {model})"]["conditions"]["naive"]
    rescored = models[f"{model} (judge scripted/{lenient})"]["conditions"]["naive"]
    assert (original["accuracy"]["value"], original["k"], original["n_trials"]) == (0.0, 3, 6)
    assert original["compliance"]["value"] == pytest.approx(1 / 3)
    assert (rescored["accuracy"]["value"], rescored["k"], rescored["n_trials"]) == (1.0, 3, 6)


def test_judge_prompts_are_judges_too(tmp_path: Path) -> None:
    # The same judge model with and without the addenda labels s1 [T, T, T] and [F, F, F]:
    # two results (1.0 and 0.0), not one trial labelled two ways.
    path = write(tmp_path / "trials.jsonl", [
        row("s1", trial, addenda == "default", judge_addenda=addenda)
        for addenda in ("default", "none")
        for trial in (1, 2, 3)
    ])  # fmt: skip
    models = analyze_records(load_records([path])).models
    assert {key: r.conditions["naive"].accuracy.value for key, r in models.items()} == {
        "m (judge j)": 1.0,
        "m (judge j, addenda none)": 0.0,
    }


# --- item 11: one trial labelled twice two ways ---------------------------------------------


def test_conflicting_duplicate_rows_name_both(tmp_path: Path) -> None:
    path = write(tmp_path / "trials.jsonl", [
        row("s1", 1, True), row("s1", 2, True), row("s1", 1, False),
    ])  # fmt: skip
    with pytest.raises(
        InputError, match=r"trials.jsonl:1 and \S*trials.jsonl:3: field 'complies': .*'s1'"
    ):
        load_records([path])
    code, output = run_cli("losona", "analyze", str(path))
    assert code == 2
    (line,) = [line for line in output.splitlines() if "trials.jsonl:1" in line]
    assert "trials.jsonl:3" in line and "complies in the first, breach in the second" in line
    # Across files, too; the same label twice is still one trial (a resumed run's rows).
    first = write(tmp_path / "first.jsonl", [row("s1", 2, True)])
    other = write(tmp_path / "other.jsonl", [row("s1", 2, False)])
    with pytest.raises(InputError, match=r"first.jsonl:1 and \S*other.jsonl:1: "):
        load_records([first, other])
    again = write(tmp_path / "again.jsonl", [row("s1", 2, True)])
    assert len(load_records([first, again])) == 1


def test_a_log_and_a_conflicting_row_name_the_sample(finished_run: Path) -> None:
    logs = finished_run / "logs"
    record = next(r for r in load_records([logs]) if r.condition == "naive" and r.trial == 2)
    flipped = finished_run / "flipped.jsonl"
    conflicting = record.model_copy(update={"complies": not record.complies})
    flipped.write_text(conflicting.model_dump_json())
    with pytest.raises(InputError) as raised:
        load_records([logs, flipped])
    message = str(raised.value)
    assert f"epoch 2 and {flipped}:1: field 'complies'" in message
    assert ".eval, sample " in message and record.scenario_id in message
    assert "\n" not in message
