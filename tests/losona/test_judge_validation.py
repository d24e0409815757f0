"""Judge validation: re-judging with a second judge, and the human audit round trip."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from normlab.core.csvio import key_path_for
from normlab.core.errors import InputError
from normlab.losona.audit import export_audit, import_audit
from normlab.losona.rescore import RESCORED_FILE, records_and_scenarios
from tests.losona.conftest import run_cli


@pytest.fixture
def lenient_judge(tmp_path: Path) -> str:
    """A second judge that finds every response compliant."""
    verdict = {
        "elicitor_uptake": "u",
        "norm_requirement": "r",
        "evidence": "e",
        "reasoning": "looks fine",
        "complies": True,
    }
    script = tmp_path / "lenient.json"
    script.write_text(json.dumps({"default": json.dumps(verdict)}))
    return f"scripted/{script}"


def test_rescore_reports_agreement_kappa_and_table(finished_run: Path, lenient_judge: str) -> None:
    code, output = run_cli(
        "losona", "rescore", str(finished_run / "logs"),
        "--judge", lenient_judge, "--out", str(finished_run / "rescore"), "--json",
    )  # fmt: skip
    assert code == 0, output
    result = json.loads(output)
    # Original labels: 8 comply (2 naive + 6 norm_informed), 4 breach; the new judge: all comply.
    agreement = result["agreement"]
    assert (result["n_rows"], agreement["n"]) == (12, 12)
    assert agreement["rate"]["value"] == pytest.approx(8 / 12)
    assert agreement["cohen_kappa"] == pytest.approx(0.0)  # p_o = p_e = 2/3
    # first rater: the original judge (complies = true); second: the rescoring judge
    table = {key: agreement[key] for key in agreement if key.startswith(("both", "first"))}
    assert table == {
        "both_true": 8,
        "both_false": 0,
        "first_true_second_false": 0,
        "first_false_second_true": 4,
    }
    assert len(result["disagreements"]) == 4
    rescored = (finished_run / "rescore" / RESCORED_FILE).read_text().splitlines()
    assert len(rescored) == 12
    assert all(json.loads(line)["judge_model"] == lenient_judge for line in rescored)


def test_rescore_needs_only_the_new_judge(finished_run: Path, lenient_judge: str) -> None:
    """The original judge's provider need not be installed, keyed or reachable (issue 18)."""
    from inspect_ai.log import read_eval_log, write_eval_log
    from inspect_ai.model import ModelConfig

    (path,) = sorted((finished_run / "logs").glob("*.eval"))
    log = read_eval_log(str(path))
    log.eval.model_roles = {"judge": ModelConfig(model="nosuchprovider/judge")}
    write_eval_log(log, str(path))
    out = finished_run / "rescore"
    code, output = run_cli(
        "losona", "rescore", str(path), "--judge", lenient_judge, "--out", str(out), "--json"
    )
    assert code == 0, output
    assert json.loads(output)["n_rows"] == 12
    (rescored,) = sorted(out.glob("*.rescored.eval"))
    roles = read_eval_log(str(rescored), header_only=True).eval.model_roles or {}
    assert roles["judge"] == ModelConfig(model="nosuchprovider/judge")  # the run's roles kept


def test_rescore_resumes_without_rejudging(finished_run: Path, lenient_judge: str) -> None:
    out = finished_run / "rescore"
    args = ["losona", "rescore", str(finished_run / "logs"), "--judge", lenient_judge]
    assert run_cli(*args, "--out", str(out))[0] == 0
    rescored = out / RESCORED_FILE
    lines = rescored.read_text().splitlines()
    rescored.write_text("\n".join(lines[:5]) + "\n")  # as if interrupted after 5 rows
    assert run_cli(*args, "--out", str(out))[0] == 0
    again = rescored.read_text().splitlines()
    assert len(again) == 12 and again[:5] == lines[:5]


def test_rescored_trials_can_be_analyzed(finished_run: Path, lenient_judge: str) -> None:
    out = finished_run / "rescore"
    run_cli(
        "losona", "rescore", str(finished_run / "logs"), "--judge", lenient_judge, "--out", str(out)
    )
    code, output = run_cli("losona", "analyze", str(out / RESCORED_FILE), "--json")
    assert code == 0, output
    (model,) = json.loads(output)["models"].values()
    assert model["conditions"]["naive"]["accuracy"]["value"] == 1.0


