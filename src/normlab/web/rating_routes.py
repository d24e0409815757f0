"""The rater's side of a rating study: an invite link admits a bounded number of raters by
name; a rater's own link (its token) opens only their study's items, each in an order of
their own. No owner check here: the token is the rater's credential; the owner's side is
``normlab.web.study_routes``."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from normlab.web.guard import MAX_AMENDED, MAX_NAME, MAX_NOTES
from normlab.web.pages import Pages, PagesDep, found
from normlab.web.store import Item, NameTakenError, Rater, Study, StudyFullError
from normlab.web.studies import study_kinds

router = APIRouter()


def _invited(pages: Pages, invite: str) -> Study:
    return found(pages.store.study_by_invite(invite), "this invite link is not valid")


@router.get("/join/{invite}", name="join_form")
def join_form(request: Request, pages: PagesDep, invite: str) -> HTMLResponse:
    study = _invited(pages, invite)
    return pages.page(
        request, "join.html", study=study, invite=invite, rater_page=True, max_name=MAX_NAME
    )


@router.post("/join/{invite}")
async def join(request: Request, pages: PagesDep, invite: str) -> Response:
    study = _invited(pages, invite)
    data = await pages.form(request)
    name = str(data.get("name", "")).strip()
    if not name or len(name) > MAX_NAME:
        raise HTTPException(400, f"enter your name (at most {MAX_NAME} characters)")
    try:
        rater = pages.store.join(study.id, name, study.max_raters)
    except StudyFullError as error:
        raise HTTPException(403, str(error)) from error
    except NameTakenError as error:
        raise HTTPException(409, str(error)) from error
    return RedirectResponse(f"/rate/{rater.token}", status_code=303)


def _rater(pages: Pages, token: str) -> tuple[Rater, Study]:
    invalid = "this rating link is not valid"
    rater = found(pages.store.rater(token), invalid)
    return rater, found(pages.store.study(rater.study_id), invalid)


def _item(pages: Pages, study: Study, item_id: str) -> Item:
    return found(pages.store.item(study.id, item_id), "no such item in your study")


def _order(rater: Rater, item_ids: list[str]) -> list[str]:
    """The rater's own random order, the same on every visit (so stopping is safe)."""
    return sorted(item_ids, key=lambda i: hashlib.sha256(f"{rater.token}|{i}".encode()).hexdigest())


def _rater_page(
    request: Request, pages: Pages, template: str, rater: Rater, study: Study, **values: Any
) -> HTMLResponse:
    """A page of the rater's side: no owner links, the rater and their study shown."""
    return pages.page(request, template, study=study, rater=rater, rater_page=True, **values)


def _rate_item(
    request: Request, pages: Pages, rater: Rater, study: Study, item_id: str, done: int, total: int
) -> HTMLResponse:
    item = _item(pages, study, item_id)
    kind = study_kinds()[study.kind]
    payload = json.loads(item.payload)
    shown = [
        (column, payload.get(column, "")) for column in kind.columns() if column not in kind.hidden
    ]
    current = pages.store.ratings(rater).get(item_id)
    amend_text = ""
    if kind.amended_column:
        amend_text = (current.amended if current else "") or str(
            payload.get(kind.amended_from or "", "")
        )
    ticked = set(current.criteria.split(",")) if current and current.criteria else set()
    return _rater_page(
        request,
        pages,
        "rate.html",
        rater,
        study,
        kind=kind,
        item_id=item_id,
        shown=shown,
        done=done,
        total=total,
        current=current,
        amend_text=amend_text,
        criteria=[(value, label, value in ticked) for value, label in kind.criteria_boxes()],
        max_amended=MAX_AMENDED,
    )


@router.get("/rate/{token}")
def rate_next(request: Request, pages: PagesDep, token: str) -> Response:
    rater, study = _rater(pages, token)
    answered = pages.store.ratings(rater)
    order = _order(rater, [item.item_id for item in pages.store.items(study.id)])
    left = [item_id for item_id in order if item_id not in answered]
    if not left:
        return _rater_page(request, pages, "rate_done.html", rater, study, total=len(order))
    return _rate_item(request, pages, rater, study, left[0], len(answered), len(order))


@router.get("/rate/{token}/{item_id}")
def rate_item(request: Request, pages: PagesDep, token: str, item_id: str) -> HTMLResponse:
    rater, study = _rater(pages, token)
    answered = pages.store.ratings(rater)
    total = len(pages.store.items(study.id))
    return _rate_item(request, pages, rater, study, item_id, len(answered), total)


@router.post("/rate/{token}/{item_id}")
async def rate_save(request: Request, pages: PagesDep, token: str, item_id: str) -> Response:
    rater, study = _rater(pages, token)
    _item(pages, study, item_id)
    data = await pages.form(request)
    kind = study_kinds()[study.kind]
    answer = str(data.get("answer", ""))
    if answer not in {value for value, _ in kind.choices}:
        raise HTTPException(400, "choose one of the answers")
    notes = str(data.get("notes", ""))
    if len(notes) > MAX_NOTES:
        raise HTTPException(
            413, f"notes: at most {MAX_NOTES:,} characters (these have {len(notes):,})"
        )
    amended = criteria = ""
    if kind.amended_column:
        amended = str(data.get("amended", "")).replace("\r\n", "\n").strip()
        if len(amended) > MAX_AMENDED:
            raise HTTPException(
                413,
                f"amended text: at most {MAX_AMENDED:,} characters (this has {len(amended):,})",
            )
        if answer == "amend" and not amended:
            raise HTTPException(400, "to amend, write the amended text")
        if answer != "amend":
            amended = ""
    if kind.criteria_column:
        allowed = {value for value, _ in kind.criteria_boxes()}
        ticked = [str(value) for value in data.getlist("criteria")]
        if not set(ticked) <= allowed:
            raise HTTPException(400, "tick only the criteria listed")
        criteria = ",".join(value for value, _ in kind.criteria_boxes() if value in ticked)
    pages.store.rate(rater, item_id, answer, notes, amended, criteria)
    return RedirectResponse(f"/rate/{rater.token}", status_code=303)
