"""``python -m benchmarks.agent_cost`` on the scripted model: calls per reply, agent vs base."""

from __future__ import annotations

from pathlib import Path

from benchmarks.agent_cost import measure

from tests.agents.conftest import LOSONA_SCRIPT


def test_the_agent_costs_identify_and_one_evaluation_per_item(workdir: Path) -> None:
    result = measure(f"scripted/{LOSONA_SCRIPT}", limit=1, epochs=2)
    base, agent = (result["runs"][name] for name in ("base", "norm-memory"))
    assert base["replies"] == agent["replies"] == 2
    assert base["per_reply_subject_side"]["calls"] == 1.0
    # the reply, one identify call and two evaluations (two items identified)
    assert agent["per_reply_by_role"]["norm_memory"]["calls"] == 3.0
    assert agent["per_reply_subject_side"]["calls"] == 4.0
    assert result["agent_over_base_subject_side"]["calls"] == 4.0
    assert agent["per_reply_by_role"]["judge"]["calls"] == 2.0  # verdict + one norm matched
