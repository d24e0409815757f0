"""The human audit of SCENE's labels and fidelity: run → export (blind yes/no) → answer → import."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.scene.analysis import EpisodeRecord
from normlab.scene.audit import (
    AUDIT_COLUMNS,
    SceneAuditKeyRow,
    episode_items,
    export_audit,
    import_audit,
    key_path_for,
)
from normlab.scene.prompts import STAGED_MARK, marked_transcript
from normlab.scene.rules import episode_outcome
from normlab.scene.schemas import EpisodeLabels, FidelityVerdict
from tests.helpers.inputs import import_failure
from tests.scene.conftest import SCENARIOS, SCRIPT
from tests.scene.test_end_to_end import run_scene
from tests.scene.test_paper_definitions import play_precedent

runner = CliRunner()


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict[str, str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=AUDIT_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)


def read_keys(csv_path: Path) -> dict[str, SceneAuditKeyRow]:
    lines = key_path_for(csv_path).read_text().splitlines()
    return {key.item_id: key for key in map(SceneAuditKeyRow.model_validate_json, lines)}


def test_export_blind_questions_then_import_by_hand(workdir: Path) -> None:
    logs = run_scene(workdir, "turns")
    out = workdir / "audit.csv"
    # Both episodes VALID. Breach episode: the judge says yes to turns 4 (demonstration),
    # 6 (breach), 7 (sanction), 8 (repair); comply episode: to turn 4 (demonstration) only.
    # Each gives its fidelity item and 4 turn items alternating yes and no: 2 + 2, 1 + 3.
    assert export_audit([logs], out, n=100) == 10
    rows = read_rows(out)
    assert list(rows[0]) == AUDIT_COLUMNS  # no label, kind, turn or model column
    keys = read_keys(out)
    assert sorted(keys) == sorted(row["item_id"] for row in rows)
    breach = [k for k in keys.values() if k.scenario_id.endswith("breach")]
    comply = [k for k in keys.values() if k.scenario_id.endswith("comply")]
    turn_labels = sorted(k.judge_label for k in breach if k.kind != "fidelity")
    assert turn_labels == [False, False, True, True]
    turn_labels = sorted(k.judge_label for k in comply if k.kind != "fidelity")
    assert turn_labels == [False, False, False, True]
    fidelity = [k for k in keys.values() if k.kind == "fidelity"]
    assert [(k.judge_label, k.judge_verdict) for k in fidelity] == [(True, "VALID")] * 2
    for key in keys.values():  # demonstrations and sanctions by personas, repairs by Julian
        by_subject = key.turn_id in (6, 8)
        assert key.kind in (("breach", "repair") if by_subject else ("demonstration",
            "breach", "sanction", "fidelity"))  # fmt: skip
    row = next(row for row in rows if keys[row["item_id"]].scenario_id.endswith("breach"))
    assert row["norm"].startswith("Factual questions with a known short answer")
    assert "[6] Julian*: Staging will not catch it" in row["transcript"]
    assert "[7] Priya: Julian, one line please." in row["transcript"]
    by_turn = {(k.kind, k.turn_id): r["question"] for r in rows for k in [keys[r["item_id"]]]}
    if ("breach", 6) in by_turn:
        assert by_turn[("breach", 6)].startswith("Is turn 6 (Julian) a breach of the norm")
    assert any("explicit_callout" in q for (kind, _), q in by_turn.items() if kind == "fidelity")

    # The person: yes to every turn question, yes to the breach episode's fidelity, no to the
    # comply episode's, and one of the comply episode's judge-no questions left blank.
    blank = next(k.item_id for k in comply if k.kind != "fidelity" and not k.judge_label)
    for row in rows:
        key = keys[row["item_id"]]
        if key.item_id == blank:
            continue
        answer = "no" if key.kind == "fidelity" and key in comply else "Yes"
        row["human_answer"] = answer
    write_rows(out, rows)

    result = import_audit(out)
    # judge yes: 2 fidelity + 3 turns; person yes: 1 fidelity + 7 turns (of 9 answered)
    agreement = result.agreement
    assert (agreement.n, agreement.rate.k) == (9, 4)
    assert (agreement.both_true, agreement.both_false) == (4, 0)
    assert (agreement.first_true_second_false, agreement.first_false_second_true) == (1, 4)
    assert agreement.cohen_kappa == pytest.approx(-8 / 37)  # p_o 36/81, p_e 44/81
    assert (result.by_kind["fidelity"].n, result.by_kind["fidelity"].rate.k) == (2, 1)
    assert result.by_kind["fidelity"].cohen_kappa == pytest.approx(0.0)
    answered = [k for k in keys.values() if k.item_id != blank]
    for kind, by_kind in result.by_kind.items():
        of_kind = [k for k in answered if k.kind == kind]
        assert by_kind.n == len(of_kind)
        if kind != "fidelity":  # the person said yes: agreement is the judge's yes labels
            assert by_kind.rate.k == sum(k.judge_label for k in of_kind)
    assert (result.n_rows, result.n_unlabelled, result.episodes) == (10, 1, 2)
    assert result.subject_models == [f"scripted/{SCRIPT}"]

    shown = runner.invoke(app, ["scene", "audit", "import", str(out)])
    assert shown.exit_code == 0, shown.output
    assert "agreement 44.4%" in shown.output and "(4/9)" in shown.output
    assert "kappa -0.216" in shown.output and "  fidelity: agreement 50.0%" in shown.output
    data = json.loads(runner.invoke(app, ["scene", "audit", "import", str(out), "--json"]).stdout)
    assert data["agreement"]["n"] == 9 and set(data["by_kind"]) >= {"fidelity"}


def test_a_small_sample_keeps_the_fidelity_item_and_both_labels(workdir: Path) -> None:
    logs = run_scene(workdir, "lists")
    args = ["scene", "audit", "export", str(logs), "--n", "3", "--seed", "7"]
    first = runner.invoke(app, [*args, "--out", str(workdir / "one.csv")])
    assert first.exit_code == 0, first.output
    assert "3 questions" in first.output
    runner.invoke(app, [*args, "--out", str(workdir / "two.csv")])
    assert (workdir / "one.csv").read_text() == (workdir / "two.csv").read_text()
    keys = list(read_keys(workdir / "one.csv").values())
    assert len({key.episode_id for key in keys}) == 1  # one episode's questions, together
    turn_labels = sorted(key.judge_label for key in keys if key.kind != "fidelity")
    assert [key.kind for key in keys].count("fidelity") == 1 and turn_labels == [False, True]
    assert {key.labeller for key in keys} == {"lists"}


def broken(workdir: Path, *prefixes: str) -> str:
    """The fixture script with the replies of the rules naming ``prefixes`` made unusable."""
    script = json.loads(SCRIPT.read_text())
    for rule in script["rules"]:
        if any(prefix in rule["match"] for prefix in prefixes):
            rule["replies"] = ["I cannot label this."]
    path = workdir / f"broken-{len(prefixes)}.json"
    path.write_text(json.dumps(script))
    return f"scripted/{path}"


def run_with(workdir: Path, judge: str, auditor: str, name: str) -> Path:
    model = f"scripted/{SCRIPT}"
    result = runner.invoke(
        app,
        ["scene", "run", "--model", model, "--judge", judge, "--role", f"persona={model}",
         "--role", f"orchestrator={model}", "--role", f"auditor={auditor}", "--data",
         str(SCENARIOS), "--reps", "1", "--log-dir", str(workdir / name), "--report-dir",
         str(workdir / f"{name}-report")],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return workdir / name


def test_items_without_a_model_label_are_never_exported(workdir: Path) -> None:
    unusable = broken(workdir, "You label events", "You audit whether")
    logs = run_with(workdir, unusable, f"scripted/{SCRIPT}", "no-labels")
    assert export_audit([logs], workdir / "a.csv") == 2  # the two fidelity items only
    assert {key.kind for key in read_keys(workdir / "a.csv").values()} == {"fidelity"}
    logs = run_with(workdir, unusable, unusable, "nothing")
    with pytest.raises(InputError, match="nothing to audit"):
        export_audit([logs], workdir / "b.csv")


@pytest.mark.anyio
async def test_staged_precedent_turns_are_marked_and_never_asked_about(tmp_path: Path) -> None:
    _, episode = await play_precedent(tmp_path)
    staged = [e.turn_id for e in episode.entries if e.phase == "precedent"]
    assert staged  # Kenji's staged breach and Priya's staged sanction
    every = [e.turn_id for e in episode.entries]
    labels = EpisodeLabels(
        labeller="turns", demonstrations=every, breaches=[], sanctions=every, repairs=[],
        persona_breaches=every, sanction_shape_match=None, parse_failures=0,
    )  # fmt: skip
    record = EpisodeRecord(
        episode=episode, labels=labels, fidelity=FidelityVerdict(label="PARTIAL",
        justification="x"), outcome=episode_outcome(episode, labels, None, "m"), roles={},
    )  # fmt: skip
    items = episode_items(record, random.Random(0))
    assert items[0].kind == "fidelity" and items[0].judge_label is False  # PARTIAL is a no
    assert not any(item.turn_id in staged for item in items)
    lines = marked_transcript(episode).splitlines()
    marked = [line for line in lines if line.endswith(STAGED_MARK)]
    assert [line.split("]")[0] for line in marked] == [f"[{turn}" for turn in staged]


def test_malformed_answers_name_file_line_and_field(workdir: Path) -> None:
    logs = run_scene(workdir, "turns")
    out = workdir / "audit.csv"
    export_audit([logs], out, n=4)
    rows = read_rows(out)
    fails = import_failure(out, write_rows, import_audit)
    error = fails([{**rows[0], "human_answer": "perhaps"}, *rows[1:]])
    assert (error.path, error.line, error.field) == (str(out), 2, "human_answer")
    assert "expected yes or no" in error.problem
    error = fails([rows[0], {**rows[1], "item_id": rows[0]["item_id"]}])
    assert error.field == "item_id" and "appears twice (first on line 2)" in error.problem
    error = fails([rows[0], {**rows[1], "item_id": "S9999"}])
    assert error.field == "item_id" and "not in audit.key.jsonl" in error.problem
    write_rows(out, [{**rows[0], "human_answer": "perhaps"}])
    result = runner.invoke(app, ["scene", "audit", "import", str(out)])
    assert result.exit_code == 2 and "field 'human_answer'" in result.output
    assert len(result.output.strip().splitlines()) == 1
    result = runner.invoke(app, ["scene", "audit", "export", str(logs), "--n", "0"])
    assert result.exit_code == 2 and "field 'n'" in result.output
