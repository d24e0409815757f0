"""Unanswered observations per hour, worked out by hand (issue 31, item 10).

The paper runs DetectConflict + DecideToTalk on each observation: "Y_conflict ∈ {T, F} ←
DetectConflict(O_S, P_S)" (§2.2, Figure 8). An observation whose reply left it out, or whose
call never gave a reply that parsed, was never judged: it is neither a conflict nor "no
conflict". The simulation writes it as a row ``{"observed", "observation", "answered": false}``,
counts it per hour beside the conflicts (``HourCounter``, the counter of ``metrics.jsonl``,
``crsec analyze --json`` and the report), and a row that is neither (a finding missing
``conflict`` or ``talk``) is a one-line error, never an unanswered row by default.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import InputError
from normlab.crsec.sim.events import DetectEvent, Finding, Unanswered, parse_event
from normlab.crsec.sim.rundir import RunDir
from normlab.crsec.sim.world import initial_state
from tests.crsec.support import config, new_run, write_script

BOB, TAMARA, CARLOS = "Bob Johnson", "Tamara Rodriguez", "Carlos Gomez"
SMOKES = "Carlos Gomez is smoking at a table (at Hobbs Cafe)"


def finding(observed: str, observation: str, conflict: bool, talk: bool) -> dict[str, Any]:
    topic = "a norm" if conflict else ""
    return {"observed": observed, "observation": observation, "conflict": conflict,
            "talk": talk, "topic": topic}  # fmt: skip


def unanswered(observed: str, observation: str) -> dict[str, Any]:
    return {"observed": observed, "observation": observation, "answered": False}


def hour_end(tick: int, hour: int, label: str) -> tuple[int, str, str, dict[str, Any]]:
    agents = {name: {"plan": "drink coffee"} for name in (BOB, TAMARA, CARLOS)}
    return (tick, "hour", "", {"hour": hour, "label": label, "agents": agents})


def write_run(folder: Path, judge: str) -> None:
    """A finished two-hour run of :data:`LOG`, written by the run directory's own writer."""
    run = new_run(folder, config(model=judge, agents=[BOB, TAMARA, CARLOS], hours=(9, 11)))
    events = []
    for seq, (tick, kind, agent, data) in enumerate(LOG, start=1):
        minute = 9 * 60 + 5 * tick
        time = f"day 1 {minute // 60:02d}:{minute % 60:02d}"
        row = {"seq": seq, "tick": tick, "time": time, "kind": kind, "agent": agent, "data": data}
        events.append(parse_event(row))
    state = initial_state(run.config())
    state.tick, state.created, state.finished = 24, True, True
    run.save(state, events, [])


LOG: list[tuple[int, str, str, dict[str, Any]]] = [
    # --- hour 1 ---
    # Bob's batched call saw 3 observations and answered only the first (a conflict):
    # conflicts 1, unanswered 2.
    (1, "detect", BOB, {"findings": [
        finding(CARLOS, SMOKES, True, False),
        unanswered(TAMARA, "Tamara Rodriguez is reading (at Hobbs Cafe)"),
        unanswered(CARLOS, "Carlos Gomez is humming (at Hobbs Cafe)")]}),
    # Tamara (--faithful: one call per observation): the first says no conflict, the second
    # never parsed: unanswered 1.
    (2, "detect", TAMARA, {"findings": [
        finding(BOB, "Bob Johnson is drinking coffee (at Hobbs Cafe)", False, False),
        unanswered(CARLOS, SMOKES)]}),
    hour_end(11, 0, "day 1 09:00–10:00"),
    # --- hour 2 ---
    # Bob's reply never parsed: both observations unanswered (2); Carlos's one conflict, talk.
    (13, "detect", BOB, {"findings": [
        unanswered(TAMARA, "Tamara Rodriguez is singing (at Hobbs Cafe)"),
        unanswered(CARLOS, SMOKES)]}),
    (14, "detect", CARLOS, {"findings": [
        finding(TAMARA, "Tamara Rodriguez is singing (at Hobbs Cafe)", True, True)]}),
    hour_end(23, 1, "day 1 10:00–11:00"),
]  # fmt: skip


