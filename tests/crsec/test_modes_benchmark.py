"""``benchmarks.crsec_modes`` on the scripted model: both modes, paired seeds, every metric."""

from __future__ import annotations

from pathlib import Path

import pytest
from benchmarks.crsec_modes import MODES, Setup, compare_modes, table

from normlab.crsec.sim.rundir import RunDir
from tests.crsec.support import BUSY_MODEL


def test_both_modes_run_on_the_same_seeds_and_every_metric_is_compared(tmp_path: Path) -> None:
    setup = Setup(
        models={"agent": BUSY_MODEL, "judge": BUSY_MODEL},
        seeds=[0, 1],
        agents="Bob Johnson,Tamara Rodriguez,Carlos Gomez",
        hours="9-11",
        tick_minutes=30,
    )
    summary = compare_modes(tmp_path, setup)
    for mode in MODES:
        for seed in (0, 1):
            config = RunDir(tmp_path / mode / f"seed-{seed}").config()
            assert (config.seed, config.faithful) == (seed, mode == "faithful")
            assert config.max_utterances == (10 if mode == "faithful" else 6)
            assert [agent.name for agent in config.society.agents] == [
                "Bob Johnson", "Tamara Rodriguez", "Carlos Gomez"]  # fmt: skip
    rows = {row["metric"]: row for row in summary["rows"]}
    # Figure 2(a), and each of Figure 2(b)'s measures per norm at stake, in both modes
    for name in ("social conflicts per hour", "norm-related thoughts per hour",
                 "norm-related chats per hour", "no_smoking_indoors: hold, mean over hours",
                 "tipping_after_meals: adhere, at the end", "quiet_in_public: hold > 70%, hour",
                 "qualified norms per agent", "agent calls per run"):  # fmt: skip
        row = rows[name]
        assert set(row["per_seed"]["default"]) == {"0", "1"}
        assert row["default"]["n"] + row["faithful"]["n"] > 0 or row["unit"] == "hour"
    # Each mode's value is the mean over seeds; the difference is paired seed by seed.
    calls = rows["agent calls per run"]
    default, faithful = calls["per_seed"]["default"], calls["per_seed"]["faithful"]
    assert all(faithful[seed] > default[seed] for seed in ("0", "1"))  # one call per operation
    assert calls["default"]["value"] == pytest.approx((default["0"] + default["1"]) / 2)
    assert calls["difference"]["value"] == pytest.approx(
        (faithful["0"] - default["0"] + faithful["1"] - default["1"]) / 2
    )
    assert calls["difference"]["n"] == 2
    conflicts = rows["social conflicts per hour"]
    assert conflicts["default"]["value"] > 0 and conflicts["unit"] == "count"
    assert rows["no_smoking_indoors: hold, at the end"]["unit"] == "share"
    # The final databases: overlap of the two modes' qualified norms, seed by seed
    same = rows["same qualified norms (Jaccard, same words)"]
    assert set(same["per_seed"]["both"]) == {"0", "1"} and 0 <= same["both"]["value"] <= 1
    agree = rows["final holding agrees (agent × norm cells)"]
    assert 0 <= agree["both"]["value"] <= 1
    assert summary["curves"]["default"]["hours"] == ["day 1 09:00–10:00", "day 1 10:00–11:00"]
    text = table(summary)
    assert text.startswith("| metric | default | `--faithful` | faithful − default |")
    assert "| agent calls per run |" in text and "(n=2)" in text
