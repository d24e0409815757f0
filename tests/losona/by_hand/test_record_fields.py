"""By hand: a trial-records file's misspelt field is refused, not dropped (issue 31 review,
item 14); a field no closer to a known one is kept as metadata and changes nothing.

The paper (§5.3): "accuracy-at-3_{i,m} = 1[Σ_{t=1}^{K} y_{i,m,t} ≥ ⌈K/2⌉]", K the trials planned
per scenario. Scenario s1 planned K = 3 (``planned_trials``) and reached the file with two
trials, labels [T, F]:

- read right: K = 3, Σ y = 1 < ⌈3/2⌉ = 2 → accuracy 0 (the absent trial is a missing label);
- ``planned_trial`` (a near miss) silently dropped, as before: K falls back to the most trials
  the scenario has, 2, and Σ y = 1 ≥ ⌈2/2⌉ = 1 → accuracy 1. Now: one line naming file, line
  and field, exit 2.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from normlab.losona.analysis import analyze_records, load_records, records_from_jsonl
from tests.helpers.inputs import write_jsonl as write
from tests.losona.conftest import run_cli, trial_row


def row(trial: int, complies: bool, **fields: Any) -> dict[str, Any]:
    return trial_row("s1", trial, complies, **fields)


def test_an_unknown_field_is_kept_as_metadata_and_changes_nothing(tmp_path: Path) -> None:
    release = {"planned_trials": 3, "license": "CC-BY-4.0", "source": "release v1"}
    path = write(tmp_path / "trials.jsonl", [row(1, True, **release), row(2, False, **release)])
    records = records_from_jsonl(path)
    assert [r.model_extra for r in records] == [
        {"license": "CC-BY-4.0", "source": "release v1"}
    ] * 2
    naive = analyze_records(load_records([path])).models["m"].conditions["naive"]
    assert (naive.k, naive.accuracy.value) == (3, 0.0)
    code, output = run_cli("losona", "analyze", str(path), "--json")
    assert code == 0, output


@pytest.mark.parametrize(
    ("name", "meant"), [("planned_trial", "planned_trials"), ("Agent", "agent")]
)
def test_a_misspelt_field_is_one_line_naming_file_line_and_field(
    tmp_path: Path, name: str, meant: str
) -> None:
    path = write(
        tmp_path / "trials.jsonl", [row(1, True, planned_trials=3), row(2, False, **{name: 3})]
    )
    code, output = run_cli("losona", "analyze", str(path), "--json")
    lines = [line for line in output.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, output
    assert f"{path}:2: field '{name}': unknown field, a near miss of '{meant}'" in lines[0]
