"""The win rule on every verdict pair, both HSII score forms on Table 1, r1–r4 denominators."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.hsii import hsii_score, win_value
from normlab.hsii.analysis import Weights, analyze_records
from normlab.hsii.rules import score_of_rates
from normlab.hsii.schemas import TrialRecord

VERDICTS = ("win", "loss", "tie")


@pytest.mark.parametrize(("first", "second"), list(itertools.product(VERDICTS, VERDICTS)))
def test_toolbench_win_rule_on_every_pair(first: str, second: str) -> None:
    votes = [first, second]
    wins, losses = votes.count("win"), votes.count("loss")
    expected = "win" if wins > losses else "loss" if losses > wins else "tie"
    value = win_value(votes, tie_weight=0.0)  # type: ignore[arg-type]
    assert value == {"win": 1.0, "loss": 0.0, "tie": 0.0}[expected]
    assert win_value(votes, tie_weight=0.5) == {"win": 1.0, "loss": 0.0, "tie": 0.5}[expected]  # type: ignore[arg-type]


def test_the_win_rule_by_hand() -> None:
    assert win_value(["win", "tie"]) == 1.0  # one vote to none
    assert win_value(["win", "loss"]) == 0.0  # orders disagree: a tie, worth 0 by default
    assert win_value(["win", "loss"], tie_weight=0.5) == 0.5
    assert win_value(["tie", "tie"], tie_weight=0.5) == 0.5
    assert win_value(["win", None]) == 0.0, "an unusable verdict leaves it unresolved, no win"
    assert win_value([]) == 0.0


# Table 1 of the paper: r1, r2, r3, r4 and the printed HSII score of every row.
TABLE_1 = {
    "llama2-7b": (0.472, 0.510, 0.26, 0.27, 0.600),
    "baichuan2-7b": (0.343, 0.624, 0.40, 0.44, 0.522),
    "qwen2.5-7b": (0.677, 0.266, 0.47, 0.52, 0.855),
    "llama3-8b": (0.554, 0.565, 0.55, 0.55, 0.898),
    "mistral-7b": (0.496, 0.491, 0.41, 0.44, 0.703),
    "GPT4": (0.701, 0.732, 0.67, 0.69, 1.399),
    "human": (0.996, 0.804, 0.72, 0.72, 2.149),
}


@pytest.mark.parametrize("row", list(TABLE_1))
def test_table_form_reproduces_every_row_of_table_1(row: str) -> None:
    r1, r2, r3, r4, printed_in_paper = TABLE_1[row]
    assert hsii_score(r1, r2, r3, r4, formula="table") == pytest.approx(printed_in_paper, abs=1e-3)


def test_both_forms_on_the_gpt4_row() -> None:
    r1, r2, r3, r4, _ = TABLE_1["GPT4"]
    assert round(hsii_score(r1, r2, r3, r4), 3) == 1.399  # .701 (1 + .732 · 1.36)
    assert round(hsii_score(r1, r2, r3, r4, formula="printed"), 3) == 1.912  # .701 · 2.7275
    assert hsii_score(1, 1, 1, 1, formula="printed") == 4.0  # (n1 + n2 + n3 + n4) / n at most
    assert hsii_score(1, 1, 1, 1, formula="table") == 3.0
    assert hsii_score(0.5, 1, 1, 1, alpha=2, beta=1, gamma=0) == 0.5 * (1 + 2 * 1)


def record(
    case: str, response: str, first: list[str] | None, long: list[str] | None
) -> TrialRecord:
    return TrialRecord.model_validate(
        {
            "case_id": case,
            "subject_model": "m",
            "response": response,
            "golden_target": "G",
            "characters": ["F", "G", "H"],
            "first_verdicts": first,
            "long_verdicts": long,
        }
    )


def answer(target: str) -> str:
    return json.dumps({"role_to": target, "content": "ok"})


def records() -> list[TrialRecord]:
    """n = 6: one unparseable, two wrong targets, three right (first wins: 2 of 3)."""
    return [
        record("c1", "no idea", None, None),
        record("c2", answer("F"), None, None),
        record("c3", answer("H"), ["win", "win"], ["win", "win"]),  # verdicts of a wrong target
        record("c4", answer("G"), ["win", "win"], ["win", "tie"]),
        record("c5", answer("g"), ["win", "tie"], ["loss", "loss"]),
        record("c6", answer("G"), ["loss", "tie"], ["tie", "tie"]),
    ]


def test_denominators_follow_definition_1() -> None:
    result = analyze_records(records()).models["m"]
    assert (result.n, result.n1, result.n2) == (6, 5, 3)
    assert result.r1 == pytest.approx(5 / 6)  # parsed / n
    assert result.r2 == pytest.approx(3 / 5)  # right target / parsed
    assert result.r3 == pytest.approx(2 / 3)  # first wins / right target
    assert result.r4 == pytest.approx(1 / 3)  # long wins / right target
    assert result.hsii == pytest.approx(hsii_score(5 / 6, 3 / 5, 2 / 3, 1 / 3))
    tied = analyze_records(records(), Weights(tie_weight=0.5)).models["m"]
    assert tied.r4 == pytest.approx((1 + 0 + 0.5) / 3)
    for name in ("r1", "r2", "r3", "r4", "hsii"):
        lo, hi = result.ci[name]
        assert lo is not None and hi is not None and lo <= hi


def test_analyze_reads_trial_records_and_prints_the_json_shape(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text("".join(r.model_dump_json() + "\n" for r in records()))
    result = CliRunner().invoke(app, ["hsii", "analyze", str(path), "--json"])
    assert result.exit_code == 0, result.output
    model = json.loads(result.output)["models"]["m"]
    assert {"n", "r1", "r2", "r3", "r4", "hsii", "hsii_printed", "formula"} <= set(model)
    assert model["formula"] == "table"
    printed = CliRunner().invoke(app, ["hsii", "analyze", str(path), "--json", "--formula", "x"])
    assert printed.exit_code == 2 and "--formula" in printed.output
    bad = tmp_path / "bad.jsonl"
    row = {"case_id": "c", "subject_model": "m", "response": "r", "golden_target": "G"}
    bad.write_text(json.dumps({**row, "first_verdicts": ["win"]}) + "\n")
    broken = CliRunner().invoke(app, ["hsii", "analyze", str(bad)])
    assert broken.exit_code == 2 and "bad.jsonl:1: field 'first_verdicts'" in broken.output


def right(case: str, first: list[str | None] | None, long: list[str | None] | None) -> TrialRecord:
    return TrialRecord.model_validate(
        {
            "case_id": case,
            "subject_model": "m",
            "response": answer("G"),
            "golden_target": "G",
            "characters": ["F", "G", "H"],
            "first_verdicts": first,
            "long_verdicts": long,
        }
    )


def test_missing_and_unresolved_comparisons_are_no_win_in_n2_and_are_counted() -> None:
    """Definition 1: r3 = n3/n2 and r4 = n4/n2. Four right targets (n2 = 4) and a wrong one:
    a: first win, long missing   b: first win (win+tie), long win
    c: first missing, long loss  d: first tie, long unresolved (one verdict unusable)
    n3 = 2 (a, b), n4 = 1 (b); with ties at 0.5, n3 = 2.5. Before, a's missing long run was
    left out of r4's denominator (r4 = 1/3) while c's missing first verdicts counted."""
    records = [
        right("a", ["win", "win"], None),
        right("b", ["win", "tie"], ["win", "win"]),
        right("c", None, ["loss", "loss"]),
        right("d", ["tie", "tie"], [None, "win"]),
        record("e", answer("F"), None, None),
    ]
    result = analyze_records(records).models["m"]
    assert (result.n, result.n1, result.n2, result.n3, result.n4) == (5, 5, 4, 2.0, 1.0)
    assert (result.r3, result.r4) == pytest.approx((2 / 4, 1 / 4))
    assert analyze_records(records, Weights(tie_weight=0.5)).models["m"].r3 == pytest.approx(
        2.5 / 4
    )
    assert result.first_outcomes == {
        "win": 2, "loss": 0, "tie": 1, "unresolved": 0, "missing": 1
    }  # fmt: skip
    assert result.long_outcomes == {
        "win": 1, "loss": 1, "tie": 0, "unresolved": 1, "missing": 1
    }  # fmt: skip
    # Shown beside r3 and r4 in Table 1 (tie/unresolved/missing), not only in --json.
    from normlab.hsii.report import table_one

    table = table_one(analyze_records(records))
    (row,) = table.rows
    assert row[table.header.index("r3 tie/unres./missing")] == "1/0/1"
    assert row[table.header.index("r4 tie/unres./missing")] == "0/1/1"


def test_the_scorer_counts_r4_as_the_analysis_does() -> None:
    from normlab.hsii.rules import stage_values

    # A right target whose long run has no verdicts is in r4's denominator with 0.
    assert stage_values(True, True, ["win", "win"], None) == (1.0, 1.0, 1.0, 0.0)
    assert stage_values(True, True, None, ["win", "loss"], 0.5) == (1.0, 1.0, 0.0, 0.5)
    parsed_wrong = stage_values(True, False, ["win", "win"], ["win", "win"])
    assert parsed_wrong[:2] == (1.0, 0.0) and all(math.isnan(v) for v in parsed_wrong[2:])


def test_intervals_resample_dialogues() -> None:
    """Eight cases cut from two dialogues: the four of dialogue A all parse, the four of B
    none (r1 = 0.5). Resampling dialogues, a resample holds A twice (r1 = 1, chance 1/4), B
    twice (0, 1/4) or both (0.5, 1/2): the interval is [0, 1]. Case by case it was about
    [0.125, 0.875]."""
    records = [
        record(f"A#{turn}", answer("G"), ["win", "win"], ["win", "win"]) for turn in range(4)
    ] + [record(f"B#{turn}", "no idea", None, None) for turn in range(4)]
    result = analyze_records(records).models["m"]
    assert result.r1 == 0.5 and result.dialogues == 2
    assert result.ci["r1"] == (0.0, 1.0)
    # A dialogue id, where the record has one, wins over the case id's prefix.
    named = [r.model_copy(update={"dialogue_id": f"d{i}"}) for i, r in enumerate(records)]
    spread = analyze_records(named).models["m"]
    assert spread.dialogues == 8
    lo, hi = spread.ci["r1"]
    assert lo is not None and hi is not None and 0.1 <= lo < 0.3 and 0.7 < hi <= 0.9


def test_table_2_without_cot_is_r2_over_answers_that_named_a_target() -> None:
    """Three (case, COT) pairs: one right at round 0, one with no target at round 0 (right
    at round 1), one wrong at round 0 (right at round 1). Without COT = 1 right of the 2
    that named a target = 0.5 (it was 1/3, the unparsed answer counted wrong); with COT =
    2 of 3 (every round-1 answer named one); 1 answer left out at round 0, none at round 1."""
    from normlab.hsii.cot import cot_result
    from normlab.hsii.schemas import CotTrace

    traces = [
        ("fig4", CotTrace(targets=["G", "F"], correct=[True, False])),
        ("fig4", CotTrace(targets=[None, "G"], correct=[False, True])),
        ("fig4", CotTrace(targets=["H", "G"], correct=[False, True])),
    ]
    result = cot_result(traces, cap=4)
    assert result.without_cot.value == pytest.approx(1 / 2)
    assert result.with_cot.value == pytest.approx(2 / 3)
    assert result.unparsed == (1, 0)
    from normlab.hsii.analysis import HsiiAnalysis
    from normlab.hsii.report import table_two

    table = table_two(HsiiAnalysis(models={}, cot={"m": result}))
    assert table.rows[0][table.header.index("no target")] == "1/0"


def test_a_rate_no_case_reached_scores_as_zero() -> None:
    """ι of measured rates: r3 and r4 are NaN when no target was right (n2 = 0), r2 too when
    nothing parsed; such a rate counts 0, once for the analysis, its intervals and the metric.
    r1 = 0.5, r2 = 0 (nothing right), r3 = r4 = NaN → ι = 0.5 · (1 + 0) = 0.5 (table) and
    0.5 · (1 + 0 · (1 + …)) = 0.5 (printed); all NaN → 0."""
    assert score_of_rates([0.5, 0.0, math.nan, math.nan]) == 0.5
    assert score_of_rates([0.5, 0.0, math.nan, math.nan], formula="printed") == 0.5
    assert score_of_rates([math.nan] * 4) == 0.0
    # r1 = 1, r2 = 0.5, r3 = 0.5, r4 = NaN: table 1 · (1 + 0.5 · 0.5) = 1.25;
    # printed 1 · (1 + 0.5 · (1 + 0.5)) = 1.75.
    assert score_of_rates([1.0, 0.5, 0.5, math.nan]) == 1.25
    assert score_of_rates([1.0, 0.5, 0.5, math.nan], formula="printed") == 1.75
    assert score_of_rates([1.0, 0.5, 0.5, 0.0]) == hsii_score(1.0, 0.5, 0.5, 0.0)


def test_the_metric_reads_the_paper_s_stage_names_and_the_names_old_logs_used() -> None:
    """A case's score value is keyed r1–r4 (Definition 1's names); logs written before issue
    42 keyed it ``parsed``, ``target_ok``, ``first_win``, ``long_win``: the same cases give the
    same rates either way (and a case without its key is outside that stage's denominator)."""
    from inspect_ai.scorer import SampleScore, Score

    from normlab.hsii.rules import LEGACY_STAGES, STAGES
    from normlab.hsii.scorer import hsii_rates

    cases = [(1.0, 1.0, 1.0, 0.0), (1.0, 1.0, 0.0, 0.0), (1.0, 0.0, math.nan, math.nan)]
    cases.append((0.0, math.nan, math.nan, math.nan))

    def rates(keys: list[str]) -> dict[str, float]:
        scores = [
            SampleScore(score=Score(value=dict(zip(keys, case, strict=True))), sample_id=i)
            for i, case in enumerate(cases)
        ]
        compute: Any = hsii_rates()  # Inspect types a metric as taking Scores or SampleScores
        found = compute(scores)
        assert isinstance(found, dict)
        return {name: float(value) for name, value in found.items()}

    new, old = rates(list(STAGES)), rates([LEGACY_STAGES[stage] for stage in STAGES])
    assert new == old
    assert (new["r1"], new["r3"], new["r4"]) == (0.75, 0.5, 0.0)
    assert new["r2"] == pytest.approx(2 / 3)
