"""``normlab serve``'s play options name no system (issue 33, item 2): ``--play-bank SYSTEM=PATH``
and ``--play-length SYSTEM=N`` take any system that can be played, their help lists those
systems from their parts, and ``/play`` opens on the first of them in the specs' order.

They replace ``--losona-data``, ``--scene-data``, ``--hsii-cases``, ``--scene-rounds`` and
``--hsii-epsilon``, which named three systems in the web app's command."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app as cli_app
from normlab.runs.people import Play, PlayLength
from normlab.web import create_app, play
from normlab.web.play import PlayConfig, PlayKind, play_kinds
from normlab.web.settings import ServeSettings
from tests.web.conftest import local

WIDE = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}


def serve(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[Any, list[ServeSettings]]:
    """``normlab serve ARGS`` up to the app it would make: (the result, its settings)."""
    import uvicorn

    import normlab.web.app

    made: list[ServeSettings] = []
    monkeypatch.setattr(normlab.web.app, "create_app", lambda settings: made.append(settings))
    monkeypatch.setattr(uvicorn, "run", lambda app, **_: None)
    return CliRunner().invoke(cli_app, ["serve", *args]), made


def test_banks_and_lengths_reach_the_play_config(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    scenarios, cases = tmp_path / "scenarios.jsonl", tmp_path / "cases"
    scenarios.touch()
    cases.mkdir()
    result, made = serve(
        monkeypatch,
        "--runs", str(tmp_path),
        "--play-bank", f"losona={scenarios}",
        "--play-bank", f" hsii = {cases}",
        "--play-length", "scene=3",
        "--play-length", "hsii=2",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    (settings,) = made
    assert settings.play == PlayConfig(
        banks={"losona": scenarios, "hsii": cases}, lengths={"scene": 3, "hsii": 2}
    )
    result, made = serve(monkeypatch, "--runs", str(tmp_path))
    assert result.exit_code == 0 and made[0].play == PlayConfig()  # each system's own
    assert made[0].max_seats == play.MAX_SEATS
    result, made = serve(monkeypatch, "--runs", str(tmp_path), "--max-seats", "3")
    assert result.exit_code == 0 and made[0].max_seats == 3


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--play-bank", "nosuch=x"], "--play-bank: no system 'nosuch' here (one of: losona, "),
        (["--play-bank", "crsec=x"], "no system 'crsec' here"),  # a simulation, not played
        (["--play-bank", "losona"], "--play-bank: expected SYSTEM=PATH, got 'losona'"),
        (["--play-bank", "losona="], "expected SYSTEM=PATH, got 'losona='"),
        (["--play-bank", "=x"], "expected SYSTEM=PATH"),
        (["--play-bank", "losona=missing.jsonl"], "losona=missing.jsonl: no such file or folder"),
        (["--play-length", "losona=3"], "--play-length: no system 'losona' here (one of: scene, "),
        (["--play-length", "scene"], "--play-length: expected SYSTEM=N, got 'scene'"),
        (["--play-length", "scene=0"], "--play-length: scene=0: N is a whole number of 1 or more"),
        (["--play-length", "scene=-2"], "scene=-2: N is a whole number of 1 or more"),
        (["--play-length", "scene=two"], "scene=two: N is a whole number"),
        (["--play-length", "scene=2.5"], "scene=2.5: N is a whole number"),
        (["--play-length", "hsii=3", "--play-length", "hsii=4"], "hsii given twice (3, 4)"),
        (["--play-bank", "hsii=.", "--play-bank", "hsii=.."], "--play-bank: hsii given twice"),
    ],
)
def test_a_bad_play_option_is_one_line_naming_it(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, args: list[str], said: str
) -> None:
    monkeypatch.chdir(tmp_path)
    result, made = serve(monkeypatch, "--runs", str(tmp_path), *args)
    assert result.exit_code == 2 and not made, result.output
    (line,) = result.output.splitlines()
    assert line.startswith("normlab: error: --play-") and said in line, line


def test_the_old_per_system_options_are_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    """No hidden aliases: they would keep three systems' names in the command."""
    for option in ("--losona-data", "--scene-data", "--hsii-cases"):
        result, made = serve(monkeypatch, option, "x")
        assert result.exit_code == 2 and not made and "No such option" in result.output
    for option in ("--scene-rounds", "--hsii-epsilon"):
        result, made = serve(monkeypatch, option, "3")
        assert result.exit_code == 2 and not made and "No such option" in result.output


def _help(monkeypatch: pytest.MonkeyPatch) -> str:
    result = CliRunner().invoke(cli_app, ["serve", "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    return " ".join(result.output.split())


def test_the_help_lists_the_playable_systems_and_what_a_length_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    text = _help(monkeypatch)
    assert "--play-bank SYSTEM=PATH" in text and "--play-length SYSTEM=N" in text
    assert "losona (scenarios), scene (scenarios), hsii (cases)" in text
    assert (
        "scene, rounds per episode (default 8); hsii, turns of the long run ε (default 7)" in text
    )
    assert "crsec" not in text  # a simulation: nobody plays it


def test_the_help_follows_the_systems_parts_not_a_list_of_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A fifth playable system shows up in the help with nothing else changed."""
    kinds = play_kinds()
    fifth = kinds["hsii"]
    renamed = PlayKind(
        "fifth",
        fifth.roles,
        fifth.parts,
        Play(
            "Fifth",
            fifth.play.options,
            "dialogues",
            fifth.play.sample,
            PlayLength(4, "moves per game"),
        ),
    )
    monkeypatch.setattr(play, "play_kinds", lambda: {"losona": kinds["losona"], "fifth": renamed})
    text = _help(monkeypatch)
    assert "losona (scenarios), fifth (dialogues)." in text
    assert "what N counts: fifth, moves per game (default 4)." in text
    assert "hsii" not in text and "scene" not in text


def test_play_opens_on_the_first_playable_system_in_the_specs_order(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``/play`` defaulted to ``"losona"``: without LoSoNA among the playable systems (or with
    a system placed before it), the page was a 404."""
    import normlab.web.play_routes

    client = local(create_app(ServeSettings(runs=tmp_path, state=tmp_path / ".normlab")))
    first = next(iter(play_kinds()))
    assert client.get("/play").text == client.get("/play", params={"system": first}).text
    without = {name: kind for name, kind in play_kinds().items() if name != first}
    monkeypatch.setattr(normlab.web.play_routes, "play_kinds", lambda: without)
    page = client.get("/play")
    second = next(iter(without))
    assert page.status_code == 200, page.text
    assert f'name="system" value="{second}"' in page.text
    assert client.get("/play", params={"system": first}).status_code == 404
