"""The owner's side of the rating studies: make a study of a run's items (or of a bank), read
each rater's agreement, download a rater's answers. Owner only (the router's ``OwnerOnly``);
the rater's side, reached by an invite link, is ``normlab.web.rating_routes``."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from normlab.core.errors import NormlabError
from normlab.core.outputs import slug
from normlab.web.pages import OwnerOnly, Pages, PagesDep, found
from normlab.web.readers import load_under, system_of
from normlab.web.runs import discover, folder_system, inside
from normlab.web.store import DEFAULT_MAX_RATERS, Rater, Study
from normlab.web.studies import (
    StudyKind,
    create_study,
    discover_banks,
    filled_csv,
    study_kinds,
    summary_lines,
)

MAX_RATERS_LIMIT = 10_000

router = APIRouter(dependencies=[OwnerOnly])


@router.get("/studies")
def studies_page(request: Request, pages: PagesDep) -> HTMLResponse:
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


@router.post("/studies")
async def studies_create(request: Request, pages: PagesDep) -> Response:
    data = await pages.form(request)
    kind = study_kinds().get(str(data.get("kind", "")))
    if kind is None:
        raise HTTPException(400, "choose a kind of study")
    run = inside(pages.settings.runs, str(data.get("run", "")))
    if kind.source == "bank":  # the kind's own export reads it, and says what is wrong
        target = run
    else:
        system = (
            folder_system(run) if run.is_dir() else system_of(load_under(pages.settings.runs, run))
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
    state = pages.settings.state
    study = create_study(pages.store, state, kind, target, title, n, seed, max_raters)
    return RedirectResponse(f"/studies/{study.id}", status_code=303)


def _study(pages: Pages, study_id: str) -> Study:
    return found(pages.store.study(study_id), "no such study")


@router.get("/studies/{study_id}")
def study_page(request: Request, pages: PagesDep, study_id: str) -> HTMLResponse:
    study = _study(pages, study_id)
    kind = study_kinds()[study.kind]
    raters = [_progress(pages, study, kind, rater) for rater in pages.store.raters(study.id)]
    answered = [rater for rater, n, _, _ in raters if n]
    agreement, problem = _agreement(pages, study, kind, answered)
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
    pages: Pages, study: Study, kind: StudyKind, answered: list[Rater]
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
    pages: Pages, study: Study, kind: StudyKind, rater: Rater
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


@router.get("/studies/{study_id}/ratings/{rater_id}.csv")
def study_export(pages: PagesDep, study_id: str, rater_id: str) -> Response:
    study = _study(pages, study_id)
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
