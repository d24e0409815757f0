"""``study plan`` on the shipped scripted example (issue 35, items 0.1, 0.2, 0.3 and 0.7): each
system's power on its own scale, a pilot of the example planned from without a crash, the cost
printed as a floor with its correction, and a local model timed by its token rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from normlab import stats
from tests.study.test_study import invoke, study_file


def plan_json(*args: str | Path) -> dict[str, object]:
    code, out, err = invoke("plan", *args, "--json")
    assert code == 0, err
    plan: dict[str, object] = json.loads(out)
    return plan


def cells_of(plan: dict[str, object]) -> dict[tuple[str, str], dict[str, object]]:
    cells = plan["cells"]
    assert isinstance(cells, list)
    return {(c["system"], c["subject"]): c for c in cells}


def test_hsii_is_planned_on_its_0_to_3_scale(workdir: Path) -> None:
    power = cells_of(plan_json(study_file(workdir), "--icc", "0"))["hsii", "scripted-a"]["power"]
    assert isinstance(power, dict)
    # The paper's GPT-4 rates give ι = 1.399; the delta method over 3 cases:
    # 1.959964·√(1.312204/3) = 1.959964·.661363 = ±1.2962 (the plan printed a rate's ±0.375).
    assert power["assumed_rate"] == pytest.approx(1.3989, abs=1e-4)
    assert power["halfwidth"] == pytest.approx(1.2962, abs=1e-3)
    assert (power["unit"], power["cluster_unit"], power["method"]) == (
        "case",
        "dialogue",
        "delta method over r1–r4",
    )
    # ±0.05 on the same scale: ⌈3.841459·1.312204/0.0025⌉ = ⌈2016.3⌉ = 2,017 cases.
    assert power["n_for_target"] == 2017


def test_the_shipped_example_plans_from_its_own_pilot(workdir: Path) -> None:
    """The plan crashed on HSII's score (above 1) fed to a Wilson interval (issue 35, 0.2)."""
    pilot = study_file(workdir)
    code, _, err = invoke("run", pilot)
    assert code == 0, err
    (workdir / "main").mkdir()
    cells = cells_of(plan_json(study_file(workdir / "main"), "--pilot", workdir / "out"))
    hsii = cells["hsii", "scripted-a"]["power"]
    assert isinstance(hsii, dict)
    assert hsii["rate_source"].startswith("pilot hsii/scripted-a (r1–r4 ")
    # The pilot's r1 = 2/3 is kept; r2 = 1/2 kept; r3 = r4 = 1/1 become the Wilson lower end.
    low, _ = stats.wilson_interval(1, 1)
    assumed = hsii["assumed"]
    assert isinstance(assumed, dict)
    assert assumed["stages"] == pytest.approx([2 / 3, 0.5, low, low])
    scene = cells["scene", "scripted-a"]["power"]
    assert isinstance(scene, dict)
    assert scene["per_sampled"] == pytest.approx(0.5)  # 1 sanction in 2 episodes
    assert "pilot scene/scripted-a" in scene["rate_source"]


def test_the_plan_names_its_units_and_prints_its_cost_as_a_floor(workdir: Path) -> None:
    code, out, err = invoke("plan", study_file(workdir))
    assert code == 0, err
    flat = " ".join(out.split())
    assert "3 cases in 3 dialogues" in flat and "1 sanction in 2 scenarios" in flat
    assert "total cost: at least" in flat and "tokens per word" in flat


def test_a_local_model_is_timed_by_its_token_rate(workdir: Path) -> None:
    """The plan gave an embedded judge the API latency bound (issue 35, 0.7): a LoSoNA study
    judged by the task's default, the embedded model, was planned at 0 s with no latency."""
    text = study_file(workdir).read_text(encoding="utf-8")
    # Leave LoSoNA's judge to the task's default (the embedded model); dry-run it scripted.
    text = text.replace("    roles: {judge: scripted/", "    dry_run: {model: scripted/", 1)
    path = workdir / "local.yaml"
    path.write_text(text, encoding="utf-8")
    plan = plan_json(path, "--latency", "0")
    cell = cells_of(plan)["losona", "scripted-a"]
    judge = cell["roles"]["judge"]  # type: ignore[index]
    assert judge["model"] == "embedded (task default)"
    rate = plan["local_rate"]
    assert isinstance(rate, dict)
    expected = (
        judge["input_tokens"] * 1.6 / rate["prompt"]
        + judge["output_tokens"] * 1.3 / rate["generation"]
    )
    assert cell["local_s"] == pytest.approx(expected, abs=0.06)
    assert cell["wall_s_at_least"] == pytest.approx(expected, abs=0.06) and expected > 10


def test_the_command_lines_default_icc_is_the_plans() -> None:
    from normlab.study.cli import ICC_DEFAULT
    from normlab.study.power import ICC

    assert ICC_DEFAULT == ICC


@pytest.mark.slow
def test_calibrate_times_the_embedded_model_here(workdir: Path) -> None:
    """``--calibrate`` measures the embedded model on this machine (two timed calls) and the
    plan's local time uses what it measured."""
    from normlab.study.calibrate import calibrate_embedded

    rate = calibrate_embedded()
    assert 1 < rate["prompt"] < 100_000 and 0.5 < rate["generation"] < 10_000
    assert rate["prompt"] > rate["generation"]  # a prompt is read faster than it is written
