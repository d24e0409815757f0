"""The play pages: a person takes the subject's seat in a LoSoNA, SCENE or HSII episode
(``normlab.web.play`` runs the seat), owner only (the router's ``OwnerOnly``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from normlab.web.guard import MAX_NAME
from normlab.web.pages import OwnerOnly, Pages, PagesDep, found
from normlab.web.play import RETRY_SECONDS, Seat, SeatsFull, play_kinds
from normlab.web.readers import load, sample_label, system_of


def _verdicts(seat: Seat) -> list[tuple[str, str]]:
    """(what was played, the judge's verdict) of each sample in the seat's log, as the run
    page lists them: the person sees their own result where they played."""
    logs = [load(path) for path in sorted(seat.log_dir.glob("*.eval"))]
    return [
        sample_label(system_of(log), log, sample) for log in logs for sample in log.samples or []
    ]


router = APIRouter(dependencies=[OwnerOnly])


def _seat(pages: Pages, seat_id: str) -> Seat:
    return found(pages.seats.get(seat_id), "no such seat (seats end when the server stops)")


@router.get("/play")
def play_index(request: Request, pages: PagesDep, system: str | None = None) -> HTMLResponse:
    """The play page of ``system``; without one, of the first system that can be played
    in the specs' order (``SystemSpec.position``), as the page's list shows them."""
    chosen = system or next(iter(play_kinds()), "")
    if chosen not in play_kinds():
        raise HTTPException(404, "no such system")
    return pages.page(
        request,
        "play_index.html",
        kinds=play_kinds(),
        system=chosen,
        options=pages.seats.options(chosen),
        max_name=MAX_NAME,
    )


@router.post("/play")
async def play_open(request: Request, pages: PagesDep) -> Response:
    data = await pages.form(request)
    system = str(data.get("system", ""))
    if system not in play_kinds():
        raise HTTPException(400, "choose a system")
    try:  # the name and the option are checked there (400 through NormlabError)
        seat = pages.seats.open(system, str(data.get("player", "")), str(data.get("option", "")))
    except SeatsFull as full:
        retry = {"Retry-After": str(RETRY_SECONDS)}
        raise HTTPException(503, str(full), headers=retry) from None
    return RedirectResponse(f"/play/{seat.id}", status_code=303)


@router.get("/play/{seat_id}")
def play_seat(request: Request, pages: PagesDep, seat_id: str) -> HTMLResponse:
    seat = _seat(pages, seat_id)
    play = play_kinds()[seat.system].play
    characters = play.characters(seat.messages) if play.characters is not None else None
    report = seat.log_dir / "report.html"
    report_link = (
        str(report.relative_to(pages.settings.runs))
        if seat.status == "done" and report.exists()
        else None
    )
    return pages.page(
        request,
        "play_seat.html",
        seat=seat,
        characters=characters,
        moves=play.moves,
        report=report_link,
        verdicts=_verdicts(seat) if seat.status == "done" else [],
    )


@router.get("/play/{seat_id}/state")
def play_state(pages: PagesDep, seat_id: str) -> dict[str, Any]:
    seat = _seat(pages, seat_id)
    return {"status": seat.status, "turns": seat.turns}


@router.post("/play/{seat_id}")
async def play_answer(request: Request, pages: PagesDep, seat_id: str) -> Response:
    seat = _seat(pages, seat_id)
    data = await pages.form(request)
    form = {key: str(value) for key, value in data.items()}
    try:
        content = play_kinds()[seat.system].play.reply(form)
    except ValueError as error:
        raise HTTPException(400, str(error)) from error
    seat.give(content)
    return RedirectResponse(f"/play/{seat.id}", status_code=303)