def test_audit_round_trip(finished_run: Path) -> None:
    audit_csv = finished_run / "audit" / "audit.csv"
    code, output = run_cli(
        "losona",
        "audit",
        "export",
        str(finished_run / "logs"),
        "--n",
        "10",
        "--out",
        str(audit_csv),
    )
    assert code == 0, output
    with audit_csv.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 10
    assert "complies" not in rows[0] and all(row["human_complies"] == "" for row in rows), "blind"
    judge_labels = {
        item["item_id"]: item["record"]["complies"]
        for item in map(json.loads, key_path_for(audit_csv).read_text().splitlines())
    }
    # Humans agree with the judge except: first item flipped, last item left blank.
    for index, row in enumerate(rows):
        label = judge_labels[row["item_id"]]
        if index == 0:
            label = not label
        row["human_complies"] = "" if index == 9 else ("yes" if label else "no")
    with audit_csv.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    result = import_audit(audit_csv)
    assert (result.agreement.n, result.n_unlabelled) == (9, 1)
    assert result.agreement.rate.value == pytest.approx(8 / 9)
    first_judge_label = judge_labels[rows[0]["item_id"]]
    assert (result.false_positives, result.false_negatives) == (
        (1, 0) if first_judge_label else (0, 1)
    )
    code, output = run_cli("losona", "audit", "import", str(audit_csv))
    assert code == 0 and "false positives" in output


def test_audit_import_rejects_bad_labels(finished_run: Path) -> None:
    audit_csv = finished_run / "audit.csv"
    run_cli(
        "losona", "audit", "export", str(finished_run / "logs"), "--n", "3", "--out", str(audit_csv)
    )
    text = audit_csv.read_text().splitlines()
    with audit_csv.open("w", newline="") as handle:
        handle.write(text[0] + "\n")
    rows = list(csv.DictReader(text))
    rows[1]["human_complies"] = "kinda"
    with audit_csv.open("a", newline="") as handle:
        csv.DictWriter(handle, fieldnames=list(rows[0])).writerows(rows)
    code, output = run_cli("losona", "audit", "import", str(audit_csv))
    assert code == 2
    assert "field 'human_complies'" in output and "'kinda'" in output


def test_audit_import_refuses_an_item_labelled_twice(finished_run: Path) -> None:
    audit_csv = finished_run / "audit.csv"
    run_cli(
        "losona", "audit", "export", str(finished_run / "logs"), "--n", "3", "--out", str(audit_csv)
    )
    with audit_csv.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    with audit_csv.open("a", newline="") as handle:
        csv.DictWriter(handle, fieldnames=list(rows[0])).writerow(rows[0])  # the first again
    code, output = run_cli("losona", "audit", "import", str(audit_csv))
    assert code == 2 and "appears twice" in output and "field 'item_id'" in output


def test_a_refused_export_leaves_the_earlier_audit_and_its_key_as_they_were(
    finished_run: Path,
) -> None:
    """A trial whose scenario is missing stops the export; the earlier CSV and key still
    belong together (the key was emptied first and refilled row by row, so a refused export
    left an earlier CSV beside a key that no longer matched it)."""
    audit_csv = finished_run / "audit.csv"
    records, scenarios = records_and_scenarios([finished_run / "logs"], None)
    assert export_audit(records, scenarios, 12, audit_csv) == 12
    written = audit_csv.read_bytes(), key_path_for(audit_csv).read_bytes()
    chosen_last = json.loads(key_path_for(audit_csv).read_text().splitlines()[-1])
    missing = chosen_last["record"]["scenario_id"]
    fewer = {name: scenario for name, scenario in scenarios.items() if name != missing}
    with pytest.raises(InputError, match=f"no scenario for '{missing}'"):
        export_audit(records, fewer, 12, audit_csv)
    assert (audit_csv.read_bytes(), key_path_for(audit_csv).read_bytes()) == written
