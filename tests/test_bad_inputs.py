"""The user study's bad inputs (issue 12): each ends in one line on stderr naming the file,
exit 2, and never a traceback; the silent passes it found are errors now; user text prints
literally."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core import evalrun
from normlab.core.csvio import csv_rows
from normlab.core.errors import InputError, OutputError, RunIncompleteError
from normlab.core.evalrun import failure_reason, run_task
from normlab.core.jsonio import read_collection, read_jsonl_rows
from normlab.core.outputs import output_folder
from normlab.core.yamlio import read_yaml
from normlab.crsec.sim.society import HOBBS_CAFE
from normlab.losona.dataset import load_scenarios
from normlab.runs.console import reports_errors
from normlab.scene.dataset import SCENARIOS_PATH as SCENE_SCENARIOS
from tests.helpers.inputs import losona_trial as trial

TESTS = Path(__file__).parent
LOSONA_SCENARIOS = TESTS / "losona" / "fixtures" / "scenarios.jsonl"


def fails_on_one_line(args: list[str], *named: str) -> str:
    """Run ``normlab ARGS``: exit 2, one ``normlab: error:`` line on stderr naming ``named``."""
    result = CliRunner().invoke(app, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("normlab: error: "), lines[0]
    for name in named:
        assert name in lines[0], lines[0]
    return lines[0]


def rows(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def write_rows(path: Path, data: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in data), encoding="utf-8")
    return path


# --- bytes no loader could read ----------------------------------------------------------


def test_a_byte_that_is_not_utf8_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "scenarios.jsonl"
    path.write_bytes(LOSONA_SCENARIOS.read_bytes() + b'{"scenario_id": "caf\xe9"}\n')
    line = fails_on_one_line(["losona", "validate", str(path)], f"{path}:3:", "not UTF-8")
    assert "0xe9" in line


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested more than 100 levels deep"),
        ('{"scenario_id": ' + "9" * 5000 + "}", "a number has more than 4300 digits"),
        ('{"scenario_id": "a", "scenario_id": "b"}', "field 'scenario_id': key appears twice"),
    ],
    ids=["deep-nesting", "5000-digit-number", "repeated-key"],
)
def test_json_past_pythons_limits_is_an_input_error(
    tmp_path: Path, text: str, problem: str
) -> None:
    path = tmp_path / "scenarios.jsonl"
    path.write_text(text + "\n")
    for system in ("losona", "scene", "hsii"):
        fails_on_one_line([system, "validate", str(path)], f"{path}:1:", problem)


def test_a_lone_surrogate_in_an_id_is_rejected_before_anything_prints_it(tmp_path: Path) -> None:
    for system, source in (("losona", LOSONA_SCENARIOS), ("scene", SCENE_SCENARIOS)):
        data = rows(source)[:2]
        text = "".join(json.dumps(row) + "\n" for row in data)
        path = tmp_path / f"{system}.jsonl"
        path.write_text(text.replace('"scenario_id": "', '"scenario_id": "\\ud800', 1))
        fails_on_one_line(
            [system, "validate", str(path)], f"{path}:1:", "field 'scenario_id'", "lone surrogate"
        )


def test_unicode_line_separators_inside_a_string_are_not_line_breaks(tmp_path: Path) -> None:
    """JSONL splits at \\n only: U+2028 may stand unescaped in a JSON string."""
    path = tmp_path / "rows.jsonl"
    path.write_text('{"id": "a\u2028b"}\n{"id": "c"}\n', encoding="utf-8")
    assert [row["id"] for _, row in read_jsonl_rows(path)] == ["a\u2028b", "c"]


def test_blank_ids_are_errors(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "rows.jsonl", [{"id": "a"}, {"id": "  "}])
    with pytest.raises(InputError, match=r"rows.jsonl:2: field 'id': id is blank"):
        read_collection(path, lambda row, file, line: row, lambda row: str(row["id"]), "id")


def test_yaml_nested_past_the_recursion_limit_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "society.yaml"
    path.write_text("places: " + "[" * 1100 + "]" * 1100 + "\n")
    with pytest.raises(InputError, match="nested more than 100 levels deep"):
        read_yaml(path)
    path.write_text("home: &a [*a]\n")  # an alias inside itself: infinitely deep
    with pytest.raises(InputError, match="nested more than 100 levels deep"):
        read_yaml(path)


# --- CSV files people fill in -------------------------------------------------------------


def test_a_byte_order_mark_does_not_hide_the_first_column(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_bytes(b"\xef\xbb\xbfitem_id,score\r\nA1,5\r\n")
    assert list(csv_rows(path, ["item_id"])) == [(2, {"item_id": "A1", "score": "5"})]


def test_an_unterminated_quote_is_an_error_at_its_row(tmp_path: Path) -> None:
    path = tmp_path / "audit.csv"
    path.write_text('item_id,human_complies\nA1,yes\nA2,"no\nA3,yes\n')
    with pytest.raises(InputError, match=r"audit.csv:3: a quoted cell .* never closed"):
        list(csv_rows(path, ["item_id"]))
    keys = [{"item_id": f"A{n}", "record": trial("m", "s1", n, True)} for n in (1, 2, 3)]
    write_rows(tmp_path / "audit.key.jsonl", keys)
    fails_on_one_line(["losona", "audit", "import", str(path)], f"{path}:3:", "never closed")


def test_a_ten_megabyte_cell_is_an_error_at_its_row(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("questionnaire,module,score\nq1,Creation,5\nq1,Plan," + "7" * 10_000_000)
    line = fails_on_one_line(
        ["crsec", "questionnaire", "import", str(path)], f"{path}:3:", "longer than"
    )
    assert len(line) < 300


def test_a_score_python_calls_a_digit_but_cannot_read_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("questionnaire,module,score\nq1,Creation,²\n", encoding="utf-8")
    fails_on_one_line(["crsec", "questionnaire", "import", str(path)], f"{path}:2", "'²'")


def test_a_repeated_column_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "ratings.csv"
    path.write_text("questionnaire,module,score,score\nq1,Creation,5,6\n")
    with pytest.raises(InputError, match=r"ratings.csv:1: field 'score': column appears twice"):
        list(csv_rows(path, ["score"]))


# --- silent passes ------------------------------------------------------------------------


def test_strict_booleans_in_trial_records(tmp_path: Path) -> None:
    for value in (1, "yes"):
        path = write_rows(tmp_path / "trials.jsonl", [trial("m", "s1", 1, value)])
        fails_on_one_line(
            ["losona", "analyze", str(path)], f"{path}:1:", "field 'complies'", "valid boolean"
        )


def test_strict_booleans_in_a_society_file(tmp_path: Path) -> None:
    society = json.loads(HOBBS_CAFE.read_text(encoding="utf-8"))
    society["places"][0]["indoor"] = "yes"
    path = tmp_path / "society.json"
    path.write_text(json.dumps(society))
    fails_on_one_line(
        ["crsec", "run", "--society", str(path), "--out", str(tmp_path / "run")],
        str(path),
        "field 'places.0.indoor'",
    )


def test_scene_validate_rejects_repeated_turn_ids_and_an_empty_id(tmp_path: Path) -> None:
    scenario = rows(SCENE_SCENARIOS)[0]
    transcript = scenario["scaffold"]["transcript"]
    transcript["elicitor_turn"]["turn_id"] = transcript["opening_turns"][0]["turn_id"]
    path = write_rows(tmp_path / "repeated.jsonl", [scenario])
    fails_on_one_line(
        ["scene", "validate", str(path)], f"{path}:1:", "scaffold.transcript", "duplicate turn_id"
    )
    path = write_rows(
        tmp_path / "empty-id.jsonl", [{**rows(SCENE_SCENARIOS)[0], "scenario_id": ""}]
    )
    fails_on_one_line(["scene", "validate", str(path)], f"{path}:1:", "field 'scenario_id'")


def test_validate_on_an_empty_file_or_folder_is_an_error(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    folder = tmp_path / "folder"
    folder.mkdir()
    for system in ("losona", "scene", "hsii"):
        fails_on_one_line([system, "validate", str(empty)], str(empty))
        fails_on_one_line([system, "validate", str(folder)], str(folder))


def test_analyze_on_nothing_is_an_error_naming_the_path(tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    empty = tmp_path / "trials.jsonl"
    empty.write_text("\n")
    for system in ("losona", "scene", "hsii"):
        fails_on_one_line([system, "analyze", str(folder)], str(folder), "no logs or records")
        fails_on_one_line([system, "report", str(folder), "--out", str(tmp_path)], str(folder))
    for system in ("losona", "hsii"):
        fails_on_one_line([system, "analyze", str(empty)], str(empty), f"no {system}")


@pytest.mark.parametrize("limit", ["0", "-1"])
def test_limits_below_one_are_rejected(limit: str, tmp_path: Path) -> None:
    log_dir = str(tmp_path / "logs")
    fails_on_one_line(["losona", "run", "--limit", limit, "--log-dir", log_dir], "--limit")
    fails_on_one_line(["hsii", "run", "--limit", limit, "--log-dir", log_dir], "--limit")
    fails_on_one_line(["scene", "run", "--tuples", limit, "--log-dir", log_dir], "--tuples")
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    "args",
    [
        ["losona", "run", "--epochs", "0"],
        ["losona", "generate", "--event", "bug_report", "--norm", "x", "--count", "0"],
        ["losona", "screen", "CANDIDATES", "--samples", "0"],
        ["losona", "audit", "export", "TRIALS", "--n", "-1"],
        ["scene", "tuples", "--sample", "3", "--reps", "0"],
        ["scene", "generate", "--repairs", "-1"],
        ["crsec", "run", "--runs", "0"],
        ["crsec", "run", "--max-calls", "-1"],
        ["crsec", "run", "--max-utterances", "0"],
        ["crsec", "questionnaire", "export", "RUN", "--out", "q", "--pairs", "0"],
    ],
    ids=lambda args: " ".join(args[:2] + args[-2:-1]),
)
def test_option_values_out_of_range_are_one_line(args: list[str], workdir: Path) -> None:
    write_rows(workdir / "TRIALS", [trial("m", "s1", 1, True)])
    write_rows(workdir / "CANDIDATES", rows(LOSONA_SCENARIOS))
    fails_on_one_line(args)
    assert not (workdir / "runs").exists()


def test_an_official_row_whose_chat_uses_every_default_name_gets_a_participant_subject(
    tmp_path: Path,
) -> None:
    row = rows(LOSONA_SCENARIOS)[0]
    names = ["Alex", "Sam", "Jordan", "Riley", "Casey", "Robin"]
    for turn in row["transcript"]:
        turn["actor"] = names[turn["turn_id"] % len(names)]
    row["transcript"] += [
        {"turn_id": 100 + index, "actor": name, "content": "hi"} for index, name in enumerate(names)
    ]
    row["transcript"].append({"turn_id": 200, "actor": "Alex", "content": "which version?"})
    row["elicitor_turn_id"] = 200
    required = ("scenario_id", "event_id", "norm_id", "norm_statement", "transcript")
    official = {key: row[key] for key in (*required, "elicitor_turn_id")}
    (scenario,) = load_scenarios(write_rows(tmp_path / "official.jsonl", [official]))
    assert scenario.subject == "Participant 1"


# --- output paths ------------------------------------------------------------------------


def test_a_log_dir_under_a_file_fails_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("")
    fails_on_one_line(
        ["losona", "run", "--log-dir", str(blocker / "logs"), "--limit", "1"],
        f"{blocker / 'logs'}: --log-dir: {blocker} is a file",
    )
    fails_on_one_line(
        ["losona", "run", "--log-dir", str(tmp_path / "logs"), "--report-dir", str(blocker)],
        f"{blocker}: --report-dir names a file",
    )


def test_an_out_under_a_file_fails_on_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "notes.txt"
    blocker.write_text("")
    trials = write_rows(tmp_path / "trials.jsonl", [trial("m", "s1", 1, True)])
    out = blocker / "report"
    fails_on_one_line(["losona", "report", str(trials), "--out", str(out)], str(out), "is a file")
    out = blocker / "audit.csv"
    fails_on_one_line(
        ["losona", "audit", "export", str(trials), "--out", str(out)], str(out), "is a file"
    )
    fails_on_one_line(["losona", "export", "--out", str(blocker)], str(blocker), "names a file")


def test_a_read_only_folder_is_an_output_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Permission bits do not stop root, so the refusal is the operating system's, injected."""

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr("normlab.core.outputs.tempfile.TemporaryFile", refuse)
    with pytest.raises(
        OutputError, match=r"logs: --log-dir: cannot write here \(Permission denied"
    ):
        output_folder(tmp_path / "logs", "--log-dir")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_report_folder_fails_on_one_line(tmp_path: Path) -> None:
    trials = write_rows(tmp_path / "trials.jsonl", [trial("m", "s1", 1, True)])
    out = tmp_path / "read-only"
    out.mkdir()
    out.chmod(0o555)
    try:
        fails_on_one_line(["losona", "report", str(trials), "--out", str(out)], str(out))
    finally:
        out.chmod(0o755)