def test_unanswered_observations_per_hour_in_analyze_json_and_the_report(tmp_path: Path) -> None:
    judge = write_script(
        tmp_path,
        [
            ("You compare an agent's personal norm", [{"matches": []}]),
            ("You judge whether an agent complied", [{"verdicts": []}]),
        ],
    )
    write_run(tmp_path / "run", judge)
    assert len(list(RunDir(tmp_path / "run").events())) == len(LOG)
    runner = CliRunner()
    result = runner.invoke(app, ["crsec", "analyze", str(tmp_path / "run"), "--json"])
    assert result.exit_code == 0, result.output
    analysis = json.loads(result.stdout)
    counts = analysis["runs"][0]["counts"]
    # hour 1: Bob 2 + Tamara 1 = 3 unanswered; conflicts: Bob's 1 = 1.
    # hour 2: Bob 2 = 2 unanswered; conflicts: Carlos's 1 = 1.
    assert [hour["unanswered"] for hour in counts] == [3, 2]
    assert [hour["conflicts"] for hour in counts] == [1, 1]
    assert [band["mean"] for band in analysis["groups"][0]["counts"]["unanswered"]] == [3.0, 2.0]
    result = runner.invoke(app, ["crsec", "report", str(tmp_path / "run"), "--out",
                                 str(tmp_path / "report")])  # fmt: skip
    assert result.exit_code == 0, result.output
    page = (tmp_path / "report" / "report.html").read_text()
    assert "unanswered observations" in page


def detect_line(findings: list[dict[str, Any]]) -> dict[str, Any]:
    return {"seq": 1, "tick": 0, "time": "day 1 09:00", "kind": "detect", "agent": BOB,
            "data": {"findings": findings}}  # fmt: skip


@pytest.mark.parametrize("missing", ["conflict", "talk", "observed", "observation"])
def test_a_finding_missing_a_field_is_one_error_naming_it(missing: str) -> None:
    row = finding(CARLOS, SMOKES, True, True)
    del row[missing]
    with pytest.raises(InputError) as error:
        parse_event(detect_line([unanswered(BOB, "Bob is here"), row]), Path("e.jsonl"), 7)
    assert error.value.one_line().startswith(f"e.jsonl:7: field 'data.findings.1.{missing}': ")


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"content": "No smoking.", "type": "injunctive", "id": 1, "mode": "merged",
          "utility": 80}, "data.qualified"),  # an assessed item without its verdict
        ({"content": "No smoking.", "type": "injunctive", "skipped": 3}, "data.skipped"),
        ({"type": "injunctive", "skipped": "same words as #1"}, "data.content"),
    ],
)  # fmt: skip
def test_an_evaluate_line_missing_a_field_is_one_error_naming_it(
    data: dict[str, Any], field: str
) -> None:
    line = {"seq": 1, "tick": 0, "time": "t", "kind": "evaluate", "agent": BOB, "data": data}
    with pytest.raises(InputError) as error:
        parse_event(line, Path("e.jsonl"), 2)
    assert error.value.one_line().startswith(f"e.jsonl:2: field '{field}': ")


ROWS = st.lists(
    st.one_of(
        st.builds(finding, st.sampled_from([BOB, TAMARA, CARLOS]), st.text(min_size=1),
                  st.booleans(), st.booleans()),
        st.builds(unanswered, st.sampled_from([BOB, TAMARA, CARLOS]), st.text(min_size=1)),
    ),
    max_size=8,
)  # fmt: skip


@given(rows=ROWS, seed=st.randoms(use_true_random=False))
def test_rows_parse_to_their_kind_whatever_the_key_order(
    rows: list[dict[str, Any]], seed: Any
) -> None:
    shuffled = []
    for row in rows:
        keys = list(row)
        seed.shuffle(keys)
        shuffled.append({key: row[key] for key in keys})
    event = parse_event(detect_line(shuffled))
    assert isinstance(event, DetectEvent)
    kinds = [Unanswered if row.get("answered") is False else Finding for row in rows]
    assert [type(parsed) for parsed in event.data.findings] == kinds
    # and the typed rows write back the lines they were read from
    assert event.model_dump(mode="json")["data"]["findings"] == rows
