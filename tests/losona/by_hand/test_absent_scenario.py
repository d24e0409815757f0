"""By hand: a scenario × condition the log's header planned and not one trial of which was read
is K missing labels, not a scenario left out of the mean (issue 31, item 15).

The paper (§5.3): "accuracy-at-3_{i,m} = 1[Σ_{t=1}^{K} y_{i,m,t} ≥ ⌈K/2⌉] ... At the benchmark
level, we average this indicator over scenarios", and "we compute paired deltas against the
naive condition over the same scenarios". A planned trial that never reached the log has no
y = 1, so a scenario with none of its K trials fails; averaging over only the scenarios that
happen to have trials would raise the mean by dropping the failures.

The run (``finished_run``): scenarios t1 and t2, conditions naive and norm_informed, K = 3.
Per scenario, naive's judge labels are [T, F, F] in some order (one pointer to the wiki in three
replies) and norm_informed's [T, T, T].
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalError, EvalSample, read_eval_log, write_eval_log

from normlab.losona.analysis import analyze, load_run
from tests.losona.conftest import SCRIPT, run_cli

T1 = "bug_report__banned_direct_answers_norm__demos__t1"
T2 = "standup__banned_direct_answers_norm__demos__t2"
MODEL = f"scripted/{SCRIPT}"


def _deleted(samples: list[EvalSample], lost: Callable[[EvalSample], bool]) -> list[EvalSample]:
    """The log as a run killed before these samples left it: they are not in it at all."""
    return [sample for sample in samples if not lost(sample)]


def _errored(samples: list[EvalSample], lost: Callable[[EvalSample], bool]) -> list[EvalSample]:
    """The log as a run whose samples errored left it: present, with an error and no score."""
    for sample in samples:
        if lost(sample):
            sample.scores = None
            sample.error = EvalError(message="boom", traceback="", traceback_ansi="")
    return samples


LOSSES = [_deleted, _errored]


def _lose(
    finished_run: Path,
    how: Callable[[list[EvalSample], Callable[[EvalSample], bool]], list[EvalSample]],
    lost: Callable[[EvalSample], bool],
) -> Path:
    (path,) = sorted((finished_run / "logs").glob("*.eval"))
    log = read_eval_log(str(path))
    log.samples = how(list(log.samples or []), lost)
    log.status = "started"
    write_eval_log(log, str(path))
    return path


def _analyze_json(path: Path) -> dict[str, Any]:
    code, output = run_cli("losona", "analyze", str(path), "--json")
    assert code == 0, output
    value: dict[str, Any] = json.loads(output)
    return value


@pytest.mark.parametrize("how", LOSSES, ids=["deleted", "errored"])
def test_a_scenario_with_no_trial_in_a_condition_fails_there(
    finished_run: Path,
    how: Callable[[list[EvalSample], Callable[[EvalSample], bool]], list[EvalSample]],
) -> None:
    # t2's three norm_informed trials are lost; the header still plans t2::norm_informed.
    # norm_informed: t1 [T, T, T] → 3 ≥ ⌈3/2⌉ = 2, passes; t2 [absent × 3] → 0 < 2, fails.
    #   accuracy (1 + 0)/2 = 0.5      (before: t2 left out, 1/1 = 1.0)
    #   compliance (3/3 + 0/3)/2 = 0.5 (before: 1.0)
    #   consistency over scenarios with a label: t1 agrees → 1/1 = 1.0
    #   n scenarios 2, n trials 3, absent trials 3, absent scenarios [t2]
    # paired norm_informed − naive (naive: both [T, F, F] → 1 < 2, fail):
    #   t1 1 − 0, t2 0 − 0 → delta (1 + 0)/2 − (0 + 0)/2 = +0.5 (before: 1 − 0 over t1 = +1.0)
    #   recovered 1 of 2 naive failures (before: 1 of 1)
    path = _lose(finished_run, how, lambda s: s.id == f"{T2}::norm_informed")
    result = analyze(load_run([path])).models[MODEL]
    informed = result.conditions["norm_informed"]
    assert informed.accuracy.value == 0.5
    assert informed.compliance.value == 0.5
    assert informed.consistency.value == 1.0
    assert (informed.n_scenarios, informed.n_trials, informed.k) == (2, 3, 3)
    assert (informed.absent_trials, informed.absent_scenarios) == (3, [T2])
    assert (informed.parse_failures, informed.scenarios_with_missing_label) == (0, 1)
    paired = result.paired["norm_informed"]
    assert paired.delta.value == 0.5
    assert (paired.recovered, paired.regressed, paired.n_scenarios) == ((1, 2), (0, 0), 2)
    naive = result.conditions["naive"]
    assert (naive.accuracy.value, naive.absent_trials, naive.absent_scenarios) == (0.0, 0, [])
    shown = _analyze_json(path)["models"][MODEL]
    cell = shown["conditions"]["norm_informed"]
    assert (cell["accuracy"]["value"], cell["absent_scenarios"]) == (0.5, [T2])
    assert "absent_scenarios" not in shown["conditions"]["naive"], "none: left out"
    assert shown["by_norm"]["norm_informed"]["banned_direct_answers_norm"]["k"] == 1
    assert shown["by_event"]["norm_informed"]["standup"]["k"] == 0


@pytest.mark.parametrize("how", LOSSES, ids=["deleted", "errored"])
def test_a_condition_with_no_trial_at_all_is_reported_not_skipped(
    finished_run: Path,
    how: Callable[[list[EvalSample], Callable[[EvalSample], bool]], list[EvalSample]],
) -> None:
    # Every norm_informed trial is lost (6 = 2 scenarios × K 3); the header plans both.
    # norm_informed: t1 and t2 [absent × 3] → both fail: accuracy 0/2 = 0.0, compliance 0.0,
    #   no label at all → consistency has no scenario (n 0); absent trials 6.
    #   (before: norm_informed was not in the analysis at all)
    # paired norm_informed − naive: t1 0 − 0, t2 0 − 0 → delta 0.0, recovered 0 of 2.
    path = _lose(finished_run, how, lambda s: str(s.id).endswith("::norm_informed"))
    result = analyze(load_run([path])).models[MODEL]
    informed = result.conditions["norm_informed"]
    assert (informed.accuracy.value, informed.accuracy.n) == (0.0, 2)
    assert informed.compliance.value == 0.0
    assert informed.consistency.n == 0
    assert (informed.n_scenarios, informed.n_trials, informed.k) == (2, 0, 3)
    assert (informed.absent_trials, informed.absent_scenarios) == (6, [T1, T2])
    paired = result.paired["norm_informed"]
    assert paired.delta.value == 0.0
    assert (paired.recovered, paired.n_scenarios) == ((0, 2), 2)
    out = finished_run / "partial-report"
    code, output = run_cli("losona", "report", str(path), "--out", str(out))
    assert code == 0, output
    html = (out / "report.html").read_text()
    assert "Planned scenarios with no trial read" in html and T2 in html
    code, output = run_cli("losona", "analyze", str(path))
    assert code == 0 and "6 (2 scenarios with none)" in output


def test_a_complete_run_has_no_absent_scenario(finished_run: Path) -> None:
    # The same run, nothing lost: naive 0/2, norm_informed 2/2, delta +1.0, nothing absent.
    result = analyze(load_run([finished_run / "logs"])).models[MODEL]
    assert result.conditions["norm_informed"].accuracy.value == 1.0
    assert result.paired["norm_informed"].delta.value == 1.0
    assert all(not cell.absent_scenarios for cell in result.conditions.values())


def test_a_log_killed_before_its_first_score_is_its_header_run(finished_run: Path) -> None:
    # No sample reached the log: the subject, judge and addenda come from its header, the
    # same names a scored sample would give (one result, keyed by the model as always).
    # Both conditions: t1 and t2 [absent × 3] → accuracy 0/2, 6 absent trials each; delta 0.
    path = _lose(finished_run, _deleted, lambda s: True)
    models = analyze(load_run([path])).models
    assert set(models) == {MODEL}
    result = models[MODEL]
    assert (result.judge, result.judge_addenda) == (MODEL, "default")
    for cell in result.conditions.values():
        assert (cell.accuracy.value, cell.accuracy.n, cell.absent_trials) == (0.0, 2, 6)
        assert cell.absent_scenarios == [T1, T2]
    assert result.paired["norm_informed"].delta.value == 0.0


def test_an_empty_partial_log_beside_its_finished_run_adds_nothing(finished_run: Path) -> None:
    # A resumed run leaves its first, empty log beside the finished one: the header plans the
    # same units, under the run's own subject and judge, and every one has its trials.
    logs = finished_run / "logs"
    (path,) = sorted(logs.glob("*.eval"))
    log = read_eval_log(str(path))
    log.samples, log.status = [], "started"
    write_eval_log(log, str(logs / "partial.eval"))
    result = analyze(load_run([logs])).models
    assert set(result) == {MODEL}
    cells = result[MODEL].conditions
    assert (cells["naive"].accuracy.value, cells["norm_informed"].accuracy.value) == (0.0, 1.0)
    assert all(cell.absent_trials == 0 for cell in cells.values())