@pytest.mark.parametrize(
    ("error", "line"),
    [
        (PermissionError(errno.EACCES, "Permission denied", "/r/report.html"), "/r/report.html: "
         "Permission denied"),
        (OSError(errno.ENOSPC, "No space left on device"), "No space left on device"),
        (NotADirectoryError(errno.ENOTDIR, "Not a directory", "/f/x"), "/f/x: Not a directory"),
    ],
)  # fmt: skip
def test_an_oserror_writing_outputs_is_one_line_with_exit_2(
    error: OSError, line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    @reports_errors
    def command() -> None:
        raise error

    with pytest.raises(SystemExit) as exit_info:
        command()
    assert exit_info.value.code == 2
    assert capsys.readouterr().err == f"normlab: error: {line}\n"


def test_a_network_oserror_keeps_its_traceback() -> None:
    @reports_errors
    def command() -> None:
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")

    with pytest.raises(ConnectionRefusedError):
        command()


def test_a_failed_eval_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk used to read "eval did not complete" and nothing more."""
    failed = SimpleNamespace(
        status="error",
        location=str(tmp_path / "x.eval"),
        error=SimpleNamespace(message="OSError(28, 'No space left on device')\n  more"),
    )
    monkeypatch.setattr(evalrun, "eval_set", lambda **kwargs: (False, [failed]))
    with pytest.raises(RunIncompleteError, match="did not complete: No space left on device"):
        run_task(object(), tmp_path / "logs", "m", {})  # type: ignore[arg-type]
    assert failure_reason("RuntimeError('boom')\nTraceback …") == "RuntimeError('boom')"


def test_a_log_folder_that_fills_while_inspect_writes_its_manifest_is_named(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full disk in the middle of Inspect's ``logs.json`` write raises an OSError that names
    no file: the run printed "No space left on device" and nothing to say where."""
    import inspect_ai._eval.evalset as evalset

    def full(*_: object, **__: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(evalset, "write_log_dir_manifest", full)
    fixtures = Path(__file__).parent / "losona" / "fixtures"
    script = f"scripted/{fixtures / 'script.json'}"
    logs = workdir / "logs"
    result = CliRunner().invoke(
        app,
        ["losona", "run", "--model", script, "--judge", script, "--epochs", "1",
         "--data", str(fixtures / "scenarios.jsonl"), "-c", "naive", "--log-dir", str(logs)],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert f"{logs}: No space left on device" in result.output, result.output
    assert "Traceback" not in result.output


def test_epochs_given_as_text_is_one_line() -> None:
    """``inspect eval normlab/losona -T epochs=three`` gave the task the text "three"; comparing
    it with 1 raised a TypeError."""
    from normlab.losona import losona

    for value in ("three", "3", 2.5, True):
        with pytest.raises(InputError, match="K must lie between 1 and 100"):
            losona(epochs=value)  # type: ignore[arg-type]


def test_an_unclosed_quote_in_a_news_csv_is_named_at_its_line(tmp_path: Path) -> None:
    """The csv module closed the quote at the end of the file, swallowing every row after it
    into one cell: the error read "no text in column 'text'"."""
    corpus = tmp_path / "news.csv"
    corpus.write_text(
        "id,title,text\n"
        "n1,Flood,Rivers rose across the valley overnight.\n"
        'n2,Storm,"Winds reached 90 km/h, the text goes on\n'
        "n3,Calm,The weekend will be dry.\n",
        encoding="utf-8",
    )
    args = ["hsii", "news", "search", "--keywords", "flood", "--corpus", str(corpus)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2, result.output
    (line,) = [line for line in result.output.splitlines() if line.strip()]
    assert f"{corpus}:3: a quoted cell in the row starting here is never closed" in line


# --- user text is text, never markup ------------------------------------------------------


def test_model_names_that_look_like_markup_print_literally(tmp_path: Path) -> None:
    data = [
        trial(model, scenario, number, number % 2 == 0)
        for model in ("[/bold]", "[red]x[/red]")
        for scenario in ("s1", "s2")
        for number in (1, 2, 3)
    ]
    path = write_rows(tmp_path / "trials.jsonl", data)
    result = CliRunner().invoke(app, ["losona", "analyze", str(path)])
    assert result.exit_code == 0, result.output
    assert "[/bold]" in result.stdout
    assert "[red]x[/red]" in result.stdout
