"""Issue 23 item 4: paired differences between a study's subjects over shared units (HSII's
score included), printed by ``study report``, and the papers' numbers beside a subject whose
model a paper reported."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from normlab.hsii.parts import hsii_statistic
from normlab.runs import UnitRows
from normlab.study.compare import compare, paired_difference, units_of
from normlab.study.papers import paper_name, paper_rows
from tests.study.test_study import invoke, study_file

NAN = math.nan


def test_paired_difference_over_shared_scenarios_is_hand_computed() -> None:
    # s4 and s5 were measured by one subject only, so they are left out: diffs 1, 0, 0.
    first = {"s1": 1.0, "s2": 1.0, "s3": 0.0, "s4": 1.0}
    second = {"s1": 0.0, "s2": 1.0, "s3": 0.0, "s5": 1.0}
    delta = paired_difference(first, second)
    assert delta.value == pytest.approx(1 / 3)
    assert delta.n == 3
    assert delta.ci[0] is not None and delta.ci[0] <= delta.value <= delta.ci[1]  # type: ignore[operator]


def test_pooled_rate_difference_and_the_multiple_comparison_note() -> None:
    # Repaired / sanctions pooled over scenarios: 3/4 − 1/4.
    result = compare(
        "scene",
        [("a", {"x": (2, 3), "y": (1, 1)}), ("b", {"x": (1, 3), "y": (0, 1)}), ("c", None)],
    )
    assert [(p.first, p.second) for p in result.pairs] == [("a", "b")]
    assert result.pairs[0].delta.value == pytest.approx(0.5)
    assert result.comparisons == 1 and "unadjusted" in result.note


def test_family_wise_intervals_read_the_same_bootstrap_at_bonferronis_level() -> None:
    rng = np.random.default_rng(3)
    units = [f"s{i}" for i in range(30)]
    subjects = {name: {u: float(rng.random() < p) for u in units} for name, p in
                (("a", 0.8), ("b", 0.5), ("c", 0.2))}  # fmt: skip
    one = compare("losona", [("a", subjects["a"]), ("b", subjects["b"])])
    (pair,) = one.pairs
    assert pair.familywise == pair.delta.ci  # one comparison: nothing to adjust
    three = compare("losona", list(subjects.items()))
    assert three.comparisons == 3 and "m = 3" in three.note and "0.9833" in three.note
    for pair in three.pairs:
        low, high = pair.delta.ci
        wide = paired_difference(subjects[pair.first], subjects[pair.second], 1 - 0.05 / 3).ci
        assert pair.familywise == wide
        assert wide[0] <= low <= high <= wide[1]  # type: ignore[operator]
        assert wide[1] - wide[0] > high - low  # type: ignore[operator]


def test_the_family_wise_interval_is_bonferronis_by_hand() -> None:
    # Five subjects: m = 5·4/2 = 10 comparisons, so each family-wise interval is the paired
    # bootstrap's 1 − 0.05/10 = 99.5% interval (tails of 0.25%), the plain one its 95%.
    # a − b per scenario: (0, 0, 0, 1), Δ = 0.25. A resample of the 4 scenarios holds the
    # one 1 k times, k ~ Binomial(4, 1/4), its mean k/4: P(k=0) = 81/256 = .316,
    # P(k=3) = 12/256 = .047, P(k=4) = 1/256 = .0039.
    # 95%: lower tail 2.5% < P(0) → 0; upper: P(k ≥ 3) = .051 > .025 > P(4) → 3/4.
    # 99.5%: lower → 0; upper: P(4) = .0039 > .0025 → 4/4 = 1.
    # (10,000 seeded resamples put 39 ± 6 of them at 1, well past the 25 the tail needs.)
    a = {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 1.0}
    b = {"s1": 1.0, "s2": 1.0, "s3": 1.0, "s4": 0.0}
    others = [(name, {"s1": 0.0, "s2": 1.0, "s3": 0.0, "s4": 0.0}) for name in "cde"]
    result = compare("losona", [("a", a), ("b", b), *others])
    assert result.comparisons == 10 and "m = 10" in result.note and "0.9950" in result.note
    pair = next(p for p in result.pairs if (p.first, p.second) == ("a", "b"))
    assert pair.delta.value == pytest.approx(0.25)
    assert pair.delta.ci == (0.0, 0.75)
    assert pair.familywise == (0.0, 1.0)


def test_hsii_paired_difference_of_the_score_is_hand_computed() -> None:
    # Stage rows (r1 parsed, r2 target right, r3 first win, r4 long win; NaN: not counted).
    # a: c1 (1, 1, 1, 1), c2 (1, 0, –, –) → r = (1, .5, 1, 1) → ι = 1·(1 + .5·(1 + 1)) = 2
    # b: c1 (1, 1, 0, 0), c2 (1, 1, 1, 0) → r = (1, 1, .5, 0)  → ι = 1·(1 + 1·(.5 + 0)) = 1.5
    # Δ = 0.5. Resamples: {c1, c1} → 3 − 1 = 2 (1/4); {c2, c2} → 1 − 2 = −1 (1/4); {c1, c2}
    # → 0.5 (1/2): the 2.5th and 97.5th percentiles are −1 and 2.
    score = hsii_statistic(alpha=1.0, beta=1.0, gamma=1.0, formula="table")
    a = UnitRows({"c1": (1, 1, 1, 1), "c2": (1, 0, NAN, NAN)}, {"c1": "d1", "c2": "d2"}, score)
    b = UnitRows({"c1": (1, 1, 0, 0), "c2": (1, 1, 1, 0), "c3": (1, 1, 1, 1)}, {}, score)
    assert score(np.array(list(a.rows.values()))) == pytest.approx(2.0)
    result = compare("hsii", [("a", a), ("b", b)])
    (pair,) = result.pairs
    assert (pair.first, pair.second, pair.delta.n) == ("a", "b", 2)  # c3: b's alone, left out
    assert pair.delta.value == pytest.approx(0.5)
    assert pair.delta.ci == pytest.approx((-1.0, 2.0))
    assert result.unit == "case" and "HSII scores" in result.note
    # Both cases cut from one dialogue: resampled together, every resample is the whole.
    same = UnitRows(a.rows, {"c1": "d", "c2": "d"}, score)
    assert paired_difference(same, b).ci == pytest.approx((0.5, 0.5))


def test_crsec_is_reported_as_not_paired() -> None:
    result = compare("crsec", [("a", None), ("b", None)])
    assert result.pairs == [] and "no paired" in result.note


@pytest.mark.slow
def test_the_scripted_studys_report_pairs_every_system(workdir: Path) -> None:
    path = study_file(workdir)
    code, _, err = invoke("run", path)
    assert code == 0, err
    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    report = json.loads(out)
    for system in report["systems"]:
        paired = system["paired"]
        assert paired["pairs"], system["system"]
        assert paired["comparisons"] == 1 and "Bonferroni" in paired["note"]
        (pair,) = paired["pairs"]
        assert pair["delta"]["n"] > 0 and pair["delta"]["value"] is not None
    assert json.loads((workdir / "out" / "study-report.json").read_text()) == report

    # HSII's paired statistic is the analysis's own score: on a cell's cases it gives its ι.
    from normlab.hsii import analyze, load_run

    run = load_run([workdir / "out" / "hsii" / "scripted-a"])
    analysis = analyze(run)
    units = units_of("hsii", run, analysis)
    assert isinstance(units, UnitRows)
    result = next(iter(analysis.models.values()))
    assert units.statistic(np.array(list(units.rows.values()))) == pytest.approx(result.hsii)

    code, out, err = invoke("report", path)
    assert code == 0, err
    for name, unit in (("losona", "scenarios"), ("scene", "scenarios"), ("hsii", "cases")):
        assert f"{name}: paired differences ({unit})" in out
    assert out.count("unadjusted for multiple comparisons") == 3
    assert out.count("scripted-a − scripted-b") == 3


def test_the_paper_row_shows_for_an_aliased_subject() -> None:
    assert paper_name("openai/gpt-4") == "GPT4"
    table1: dict[str, str | int] = {"epsilon": 7, "formula": "table"}
    (row,), _ = paper_rows("hsii", "HSII score", "openai/gpt-4", quantity=table1)
    assert row.value == 1.399 and row.n is None and row.ci is None
    assert row.source.paper == "HSII" and row.source.where == "Table 1"
    all_episodes = {"view": "all episodes"}
    (scene,), _ = paper_rows(
        "scene", "repair rate", "anthropic/claude-opus-4-7", quantity=all_episodes
    )
    assert (scene.value, scene.ci, scene.n) == (0.843, (0.810, 0.871), 547)


def test_a_subject_no_paper_reported_shows_none() -> None:
    assert paper_rows("hsii", "HSII score", "scripted/busy-hsii.json") == ([], [])
    assert paper_rows("losona", "accuracy (norm_informed)", "openai/gpt-4o") == ([], [])
    # The paper measured the bare model, not the model inside an agent.
    assert paper_rows("hsii", "HSII score", "openai/gpt-4", agent="norm-memory") == ([], [])
