"""Study cells beyond one Inspect eval per cell (issue 23): a CRSEC cell, a LoSoNA cell split
into shards, a study whose ``out`` is object storage, and the plan's power from a pilot."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import boto3

from tests.study.test_study import REPO, invoke

LOSONA = REPO / "tests" / "losona" / "fixtures"
BUSY = f"scripted/{REPO / 'tests' / 'crsec' / 'fixtures' / 'busy.json'}"


def write_study(folder: Path, out: str, *, crsec: bool = True, shards: int = 2) -> Path:
    """LoSoNA (in ``shards`` parts) and, with ``crsec``, a three-agent CRSEC hour, two
    subjects, every model scripted."""
    script = f"scripted/{LOSONA / 'script.json'}"
    systems: dict[str, Any] = {
        "losona": {
            "options": {
                "scenarios": str(LOSONA / "scenarios.jsonl"),
                "conditions": ["naive", "norm_informed"],
                "epochs": 2,
            },
            "roles": {"judge": script},
            "shards": shards,
        }
    }
    if crsec:
        systems["crsec"] = {
            "options": {"agents": "Bob Johnson,Carlos Gomez,Tamara Rodriguez", "hours": "9-10"},
            "roles": {"judge": BUSY},
        }
    subjects = [{"name": name, "model": script, "models": {"crsec": BUSY}} for name in ("a", "b")]
    study = {"name": "cells", "out": out, "max_connections": 8, "seed": 0,
             "systems": systems, "subjects": subjects}  # fmt: skip
    path = folder / "study.yaml"
    path.write_text(json.dumps(study), encoding="utf-8")  # JSON is YAML
    return path


def run_json(*args: str | Path) -> Any:
    code, out, err = invoke(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def test_crsec_and_sharded_cells_plan_run_and_report(workdir: Path) -> None:
    path = write_study(workdir, "out")
    plan = {(c["system"], c["subject"]): c for c in run_json("plan", path)["cells"]}
    assert plan["crsec", "a"]["power"]["unit"] == "run"
    assert plan["crsec", "a"]["roles"]["judge"]["calls"] > 0
    ran = {(c["system"], c["subject"]): c for c in run_json("run", path)}
    for key, cell in plan.items():
        assert ran[key]["calls"] == cell["calls"], key  # the plan's count is the run's
        assert ran[key]["samples"] == cell["samples"], key
    shards = sorted(p.name for p in (workdir / "out" / "losona" / "a").iterdir() if p.is_dir())
    assert shards == ["shard-1-of-2", "shard-2-of-2"]
    assert (workdir / "out" / "crsec" / "a" / "run-1" / "events.jsonl").is_file()

    report = run_json("report", path)
    by_system = {s["system"]: s for s in report["systems"]}
    assert by_system["crsec"]["metric"] == "adhering share (final)"
    for row in by_system["crsec"]["subjects"]:
        # One run: no interval, and the report says why (issue 35, 0.4); it was a Wilson
        # interval over the run's agent × norm pairs, as if they were independent.
        assert (row["n"], row["unit"], row["ci"]) == (1, "run", [None, None])
        assert any("at least 2 runs" in note for note in row["notes"]), row
    for system in by_system.values():
        for row in system["subjects"]:
            # read back after the run, the calls are the run's (cached verdicts included)
            assert row["calls"] == row["planned_calls"], (system["system"], row)
    assert report["missing"] == []

    # Sharded, the cell measures what the whole cell measures.
    (workdir / "whole").mkdir()
    whole = write_study(workdir / "whole", "out", crsec=False, shards=1)
    run_json("run", whole)
    unsharded = {s["system"]: s for s in run_json("report", whole)["systems"]}["losona"]
    assert [r["value"] for r in unsharded["subjects"]] == [
        r["value"] for r in by_system["losona"]["subjects"]
    ]
    assert [r["n"] for r in unsharded["subjects"]] == [
        r["n"] for r in by_system["losona"]["subjects"]
    ]


def test_a_study_in_object_storage_runs_resumes_and_reports(workdir: Path, bucket: str) -> None:
    path = write_study(workdir, f"{bucket}/study", crsec=False)
    run_json("plan", path)
    assert run_json("run", path)[0]["samples"] == 8
    assert all(cell["skipped"] for cell in run_json("run", path))  # cell.json in the bucket
    keys = [item["Key"] for item in boto3.client("s3").list_objects_v2(Bucket="sweeps")["Contents"]]
    assert "study/plan.json" in keys and "study/losona/a/cell.json" in keys
    assert any(k.startswith("study/losona/a/shard-2-of-2/") and k.endswith(".eval") for k in keys)
    report = run_json("report", path)
    assert report["missing"] == []
    assert [r["planned_calls"] for r in report["systems"][0]["subjects"]] == [16, 16]


def test_the_plan_reads_its_rates_from_a_pilot(workdir: Path) -> None:
    pilot = write_study(workdir, "pilot", crsec=False, shards=1)
    run_json("run", pilot)
    (workdir / "main").mkdir()
    path = write_study(workdir / "main", "out", crsec=False, shards=1)
    plan = run_json("plan", path, "--pilot", workdir / "pilot")
    power = plan["cells"][0]["power"]
    assert power["rate_source"].startswith("pilot losona/a")
    # The pilot's rate is 1 (2 of 2 scenarios): the end of its interval nearest ½ is used.
    assert 0.0 < power["assumed_rate"] < 1.0
    assumed = run_json("plan", path)["cells"][0]["power"]
    assert assumed["rate_source"] == "assumed" and assumed["assumed_rate"] == 0.5
    code, _, err = invoke("plan", path, "--pilot", workdir / "nowhere")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
