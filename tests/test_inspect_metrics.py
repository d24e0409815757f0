"""What ``inspect view`` shows is what ``normlab SYSTEM analyze`` prints: for each benchmark,
the metrics normlab registers with Inspect, read from a scripted run's log header, equal the
analysis of the same log, under the options that change them (conditions, K, views, the tie
weight)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from typer.testing import CliRunner

from normlab.cli import app
from tests.hsii.test_end_to_end import CASES as HSII_CASES
from tests.hsii.test_end_to_end import REFERENCE as HSII_REFERENCE
from tests.hsii.test_end_to_end import SCRIPT as HSII_SCRIPT
from tests.losona.conftest import SCENARIOS as LOSONA_SCENARIOS
from tests.losona.conftest import SCRIPT as LOSONA_SCRIPT
from tests.scene.conftest import SCENARIOS as SCENE_SCENARIOS
from tests.scene.conftest import SCRIPT as SCENE_SCRIPT

runner = CliRunner()


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def inspect_metrics(logs: Path) -> dict[str, dict[str, float]]:
    """Per score (its name), the metrics of the one log under ``logs``, as Inspect stored them."""
    (path,) = sorted(logs.rglob("*.eval"))
    results = read_eval_log(str(path), header_only=True).results
    assert results is not None
    return {
        score.name: {name: metric.value for name, metric in score.metrics.items()}
        for score in results.scores
    }


def analysis(system: str, logs: Path, *options: str) -> dict[str, Any]:
    return dict(json.loads(invoke(system, "analyze", str(logs), "--json", *options)))


def same(inspect_value: float, analysis_value: float | None) -> bool:
    if analysis_value is None:
        return math.isnan(inspect_value)
    return inspect_value == pytest.approx(analysis_value)


def scripted_copy(script: Path, folder: Path, changes: dict[str, str]) -> str:
    """The script with the replies of the rules matching ``changes`` keys replaced (a rule
    inserted first when none matches), as a ``scripted/`` model string."""
    data = json.loads(script.read_text())
    for match, reply in changes.items():
        data["rules"].insert(0, {"match": match, "replies": [reply]})
    path = folder / f"{script.stem}-{len(changes)}.json"
    path.write_text(json.dumps(data))
    return f"scripted/{path}"


@pytest.mark.parametrize("epochs", ["3", "1"])
def test_losona_metrics_equal_the_analysis(workdir: Path, epochs: str) -> None:
    model = f"scripted/{LOSONA_SCRIPT}"
    logs = workdir / "logs"
    invoke(
        "losona", "run", "--model", model, "--judge", model, "--data", str(LOSONA_SCENARIOS),
        "-c", "naive", "-c", "norm_informed", "--epochs", epochs, "--log-dir", str(logs),
    )  # fmt: skip
    shown = inspect_metrics(logs)["norm_judge"]
    conditions = analysis("losona", logs)["models"][model]["conditions"]
    assert set(conditions) == {"naive", "norm_informed"}
    compared = 0
    for condition, result in conditions.items():
        assert same(shown[f"{condition} accuracy-at-{epochs}"], result["accuracy"]["value"])
        assert same(shown[f"{condition} compliance"], result["compliance"]["value"])
        assert same(shown[f"{condition} consistency"], result["consistency"]["value"])
        assert shown[f"{condition} parse failures"] == result["parse_failures"]
        compared += 4
    assert compared == 8
    if epochs == "3":  # the fixture's naive trials: one of three comply, so K matters
        assert shown["naive compliance"] == pytest.approx(1 / 3)
        assert shown["naive accuracy-at-3"] == 0.0


def test_scene_metrics_equal_the_analysis_in_both_views(workdir: Path) -> None:
    # The auditor calls the breach episode PARTIAL: the VALID-only view then differs.
    model = scripted_copy(
        SCENE_SCRIPT,
        workdir,
        {
            "(?s)^You audit whether.*several possible causes": json.dumps(
                {"label": "PARTIAL", "justification": "one persona drifted"}
            )
        },
    )
    roles = [a for r in ("persona", "orchestrator", "auditor") for a in ("--role", f"{r}={model}")]
    logs = workdir / "logs"
    invoke(
        "scene", "run", "--model", model, "--judge", model, *roles,
        "--data", str(SCENE_SCENARIOS), "--reps", "1", "--log-dir", str(logs),
    )  # fmt: skip
    shown = inspect_metrics(logs)["episode_judge"]
    result = analysis("scene", logs)["models"][model]
    for view, name in (("all_episodes", "all episodes"), ("valid_only", "VALID only")):
        measured = result[view]
        assert shown[f"{name} episodes"] == measured["episodes"]
        assert same(shown[f"{name} repair rate"], measured["repair"]["value"])
        assert same(shown[f"{name} adaptation rho"], measured["adaptation"]["value"])
        assert measured["opposing_pairs"], view
        for pair in measured["opposing_pairs"]:
            for pole, rate in (
                (pair["pole_a"], pair["compliance_a"]),
                (pair["pole_b"], pair["compliance_b"]),
            ):
                key = f"{name} compliance {pole}"
                assert (key in shown) == bool(rate["n"])
                if rate["n"]:
                    assert same(shown[key], rate["value"])
    assert result["all_episodes"]["episodes"] == 2 and result["valid_only"]["episodes"] == 1
    assert shown["all episodes repair rate"] == 1.0
    fidelity = result["fidelity"]
    assert same(shown["persona breach"], fidelity["persona_breach"]["value"])
    assert same(shown["sanction delivered"], fidelity["sanction_delivered"]["value"])
    assert same(shown["sanction shape match"], fidelity["sanction_shape_match"]["value"])


@pytest.mark.parametrize("tie_weight", ["0", "0.5"])
def test_hsii_metrics_equal_the_analysis_at_the_runs_tie_weight(
    workdir: Path, tie_weight: str
) -> None:
    # The judge always prefers statement A: the two orders split, so every comparison ties.
    model = scripted_copy(
        HSII_SCRIPT,
        workdir,
        {"^Suppose you are an expert evaluator": json.dumps({"reasoning": "r", "better": "A"})},
    )
    logs = workdir / "logs"
    invoke(
        "hsii", "run", "--model", model, "--judge", model, "--role", f"persona={model}",
        "--role", f"reference={HSII_REFERENCE}", "--cases", str(HSII_CASES), "--epsilon", "2",
        "--tie-weight", tie_weight, "--log-dir", str(logs),
    )  # fmt: skip
    shown = inspect_metrics(logs)["hsii_stages"]
    result = analysis("hsii", logs)["models"][model]
    assert result["tie_weight"] == float(tie_weight)
    for name in ("r1", "r2", "r3", "r4", "hsii", "hsii_printed"):
        assert same(shown[name], result[name]), name
    assert shown["r3"] == pytest.approx(float(tie_weight))  # one right target, a tie
    other = analysis("hsii", logs, "--tie-weight", "1")["models"][model]
    assert other["r3"] == 1.0  # asking for another weight re-scores the same verdicts
