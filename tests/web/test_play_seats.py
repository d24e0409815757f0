"""Seats without a browser: several people play at once (issue 41, item 15), up to a bound
past which the page says to come back later, and a player's name is bounded (item 16).

Each seat's eval runs in a process of its own: Inspect refuses a second ``eval_async`` in one
process ("Multiple concurrent calls to eval_async are not allowed"), so a second player's seat
failed while the first was still playing."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from normlab.web import create_app, play
from normlab.web.guard import MAX_NAME
from normlab.web.play import Seat, Seats
from tests.web.conftest import local, settings_for
from tests.web.test_app import csrf

SEAT_SECONDS = 120
"""How long a seat may take to reach a state (a process starting on a busy 2-core machine)."""


def seat_form(client: TestClient, player: str) -> dict[str, str]:
    """The play form filled for ``player`` at the first LoSoNA item the page offers."""
    option = re.search(r'<option value="([^"]+)"', client.get("/play?system=losona").text)
    assert option
    token = csrf(client, "/play")
    return {"system": "losona", "player": player, "option": option.group(1), "csrf": token}


@pytest.fixture
def apps() -> Iterator[list[FastAPI]]:
    """The apps a test made; their seats' processes are stopped after it."""
    made: list[FastAPI] = []
    yield made
    for app in made:
        app.state.seats.close()


def served(apps: list[FastAPI], runs: Path, **changes: Any) -> FastAPI:
    app = create_app(settings_for(runs, **changes))
    apps.append(app)
    return app


def open_seat(app: FastAPI, player: str) -> tuple[TestClient, str]:
    """A browser of its own for ``player``, seated at the first LoSoNA item: (it, the seat)."""
    client = local(app)
    response = client.post("/play", data=seat_form(client, player), follow_redirects=False)
    assert response.status_code == 303, response.text
    return client, response.headers["location"]


def wait_for(client: TestClient, seat: str, *statuses: str) -> str:
    deadline = time.monotonic() + SEAT_SECONDS
    while True:
        status = str(client.get(f"{seat}/state").json()["status"])
        if status in statuses or status == "failed":
            return status
        assert time.monotonic() < deadline, f"{seat} still {status}"
        time.sleep(0.2)


def test_two_seats_play_at_once_each_to_its_own_verdict(runs: Path, apps: list[FastAPI]) -> None:
    """Both seats wait for their person at the same time; before seats had processes of their
    own, the second failed ("Multiple concurrent calls to eval_async are not allowed")."""
    app = served(apps, runs)
    seats = {player: open_seat(app, player) for player in ("ada", "bea")}
    for client, seat in seats.values():
        status = wait_for(client, seat, "your_turn")
        assert status == "your_turn", client.get(seat).text
    answers = {"ada": "check the wiki", "bea": "just run make deploy"}
    for player, (client, seat) in seats.items():
        token = csrf(client, seat)
        client.post(seat, data={"content": answers[player], "csrf": token})
    for client, seat in seats.values():
        assert wait_for(client, seat, "done") == "done", client.get(seat).text
    # The scripted judge finds the wiki in ada's answer only: each seat shows its own verdict.
    verdicts = {player: client.get(seat).text for player, (client, seat) in seats.items()}
    assert 'class="verdict">complies<' in verdicts["ada"]
    assert 'class="verdict">breaches<' in verdicts["bea"]


def test_past_the_bound_a_player_is_told_to_come_back(runs: Path, apps: list[FastAPI]) -> None:
    """With every seat taken, one more player gets a 503 that says so (and when to retry),
    and no seat or folder; a seat freed lets the next one in."""
    app = served(apps, runs, max_seats=1)
    client, seat = open_seat(app, "ada")
    other = local(app)
    busy = other.post("/play", data=seat_form(other, "bea"), follow_redirects=False)
    assert busy.status_code == 503
    assert "all 1 seats are taken" in busy.text and "try again" in busy.text
    assert busy.headers["retry-after"].isdigit()
    assert not (runs / "play" / "losona" / "bea").exists()
    assert wait_for(client, seat, "your_turn") == "your_turn"
    client.post(seat, data={"content": "check the wiki", "csrf": csrf(client, seat)})
    assert wait_for(client, seat, "done") == "done"
    open_seat(app, "bea")  # a place again


@pytest.mark.parametrize("length", [MAX_NAME + 1, 5000])
def test_a_player_name_past_the_raters_limit_is_a_400(
    runs: Path, apps: list[FastAPI], length: int
) -> None:
    """A 5,000-character name reached the seat's folder name ("File name too long" in the
    seat's thread); a name is capped as a rater's is."""
    app = served(apps, runs)
    client = local(app)
    response = client.post("/play", data=seat_form(client, "a" * length))
    assert response.status_code == 400
    assert f"name: at most {MAX_NAME} characters" in response.text
    assert f'maxlength="{MAX_NAME}"' in client.get("/play?system=losona").text  # the form says so
    assert not (runs / "play").exists()


@pytest.fixture
def seats(runs: Path) -> Iterator[Seats]:
    """Seats of one place over ``runs``, closed after the test."""
    settings = settings_for(runs)
    made = Seats(runs, settings.judge, [], settings.play, max_seats=1)
    yield made
    made.close()


def playing(seats: Seats) -> Seat:
    """A LoSoNA seat for ada, waiting for her."""
    seat = seats.open("losona", "ada", seats.options("losona")[0].id)
    deadline = time.monotonic() + SEAT_SECONDS
    while seat.status != "your_turn":
        assert seat.status == "starting" and time.monotonic() < deadline, seat.error
        time.sleep(0.2)
    return seat


def test_a_seat_nobody_answers_is_closed_and_frees_its_place(
    seats: Seats, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An abandoned tab would hold one of the places until the server stopped."""
    seat = playing(seats)
    process = seat._process
    assert process is not None
    monkeypatch.setattr(play, "IDLE_SECONDS", 0)
    deadline = time.monotonic() + SEAT_SECONDS
    while not seat.finished:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert seat.status == "failed" and "nobody answered for 0 minutes" in seat.error
    assert not process.process.is_alive()
    seats.open("losona", "bea", seats.options("losona")[0].id)  # the place is free again


def test_a_seat_whose_process_dies_says_so_on_one_line(seats: Seats) -> None:
    seat = playing(seats)
    assert seat._process is not None
    seat._process.process.kill()
    deadline = time.monotonic() + SEAT_SECONDS
    while not seat.finished:
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert seat.error == (
        "the seat's process ended unexpectedly (exit code -9); the server's log may say why"
    )
    seat._process.answer("an answer sent as it died")  # no error: the page says it ended


def test_a_server_that_stops_ends_its_seats(runs: Path) -> None:
    """The app's lifespan closes the seats still playing: their processes end with it."""
    app = create_app(settings_for(runs))
    with local(app) as client:
        response = client.post("/play", data=seat_form(client, "ada"), follow_redirects=False)
        seat_id = response.headers["location"].rsplit("/", 1)[-1]
        assert wait_for(client, f"/play/{seat_id}", "your_turn") == "your_turn"
    seat = app.state.seats.get(seat_id)
    assert seat.status == "failed" and seat.error == "the server stopped"
    assert not seat._process.process.is_alive()
