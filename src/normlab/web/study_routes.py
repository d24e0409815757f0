"""The rating studies: the owner makes a study of a run's items and reads each rater's
agreement; a rater, from an invite link, answers the items in an order of their own."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from normlab.core.errors import NormlabError
from normlab.core.outputs import slug
from normlab.web.guard import MAX_AMENDED, MAX_NAME, MAX_NOTES
from normlab.web.pages import Pages, found
from normlab.web.readers import load_under, system_of
from normlab.web.runs import discover, folder_system, inside
from normlab.web.store import (
    DEFAULT_MAX_RATERS,
    Item,
    NameTakenError,
    Rater,
    Study,
    StudyFullError,
)
from normlab.web.studies import (
    StudyKind,
    create_study,
    discover_banks,
    filled_csv,
    study_kinds,
    summary_lines,
)

MAX_RATERS_LIMIT = 10_000


def add_study_routes(app: FastAPI, pages: Pages) -> None:
    @app.get("/studies")
    def studies_page(request: Request) -> HTMLResponse:
        pages.owner_only(request)
        # Only runs a kind of study can use: their system has one, and they finished something.
        systems = {kind.system for kind in study_kinds().values()}
        runs = [run for run in discover(pages.settings.runs) if run.system in systems and run.units]
        # What a bank is offered for: each kind made from banks pairs with its own (``offers``).
        banks = discover_banks(pages.settings.runs, study_kinds().values())
        return pages.page(
            request,
            "studies.html",
            studies=pages.store.studies(),
            kinds=study_kinds(),
            runs=runs,
            banks=banks,
            max_raters=DEFAULT_MAX_RATERS,
        )

    @app.post("/studies")
    async def studies_create(request: Request) -> Response:
        pages.owner_only(request)
        data = await pages.form(request)
        kind = study_kinds().get(str(data.get("kind", "")))
        if kind is None:
            raise HTTPException(400, "choose a kind of study")
        run = inside(pages.settings.runs, str(data.get("run", "")))
        if kind.source == "bank":  # the kind's own export reads it, and says what is wrong
            target = run
        else:
            system = (
                folder_system(run)
                if run.is_dir()
                else system_of(load_under(pages.settings.runs, run))
            )
            if system is None:
                raise HTTPException(
                    400, f"a {kind.title} needs a {kind.system} run; {run.name} is no run"
                )
            if system != kind.system:
                raise HTTPException(
                    400, f"a {kind.title} needs a {kind.system} run; {run.name} is a {system} run"
                )
            target = run.parent if run.is_file() else run
        title = str(data.get("title", "")).strip() or f"{kind.title}: {target.name}"
        try:
            n, seed = int(str(data.get("n", "20"))), int(str(data.get("seed", "0")))
            max_raters = int(str(data.get("raters", DEFAULT_MAX_RATERS)))
        except ValueError as error:
            raise HTTPException(400, "n, seed and raters are whole numbers") from error
        if not 1 <= max_raters <= MAX_RATERS_LIMIT:
            raise HTTPException(400, f"raters: from 1 to {MAX_RATERS_LIMIT:,}")
        study = create_study(
            pages.store, pages.settings.state, kind, target, title, n, seed, max_raters
        )
        return RedirectResponse(f"/studies/{study.id}", status_code=303)

    def _study(study_id: str) -> Study:
        return found(pages.store.study(study_id), "no such study")

    @app.get("/studies/{study_id}")
    def study_page(request: Request, study_id: str) -> HTMLResponse:
        pages.owner_only(request)
        study = _study(study_id)
        kind = study_kinds()[study.kind]
        raters = [_progress(study, kind, rater) for rater in pages.store.raters(study.id)]
        agreement, problem = _agreement(study, kind, [rater for rater, n, _, _ in raters if n])
        return pages.page(
            request,
            "study.html",
            study=study,
            kind=kind,
            total=len(pages.store.items(study.id)),
            raters=raters,
            agreement=agreement,
            agreement_problem=problem,
            invite=str(request.url_for("join_form", invite=study.invite)),
        )

    def _agreement(
        study: Study, kind: StudyKind, answered: list[Rater]
    ) -> tuple[list[tuple[str, str]], str]:
        """Agreement between the raters who answered something (kinds that offer it, two
        raters at least), as lines, and why there is none where it failed."""
        if len(answered) < 2:
            return [], ""
        state = pages.settings.state
        try:
            result = kind.agreement_of([filled_csv(pages.store, state, study, r) for r in answered])
        except NormlabError as error:
            return [], str(error)
        return (summary_lines(result) if result is not None else []), ""

    def _progress(
        study: Study, kind: StudyKind, rater: Rater
    ) -> tuple[Rater, int, list[tuple[str, str]], str]:
        """A rater's line on the study page: the rater, how many items they answered, their
        analysis so far (as lines) and why there is none where it failed."""
        answered = len(pages.store.ratings(rater))
        lines: list[tuple[str, str]] = []
        problem = ""
        if answered:
            try:
                lines = summary_lines(
                    kind.analysis(filled_csv(pages.store, pages.settings.state, study, rater))
                )
            except NormlabError as error:
                problem = str(error)
        return rater, answered, lines, problem

    @app.get("/studies/{study_id}/ratings/{rater_id}.csv")
    def study_export(request: Request, study_id: str, rater_id: str) -> Response:
        pages.owner_only(request)
        study = _study(study_id)
        rater = found(pages.store.rater_by_id(study.id, rater_id), "no such rater")
        # Read whole at once: another download may replace the file right after (with the
        # same rater's answers), and a response streamed from the path could mix the two.
        content = filled_csv(pages.store, pages.settings.state, study, rater).read_bytes()
        name = f"ratings-{slug(rater.name)}-{rater.id}.csv"
        return Response(
            content,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    # raters
    def _invited(invite: str) -> Study:
        return found(pages.store.study_by_invite(invite), "this invite link is not valid")

    @app.get("/join/{invite}", name="join_form")
    def join_form(request: Request, invite: str) -> HTMLResponse:
        study = _invited(invite)
        return pages.page(
            request, "join.html", study=study, invite=invite, rater_page=True, max_name=MAX_NAME
        )

    @app.post("/join/{invite}")
    async def join(request: Request, invite: str) -> Response:
        study = _invited(invite)
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

    def _rater(token: str) -> tuple[Rater, Study]:
        invalid = "this rating link is not valid"
        rater = found(pages.store.rater(token), invalid)
        return rater, found(pages.store.study(rater.study_id), invalid)

    def _item(study: Study, item_id: str) -> Item:
        return found(pages.store.item(study.id, item_id), "no such item in your study")

    def _order(rater: Rater, item_ids: list[str]) -> list[str]:
        """The rater's own random order, the same on every visit (so stopping is safe)."""
        return sorted(
            item_ids, key=lambda i: hashlib.sha256(f"{rater.token}|{i}".encode()).hexdigest()
        )

    def _rater_page(
        request: Request, template: str, rater: Rater, study: Study, **values: Any
    ) -> HTMLResponse:
        """A page of the rater's side: no owner links, the rater and their study shown."""
        return pages.page(request, template, study=study, rater=rater, rater_page=True, **values)

    def _rate_item(
        request: Request, rater: Rater, study: Study, item_id: str, done: int, total: int
    ) -> HTMLResponse:
        item = _item(study, item_id)
        kind = study_kinds()[study.kind]
        payload = json.loads(item.payload)
        shown = [
            (column, payload.get(column, ""))
            for column in kind.columns()
            if column not in kind.hidden
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

    @app.get("/rate/{token}")
    def rate_next(request: Request, token: str) -> Response:
        rater, study = _rater(token)
        answered = pages.store.ratings(rater)
        order = _order(rater, [item.item_id for item in pages.store.items(study.id)])
        left = [item_id for item_id in order if item_id not in answered]
        if not left:
            return _rater_page(request, "rate_done.html", rater, study, total=len(order))
        return _rate_item(request, rater, study, left[0], len(answered), len(order))

    @app.get("/rate/{token}/{item_id}")
    def rate_item(request: Request, token: str, item_id: str) -> HTMLResponse:
        rater, study = _rater(token)
        answered = pages.store.ratings(rater)
        return _rate_item(
            request, rater, study, item_id, len(answered), len(pages.store.items(study.id))
        )

    @app.post("/rate/{token}/{item_id}")
    async def rate_save(request: Request, token: str, item_id: str) -> Response:
        rater, study = _rater(token)
        _item(study, item_id)
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
