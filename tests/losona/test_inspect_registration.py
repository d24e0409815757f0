"""``inspect eval normlab/losona`` resolves our task and providers through the entry point."""

from __future__ import annotations

from pathlib import Path

from inspect_ai import eval as inspect_eval

from normlab.losona.analysis import analyze_records, load_records

FIXTURES = Path(__file__).parent / "fixtures"
SCRIPT = FIXTURES / "script.json"


def test_task_runs_by_registry_name_with_a_judge_role(workdir: Path) -> None:
    logs = inspect_eval(
        "normlab/losona",
        model=f"scripted/{SCRIPT}",
        model_roles={"judge": f"scripted/{SCRIPT}"},
        task_args={"scenarios": str(FIXTURES / "scenarios.jsonl"), "conditions": "norm_informed"},
        epochs=1,
        log_dir=str(workdir / "logs"),
    )
    assert [log.status for log in logs] == ["success"]
    assert logs[0].eval.task == "normlab/losona"
    records = load_records([workdir / "logs"])
    assert len(records) == 2 and all(record.complies for record in records)
    assert (
        analyze_records(records)
        .models[f"scripted/{SCRIPT}"]
        .conditions["norm_informed"]
        .accuracy.value
        == 1.0
    )
