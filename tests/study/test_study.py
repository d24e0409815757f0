"""Studies (issue 23): the shipped scripted study planned, run and reported; the plan's dry-run
call counts against the real scripted run's; resume (a bad study file's one-line errors:
``test_study_file``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "study-scripted.yaml"
runner = CliRunner()


def study_file(folder: Path, text: str | None = None) -> Path:
    """The shipped example with its paths made absolute and its output in ``folder``."""
    source = EXAMPLE.read_text(encoding="utf-8") if text is None else text
    source = source.replace("../runs/study-scripted", str(folder / "out"))
    path = folder / "study.yaml"
    path.write_text(source.replace("../", f"{REPO}/"), encoding="utf-8")
    return path


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = runner.invoke(app, ["study", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def test_plan_run_report_on_the_scripted_study(workdir: Path) -> None:
    path = study_file(workdir)
    code, out, err = invoke("plan", path, "--json")
    assert code == 0, err
    plan = json.loads(out)
    planned = {(c["system"], c["subject"]): c for c in plan["cells"]}
    assert {system for system, _ in planned} == {"losona", "scene", "hsii"}
    losona = planned["losona", "scripted-a"]
    assert losona["cost"] is not None and losona["roles"]["judge"]["calls"] > 0
    assert planned["scene", "scripted-a"]["cost"] is None  # no price: unknown, never 0
    assert losona["power"]["n_for_target"] == 381
    assert (workdir / "out" / "plan.json").is_file()

    code, out, err = invoke("run", path, "--json")
    assert code == 0, err
    ran = {(c["system"], c["subject"]): c for c in json.loads(out)}
    for key, cell in planned.items():
        # The dry run's calls against the real run's, within 5% (issue 23).
        assert abs(ran[key]["calls"] - cell["calls"]) <= 0.05 * cell["calls"], key
        assert ran[key]["samples"] == cell["samples"]
        assert (workdir / "out" / key[0] / key[1]).is_dir()

    code, out, err = invoke("run", path, "--json")  # a rerun skips every finished cell
    assert code == 0, err
    assert all(cell["skipped"] for cell in json.loads(out))

    code, out, err = invoke("report", path, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["missing"] == []
    systems = {s["system"]: s for s in report["systems"]}
    assert set(systems) == {"losona", "scene", "hsii"}
    # SCENE's n is the repair rate's sanctions, the interval a bootstrap over scenarios: one
    # scenario holds the only sanction, so there is none (a Wilson interval over 1 of 1 was
    # [0.207, 1] beside "n 2", the episodes) (issue 35, 0.4).
    scene = systems["scene"]["subjects"][0]
    assert (scene["n"], scene["unit"], scene["clusters"], scene["cluster_unit"]) == (
        1,
        "sanction",
        1,
        "scenario",
    )
    assert scene["ci"] == [None, None] and "at least 2 scenarios" in " ".join(scene["notes"])
    hsii = systems["hsii"]["subjects"][0]
    assert (hsii["unit"], hsii["cluster_unit"]) == ("case", "dialogue")
    assert hsii["model"].endswith("tests/hsii/fixtures/script.json")
    for system in systems.values():
        # The two subjects run the same scripts: the study cannot tell them apart (issue 35).
        assert [row["rank"] for row in system["subjects"]] == [1, 1]
        assert system["subjects"][0]["tied_with"] == ["scripted-b"]
        for row in system["subjects"]:
            assert row["calls_over_plan"] == pytest.approx(1.0, abs=0.05)
    assert (workdir / "out" / "study-report.html").is_file()


def test_prices_come_from_the_study_and_the_embedded_model_is_free() -> None:
    from normlab.study.plan import TASK_DEFAULT, price_of
    from normlab.study.schema import Price

    ours = Price(input=1.0, output=2.0)
    assert price_of("openai/gpt-4o", {"openai/gpt-4o": ours}) == ours
    for local in ("embedded/qwen2.5-coder-0.5b", TASK_DEFAULT):
        assert price_of(local, {}) == Price(input=0.0, output=0.0)
    assert price_of("embedded/qwen2.5-coder-0.5b", {"embedded/qwen2.5-coder-0.5b": ours}) == ours
    assert price_of(f"scripted/{EXAMPLE}", {}) is None  # unknown, never $0


def test_a_report_before_the_run_lists_missing_cells(workdir: Path) -> None:
    code, out, err = invoke("report", study_file(workdir), "--json")
    assert code == 0, err
    assert len(json.loads(out)["missing"]) == 6


def test_the_ray_executor_without_ray_is_one_line_exit_2(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    code, _, err = invoke("run", study_file(workdir), "--executor", "ray")
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1, err
    assert "pip install normlab[ray]" in err, err
    assert not (workdir / "out").exists()  # nothing ran
