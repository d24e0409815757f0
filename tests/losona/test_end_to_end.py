"""LoSoNA end to end on the scripted model: generation → judge → analysis → report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normlab.losona.analysis import analyze_records, load_records
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli


def test_scripted_run_scores_every_trial(finished_run: Path) -> None:
    records = load_records([finished_run / "logs"])
    assert len(records) == 2 * 2 * 3
    assert {r.subject_model for r in records} == {f"scripted/{SCRIPT}"}
    assert {r.judge_model for r in records} == {f"scripted/{SCRIPT}"}
    naive = [r for r in records if r.condition == "naive"]
    # Script: per scenario the naive replies are two direct answers and one pointer.
    labels = [r.complies for r in naive]
    assert (labels.count(False), labels.count(True)) == (4, 2)
    assert all(r.complies for r in records if r.condition == "norm_informed")
    assert all(r.judge_reasoning for r in records)


def test_scripted_run_analysis_numbers(finished_run: Path) -> None:
    result = analyze_records(load_records([finished_run / "logs"]))
    model = result.models[f"scripted/{SCRIPT}"]
    naive, informed = model.conditions["naive"], model.conditions["norm_informed"]
    assert (naive.accuracy.value, naive.n_scenarios) == (0.0, 2)
    assert naive.compliance.value == pytest.approx(1 / 3)
    assert naive.consistency.value == 0.0
    assert (informed.accuracy.value, informed.consistency.value) == (1.0, 1.0)
    paired = model.paired["norm_informed"]
    assert paired.delta.value == 1.0
    assert paired.recovered == (2, 2)
    assert paired.regressed == (0, 0)


def test_report_has_figures_tables_and_counts(finished_run: Path) -> None:
    html = (finished_run / "report" / "report.html").read_text()
    assert html.count("data:image/png;base64,") == 3
    assert "n scenarios" in html and "2/2" in html
    assert "embedded Qwen2.5-Coder-0.5B" not in html, (
        "no embedded-judge banner for a scripted judge"
    )


def test_rerun_resumes_without_redoing_work(finished_run: Path) -> None:
    before = sorted(p.name for p in (finished_run / "logs").glob("*.eval"))
    code, output = run_cli(
        "losona",
        "run",
        "--model",
        f"scripted/{SCRIPT}",
        "--judge",
        f"scripted/{SCRIPT}",
        "--data",
        str(SCENARIOS),
        "-c",
        "naive",
        "-c",
        "norm_informed",
        "--log-dir",
        str(finished_run / "logs"),
        "--report-dir",
        str(finished_run / "report"),
    )
    assert code == 0, output
    assert sorted(p.name for p in (finished_run / "logs").glob("*.eval")) == before


def test_analyze_json_shape(finished_run: Path) -> None:
    code, output = run_cli("losona", "analyze", str(finished_run / "logs"), "--json")
    assert code == 0, output
    data = json.loads(output)
    condition = data["models"][f"scripted/{SCRIPT}"]["conditions"]["norm_informed"]
    assert set(condition) >= {"accuracy", "compliance", "consistency", "n_scenarios"}
    assert set(condition["accuracy"]) >= {"value", "ci", "n"}
    paired = data["models"][f"scripted/{SCRIPT}"]["paired"]["norm_informed"]
    assert paired["recovered"] == [2, 2]
    assert set(paired) >= {"delta", "recovered", "regressed"}
    assert set(paired["delta"]) >= {"value", "ci", "n"}


def test_unparseable_judge_reply_is_recorded_not_invented(workdir: Path) -> None:
    script = workdir / "broken_judge.json"
    script.write_text(
        json.dumps(
            {
                "rules": [{"match": "^You are judging", "replies": ["no idea"]}],
                "default": "it's in the wiki",
            }
        )
    )
    code, output = run_cli(
        "losona",
        "run",
        "--model",
        f"scripted/{script}",
        "--judge",
        f"scripted/{script}",
        "--data",
        str(SCENARIOS),
        "-c",
        "naive",
        "--epochs",
        "1",
        "--log-dir",
        str(workdir / "logs"),
        "--report-dir",
        str(workdir / "report"),
    )
    assert code == 0, output
    records = load_records([workdir / "logs"])
    assert len(records) == 2
    assert all(r.complies is None for r in records)
    # Issue 8 (§5.3): a label still missing after re-judging is not a pass; the scenario
    # counts (accuracy 0, never dropped) and is reported as having a missing label.
    result = analyze_records(records).models[f"scripted/{script}"].conditions["naive"]
    assert (result.parse_failures, result.n_scenarios, result.accuracy.value) == (2, 2, 0.0)
    assert result.scenarios_with_missing_label == 2 and result.judge_truncations == 0
    from inspect_ai.log import read_eval_log

    (path,) = sorted((workdir / "logs").glob("*.eval"))
    scores = [(s.scores or {})["norm_judge"] for s in read_eval_log(str(path)).samples or []]
    assert len(scores) == 2
    # re-judged afresh once: two rounds of (call + repair retry)
    assert all(score.metadata and score.metadata["judge_attempts"] == 4 for score in scores)


def test_usage_by_role_counts_every_call(finished_run: Path) -> None:
    from normlab.core.logs import read_samples
    from normlab.models.usage import usage_by_role

    samples = read_samples(sorted((finished_run / "logs").glob("*.eval")))
    usage = usage_by_role(item.sample for item in samples.samples)
    assert set(usage) == {"subject", "judge"}
    assert usage["subject"].calls == usage["judge"].calls == 2 * 2 * 3
    assert usage["judge"].input_tokens > usage["subject"].input_tokens > 0
    assert usage["subject"].output_tokens > 0


def test_oracle_condition_stays_out_of_headline_tables(workdir: Path) -> None:
    code, output = run_cli(
        "losona", "run",
        "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
        "--data", str(SCENARIOS), "-c", "naive", "-c", "oracle", "--epochs", "1",
        "--log-dir", str(workdir / "logs"), "--report-dir", str(workdir / "report"),
    )  # fmt: skip
    assert code == 0, output
    result = analyze_records(load_records([workdir / "logs"]))
    assert result.development_conditions == ["oracle"]
    html = (workdir / "report" / "report.html").read_text()
    assert "Development-only conditions present (oracle)" in html
    headline = html.split("<h2>Accuracy-at-K</h2>")[1].split("</table>")[0]
    assert "oracle" not in headline
    tables = [
        line
        for line in output.split("report:")[0].splitlines()
        if not line.startswith(("models: ", "losona: "))  # the run's own progress lines
    ]
    assert "oracle" not in "\n".join(tables)


def test_log_metrics_are_per_condition(finished_run: Path) -> None:
    from inspect_ai.log import read_eval_log

    (path,) = sorted((finished_run / "logs").glob("*.eval"))
    results = read_eval_log(str(path), header_only=True).results
    assert results is not None
    (score,) = results.scores
    assert (score.name, score.reducer) == ("norm_judge", "trials")
    assert score.metrics["naive accuracy-at-3"].value == 0.0
    assert score.metrics["naive compliance"].value == pytest.approx(1 / 3)
    assert score.metrics["norm_informed accuracy-at-3"].value == 1.0
    assert score.metrics["naive parse failures"].value == 0
