"""Human grading of the judge's comparisons: run → export (both orders, blind) → fill → import."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.hsii import load_cases
from normlab.hsii.audit import (
    GRADING_COLUMNS,
    GradingKeyRow,
    export_grading,
    import_grading,
    key_path_for,
)
from tests.helpers.inputs import import_failure
from tests.hsii.test_end_to_end import CASES, REFERENCE, SCRIPT

runner = CliRunner()
TOPICS = {case.case_id: case.topic for case in load_cases(CASES)}


def script_with_two_right_targets(folder: Path) -> str:
    """The shared script, but business is answered to the right character (I) without naming a
    day: the judge (A if A names Thursday, else B) then splits that pair (loss, win: a tie),
    while agriculture wins both orders."""
    script = json.loads(SCRIPT.read_text())
    business = next(rule for rule in script["rules"] if '"business' in rule["match"])
    business["replies"] = [json.dumps({"role_to": "I", "content": "Reports attached."})]
    path = folder / "script.json"
    path.write_text(json.dumps(script))
    return f"scripted/{path}"


def run_hsii(workdir: Path, model: str, *extra: str) -> Path:
    logs = workdir / "logs"
    result = runner.invoke(
        app,
        ["hsii", "run", "--model", model, "--judge", model, "--role", f"persona={model}",
         "--role", f"reference={REFERENCE}", "--cases", str(CASES), "--epsilon", "2",
         "--log-dir", str(logs), "--report-dir", str(workdir / "report"), *extra],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return logs


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def read_keys(csv_path: Path) -> dict[str, GradingKeyRow]:
    lines = key_path_for(csv_path).read_text().splitlines()
    keys = [GradingKeyRow.model_validate_json(line) for line in lines]
    return {key.item_id: key for key in keys}


def write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=GRADING_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


# What a person answers, by (topic, stage, the subject's side in the row).
ANSWERS = {
    ("agriculture", "first", "A"): "A",  # subject preferred
    ("agriculture", "first", "B"): "tie",  # → a win (one vote to none)
    ("business", "first", "A"): "a",  # subject preferred
    ("business", "first", "B"): "A",  # golden preferred → a tie (one vote each)
    ("agriculture", "long", "A"): "B",  # reference preferred; the other order left blank
    ("agriculture", "long", "B"): "",
    ("business", "long", "A"): "equal",
    ("business", "long", "B"): "Equal",  # → a tie
}


def test_export_blind_in_both_orders_then_import_by_hand(workdir: Path) -> None:
    model = script_with_two_right_targets(workdir)
    logs = run_hsii(workdir, model)
    out = workdir / "grading.csv"
    assert export_grading([logs], out) == 8  # 2 right cases × (first, long) × 2 orders
    rows = read_rows(out)
    assert list(rows[0]) == GRADING_COLUMNS  # no side, no judge verdict, no model
    keys = read_keys(out)
    assert sorted(keys) == sorted(row["item_id"] for row in rows)
    pairs: dict[str, dict[str, dict[str, str]]] = {}
    for row in rows:
        key = keys[row["item_id"]]
        assert key.subject_model == model and key.judge_model == model
        pairs.setdefault(key.pair_id, {})[key.subject_side] = row
    assert len(pairs) == 4 and all(set(sides) == {"A", "B"} for sides in pairs.values())
    for sides in pairs.values():  # the same two statements, swapped
        assert sides["A"]["statement_a"] == sides["B"]["statement_b"]
        assert sides["A"]["statement_b"] == sides["B"]["statement_a"]
    agriculture = next(rows for rows in pairs.values() if "Thursday" in rows["A"]["statement_a"])[
        "A"
    ]
    # targets spelled as the case spells them, whoever wrote "Technical Coordinator"
    assert agriculture["statement_a"] == (
        "→ TECHNICAL COORDINATOR: The meeting with the local organisations is set for Thursday."
    )
    assert agriculture["characters"].startswith("FARMERS, TECHNICAL COORDINATOR")
    assert "TECHNICAL COORDINATOR → Intelligent Assistant" in agriculture["history"]
    first = {(TOPICS[k.case_id], k.stage, k.subject_side): k.judge_verdict for k in keys.values()}
    assert first[("agriculture", "first", "A")] == first[("agriculture", "first", "B")] == "win"
    assert (first[("business", "first", "A")], first[("business", "first", "B")]) == (
        "loss",
        "win",
    )
    for row in rows:
        key = keys[row["item_id"]]
        row["human_verdict"] = ANSWERS[(TOPICS[key.case_id], key.stage, key.subject_side)]
    write_rows(out, rows)

    result = import_grading(out)
    # r3: agriculture a win, business a tie → 1 of 2; the judge on the same pairs: the same
    assert (result.r3_rate.k, result.r3_rate.n, result.ties) == (1, 2, 1)
    assert (result.judge_r3_rate.k, result.judge_r3_rate.n) == (1, 2)
    # r4: agriculture graded in one order only; business a tie; the judge split it too
    assert (result.r4_rate.k, result.r4_rate.n) == (0, 1)
    assert (result.judge_r4_rate.k, result.judge_r4_rate.n) == (0, 1)
    assert result.r3_rate_by_model[model].k == 1
    assert (result.n_rows, result.n_unlabelled, result.incomplete_pairs) == (8, 1, 1)
    # Per row, "subject preferred?": judge T T F T | T F T, person T F T F | F F F
    agreement = result.agreement
    assert (agreement.n, agreement.rate.k) == (7, 2)
    assert (agreement.both_true, agreement.both_false) == (1, 1)
    assert (agreement.first_true_second_false, agreement.first_false_second_true) == (4, 1)
    assert agreement.cohen_kappa == pytest.approx(-6 / 29)  # p_o 2/7, p_e 20/49
    assert (result.verdict_agreement.k, result.verdict_agreement.n) == (1, 7)
    assert result.subject_models == [model] and result.judge_models == [model]

    shown = runner.invoke(app, ["hsii", "grade", "import", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "human win rate vs golden (r3): 50.0%" in shown.output and "(1/2)" in shown.output
    assert "kappa -0.207" in shown.output
    data = json.loads(runner.invoke(app, ["hsii", "grade", "import", str(out), "--json"]).stdout)
    assert data["r3_rate"]["k"] == 1 and data["agreement"]["n"] == 7


def test_a_sample_is_reproducible_and_keeps_both_orders(workdir: Path) -> None:
    logs = run_hsii(workdir, f"scripted/{SCRIPT}")
    args = ["hsii", "grade", "export", str(logs), "--n", "1", "--stage", "first"]
    one = runner.invoke(app, [*args, "--out", str(workdir / "one.csv")])
    assert one.exit_code == 0, one.output
    assert "2 rows (1 pair(s), each in both orders)" in one.output
    assert "fill 'human_verdict': Which is the more proper next statement" in one.output
    again = runner.invoke(app, [*args, "--out", str(workdir / "again.csv")])
    assert again.exit_code == 0
    assert (workdir / "one.csv").read_text() == (workdir / "again.csv").read_text()
    keys = read_keys(workdir / "one.csv")
    assert {key.subject_side for key in keys.values()} == {"A", "B"}
    assert len({key.pair_id for key in keys.values()}) == 1
    assert {key.stage for key in keys.values()} == {"first"}
    result = import_grading(workdir / "one.csv")  # nothing graded yet
    assert (result.r3_rate.n, result.n_unlabelled, result.agreement.n) == (0, 2, 0)


def test_malformed_grades_name_file_line_and_field(workdir: Path) -> None:
    logs = run_hsii(workdir, f"scripted/{SCRIPT}")
    out = workdir / "grading.csv"
    export_grading([logs], out, stages=["first"])
    rows = read_rows(out)
    fails = import_failure(out, write_rows, import_grading)
    error = fails([{**rows[0], "human_verdict": "maybe"}, rows[1]])
    assert (error.path, error.line, error.field) == (str(out), 2, "human_verdict")
    assert "A, B or equal" in error.problem
    second = 3 + sum(value.count("\n") for value in rows[0].values())  # the history spans lines
    error = fails([rows[0], {**rows[1], "item_id": rows[0]["item_id"]}])
    assert (error.line, error.field) == (second, "item_id")
    assert "appears twice (first on line 2)" in error.problem
    error = fails([rows[0], {**rows[1], "item_id": "G9999"}])
    assert error.field == "item_id" and "not in grading.key.jsonl" in error.problem
    write_rows(out, [{**rows[0], "human_verdict": "maybe"}])
    result = runner.invoke(app, ["hsii", "grade", "import", str(out)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"normlab: error: {out}:2: field 'human_verdict': "
        "expected A, B or equal (or tie), got 'maybe'"
    )
    key_path_for(out).unlink()
    with pytest.raises(InputError, match="key file not found"):
        import_grading(out)


def test_nothing_to_grade_without_a_right_target(workdir: Path) -> None:
    tennis = next(case_id for case_id, topic in TOPICS.items() if topic == "tennis")
    logs = run_hsii(workdir, f"scripted/{SCRIPT}", "--case", tennis)
    with pytest.raises(InputError, match="nothing to grade"):
        export_grading([logs], workdir / "grading.csv")
    result = runner.invoke(app, ["hsii", "grade", "export", str(logs), "--stage", "later"])
    assert result.exit_code == 2 and "field 'stage'" in result.output
