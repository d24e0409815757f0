"""Issue 23 item 4: paired differences between a study's subjects over shared units, and the
papers' numbers beside a subject whose model a paper reported."""

from __future__ import annotations

import pytest

from normlab.study.compare import compare, paired_difference
from normlab.study.papers import paper_name, paper_rows


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
        "scenario",
        [("a", {"x": (2, 3), "y": (1, 1)}), ("b", {"x": (1, 3), "y": (0, 1)}), ("c", None)],
    )
    assert [(p.first, p.second) for p in result.pairs] == [("a", "b")]
    assert result.pairs[0].delta.value == pytest.approx(0.5)
    assert result.comparisons == 1 and "unadjusted" in result.note


def test_hsii_is_reported_as_not_paired() -> None:
    result = compare("hsii", "case", [("a", None), ("b", None)])
    assert result.pairs == [] and "no paired" in result.note


def test_the_paper_row_shows_for_an_aliased_subject() -> None:
    assert paper_name("openai/gpt-4") == "GPT4"
    (row,) = paper_rows("hsii", "HSII score", "openai/gpt-4")
    assert row.value == 1.399 and row.n is None and row.ci is None
    assert row.source.paper == "HSII" and row.source.where == "Table 1"
    (scene,) = paper_rows("scene", "repair rate", "anthropic/claude-opus-4-7")
    assert (scene.value, scene.ci, scene.n) == (0.843, (0.810, 0.871), 547)


def test_a_subject_no_paper_reported_shows_none() -> None:
    assert paper_rows("hsii", "HSII score", "scripted/busy-hsii.json") == []
    assert paper_rows("losona", "accuracy (norm_informed)", "openai/gpt-4o") == []
    # The paper measured the bare model, not the model inside an agent.
    assert paper_rows("hsii", "HSII score", "openai/gpt-4", agent="norm-memory") == []
