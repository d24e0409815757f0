"""``normlab serve``: the FastAPI app (server-rendered pages, SQLite for what people enter).

Pages: the runs (home), a reader per system, play (a person in the subject's seat),
rating studies (owner side) and the rater's side (invite link → items). Safety is built
in here rather than left to deployment (the rules and why: :mod:`normlab.web.guard`):
only the host names the server was started for are served, and a state-changing request
from another site is refused; every page is rendered by Jinja with autoescaping on, so
transcript and model text stays text; every form carries a CSRF token signed for the
browser's session; owner pages need the owner token when one is set (always, off
loopback: :func:`check_settings`), with wrong tokens rate-limited; bodies are capped;
a rater's token opens only their own study's items, and an invite admits a bounded
number of raters. The state folder (tokens, secret key, blind keys) is the owner's alone.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sqlite3
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException as StarletteHTTPException

from normlab.core.errors import InputError, NormlabError
from normlab.core.outputs import slug
from normlab.core.secrets import redact_text
from normlab.web.guard import (
    MAX_BODY,
    MAX_FIELDS,
    MAX_NAME,
    MAX_NOTES,
    Guard,
    HostPolicy,
    LoginLimiter,
    OwnerToken,
    Sessions,
    check_owner_token,
    disk_full,
    is_loopback,
    secret_key,
    session_cookie,
    tighten,
)
from normlab.web.play import KINDS as PLAY_KINDS
from normlab.web.play import PlayConfig, Seat, Seats, hsii_characters, scene_answer
from normlab.web.readers import VIEWS, load, sample_label, system_of
from normlab.web.runs import REPORT_FILES, discover, inside
from normlab.web.store import DEFAULT_MAX_RATERS, Rater, Store, Study, StudyFullError
from normlab.web.studies import KINDS as STUDY_KINDS
from normlab.web.studies import create_study, filled_csv, summary_lines

WEB = files("normlab.web")
DATABASE = "normlab.sqlite3"
MAX_RATERS_LIMIT = 10_000


@dataclass
class ServeSettings:
    runs: Path
    state: Path
    """Where ``normlab.sqlite3``, the secret key and the studies' files live."""
    host: str = "127.0.0.1"
    owner_token: str | None = None
    allow_hosts: list[str] = field(default_factory=list)
    """Host names served besides the loopback names or ``host`` (``--allow-host``)."""
    judge: str | None = None
    roles: list[str] = field(default_factory=list)
    """``ROLE=MODEL`` for play (persona, judge…); unset roles use the embedded model."""
    play: PlayConfig = field(default_factory=PlayConfig)


def check_settings(settings: ServeSettings) -> HostPolicy:
    """Off loopback the app refuses to start without an owner token; a token must be long
    enough not to be guessed; ``--allow-host`` values must be names. Returns the host names
    the server answers to."""
    if not is_loopback(settings.host) and not settings.owner_token:
        raise InputError(
            "--host",
            f"{settings.host} is reachable from other machines: set --owner-token-file "
            "(or NORMLAB_OWNER_TOKEN) so only you can see runs and studies",
            field="host",
        )
    if settings.owner_token is not None:
        check_owner_token(settings.owner_token, "--owner-token")
    return HostPolicy.for_bind(settings.host, settings.allow_hosts)


def create_app(settings: ServeSettings) -> FastAPI:
    policy = check_settings(settings)
    # Resolved once (relative, symlinked): every page relates logs found under the folder to
    # it, and Inspect lists them by absolute path.
    owner_token = OwnerToken(settings.owner_token) if settings.owner_token else None
    settings = dataclasses.replace(  # the token itself is not kept: only its hash, above
        settings, runs=settings.runs.resolve(), state=settings.state.resolve(), owner_token=None
    )
    state = settings.state
    tighten(state, DATABASE)
    store = Store(state / DATABASE)
    sessions = Sessions(secret_key(state))
    logins = LoginLimiter()
    seats = Seats(settings.runs, settings.judge, settings.roles, settings.play)
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(WEB / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    app = FastAPI(title="normlab", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.logins = logins  # tests move its clock
    app.add_middleware(Guard, policy=policy, sessions=sessions, max_body=MAX_BODY)
    app.mount("/static", StaticFiles(directory=str(WEB / "static")), name="static")

    def page(request: Request, template: str, status: int = 200, **values: Any) -> HTMLResponse:
        html = env.get_template(template).render(
            csrf=getattr(request.state, "csrf", ""), owner=_is_owner(request), **values
        )
        return HTMLResponse(html, status_code=status)

    def _is_owner(request: Request) -> bool:
        if owner_token is None:
            return True
        return sessions.is_owner(getattr(request.state, "session", ""))

    def owner_only(request: Request) -> None:
        if not _is_owner(request):
            raise HTTPException(403, "owner pages: log in with the owner token at /login")

    async def form(request: Request) -> FormData:
        """The posted form (bounded: no files, few fields), after its CSRF token matched the
        one this server signed for the browser's session."""
        data = await request.form(max_files=0, max_fields=MAX_FIELDS, max_part_size=MAX_BODY)
        given = data.get("csrf")
        if not isinstance(given, str) or not sessions.csrf_ok(request.state.session, given):
            raise HTTPException(403, "the form's CSRF token does not match: reload the page")
        return data

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> HTMLResponse:
        response = page(request, "error.html", error.status_code, message=str(error.detail))
        response.headers.update(error.headers or {})
        return response

    @app.exception_handler(NormlabError)
    async def input_error(request: Request, error: NormlabError) -> HTMLResponse:
        return page(request, "error.html", 400, message=str(error))

    async def full_disk(request: Request, error: Exception) -> HTMLResponse:
        """A full disk is the lab's to fix, not a bug: say which folder, answer 503."""
        if not disk_full(error):
            raise error
        where = state
        filename = getattr(error, "filename", None)
        if filename is not None and Path(str(filename)).is_relative_to(settings.runs):
            where = settings.runs
        folder = "state folder" if where == state else "runs folder"
        message = (
            f"The {folder} {where} is full: nothing was saved. Free some space on its disk "
            "and try again."
        )
        return page(request, "error.html", 503, message=message)

    app.add_exception_handler(OSError, full_disk)
    app.add_exception_handler(sqlite3.Error, full_disk)

    @app.exception_handler(Exception)
    async def server_error(request: Request, error: Exception) -> HTMLResponse:
        """A bug still gets a page (the traceback goes to the server's log, not the page)."""
        message = "The server failed on this request; its log says why."
        return page(request, "error.html", 500, message=message)

    # owner login (only when a token is set)
    @app.get("/login")
    def login_form(request: Request) -> HTMLResponse:
        return page(request, "login.html")

    @app.post("/login")
    async def login(request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        wait = logins.retry_after(client)
        if wait:
            raise HTTPException(
                429,
                f"too many wrong owner tokens: try again in {wait} seconds",
                headers={"Retry-After": str(wait)},
            )
        data = await form(request)
        token = data.get("token")
        if owner_token is None or not isinstance(token, str) or not owner_token.matches(token):
            logins.failed(client)
            raise HTTPException(403, "wrong owner token")
        logins.succeeded(client)
        sessions.end(request.state.session)
        response = RedirectResponse("/", status_code=303)
        secure = request.url.scheme == "https"
        response.headers.append("set-cookie", session_cookie(sessions.make_owner(), secure))
        return response

    # runs and readers
    @app.get("/")
    def home(request: Request) -> HTMLResponse:
        owner_only(request)
        return page(request, "home.html", runs=discover(settings.runs), root=str(settings.runs))

    @app.get("/files/{relative:path}")
    def report_file(request: Request, relative: str) -> Response:
        """A report, CSV or JSON of a run, as text with every credential redacted: files
        written before normlab redacted them (Inspect's ``logs.json``, a journal) may hold a
        base URL's password. Inspect's journal is its own bookkeeping, never served."""
        owner_only(request)
        path = inside(settings.runs, relative)
        if path.suffix not in REPORT_FILES or not path.is_file() or "_journal" in path.parts:
            raise HTTPException(404, "not a report file")
        if path.suffix == ".png":
            return FileResponse(path)  # a figure: pixels, no text to redact
        media = {
            ".html": "text/html",
            ".csv": "text/csv",
            ".json": "application/json",
            ".svg": "image/svg+xml",
        }
        text = path.read_text(encoding="utf-8", errors="replace")
        return Response(redact_text(text), media_type=media.get(path.suffix, "text/plain"))

    @app.get("/run")
    def run_page(request: Request, path: str) -> Response:
        owner_only(request)
        found = inside(settings.runs, path)
        if found.is_dir():
            return RedirectResponse(f"/crsec?path={quote(path)}", status_code=303)
        log = load(found)
        system = system_of(log)
        samples = [
            (index, *sample_label(system, sample)) for index, sample in enumerate(log.samples or [])
        ]
        return page(request, "run.html", path=path, system=system, log=log, samples=samples)

    @app.get("/sample")
    def sample_page(request: Request, path: str, n: int) -> HTMLResponse:
        owner_only(request)
        log = load(inside(settings.runs, path))
        system = system_of(log)
        if system not in VIEWS or not 0 <= n < len(log.samples or []):
            raise HTTPException(404, "no such sample")
        view = VIEWS[system](log, n)
        return page(request, "sample.html", path=path, view=view, system=system)

    @app.get("/crsec")
    def crsec_page(request: Request, path: str, tick: int = 0) -> HTMLResponse:
        owner_only(request)
        from normlab.crsec.replay import moment
        from normlab.crsec.rundir import RunDir
        from normlab.web.figures import figure_2

        folder = inside(settings.runs, path)
        run = RunDir(folder)
        config = run.config()
        now = moment(run.events(), config, tick)
        figure = figure_2(folder / "metrics.json", now.hour_index)
        return page(request, "crsec.html", path=path, config=config, now=now, figure=figure)

    # play
    @app.get("/play")
    def play_index(request: Request, system: str = "losona") -> HTMLResponse:
        owner_only(request)
        if system not in PLAY_KINDS:
            raise HTTPException(404, "no such system")
        return page(
            request,
            "play_index.html",
            kinds=PLAY_KINDS,
            system=system,
            options=seats.options(system),
        )

    @app.post("/play")
    async def play_open(request: Request) -> Response:
        owner_only(request)
        data = await form(request)
        system, player = str(data.get("system", "")), str(data.get("player", "")).strip()
        if system not in PLAY_KINDS:
            raise HTTPException(400, "choose a system")
        if not player or not player.replace("-", "").replace("_", "").isalnum():
            raise HTTPException(400, "name: letters, digits, - and _ only (it becomes human/NAME)")
        seat = seats.open(system, player, str(data.get("option", "")))
        return RedirectResponse(f"/play/{seat.id}", status_code=303)

    def _seat(seat_id: str) -> Seat:
        seat = seats.get(seat_id)
        if seat is None:
            raise HTTPException(404, "no such seat (seats end when the server stops)")
        return seat

    @app.get("/play/{seat_id}")
    def play_seat(request: Request, seat_id: str) -> HTMLResponse:
        owner_only(request)
        seat = _seat(seat_id)
        characters = hsii_characters(seat.messages) if seat.system == "hsii" else None
        report = seat.log_dir / "report.html"
        report_link = (
            str(report.relative_to(settings.runs))
            if seat.status == "done" and report.exists()
            else None
        )
        return page(request, "play_seat.html", seat=seat, characters=characters, report=report_link)

    @app.get("/play/{seat_id}/state")
    def play_state(request: Request, seat_id: str) -> dict[str, Any]:
        owner_only(request)
        seat = _seat(seat_id)
        return {"status": seat.status, "turns": seat.turns}

    @app.post("/play/{seat_id}")
    async def play_answer(request: Request, seat_id: str) -> Response:
        owner_only(request)
        seat = _seat(seat_id)
        data = await form(request)
        content = str(data.get("content", ""))
        if seat.system == "hsii" and data.get("target"):
            from normlab.hsii.play import reply

            content = reply(str(data.get("target")), content)
        elif seat.system == "scene":
            try:
                content = scene_answer(
                    str(data.get("action", "message")), content, str(data.get("turn", ""))
                )
            except ValueError as error:
                raise HTTPException(400, "choose a message, a reaction or silence") from error
        seat.give(content)
        return RedirectResponse(f"/play/{seat.id}", status_code=303)

    # studies (owner side)
    @app.get("/studies")
    def studies_page(request: Request) -> HTMLResponse:
        owner_only(request)
        # Only runs a kind of study can use: their system has one, and they finished something.
        systems = {kind.system for kind in STUDY_KINDS.values()}
        runs = [run for run in discover(settings.runs) if run.system in systems and run.units]
        return page(
            request,
            "studies.html",
            studies=store.studies(),
            kinds=STUDY_KINDS,
            runs=runs,
            max_raters=DEFAULT_MAX_RATERS,
        )

    @app.post("/studies")
    async def studies_create(request: Request) -> Response:
        owner_only(request)
        data = await form(request)
        kind = STUDY_KINDS.get(str(data.get("kind", "")))
        if kind is None:
            raise HTTPException(400, "choose a kind of study")
        run = inside(settings.runs, str(data.get("run", "")))
        system = "crsec" if run.is_dir() else system_of(load(run))
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
        study = create_study(store, settings.state, kind, target, title, n, seed, max_raters)
        return RedirectResponse(f"/studies/{study.id}", status_code=303)

    def _study(study_id: str) -> Study:
        study = store.study(study_id)
        if study is None:
            raise HTTPException(404, "no such study")
        return study

    @app.get("/studies/{study_id}")
    def study_page(request: Request, study_id: str) -> HTMLResponse:
        owner_only(request)
        study = _study(study_id)
        kind = STUDY_KINDS[study.kind]
        total = len(store.items(study.id))
        raters = []
        for rater in store.raters(study.id):
            answered = len(store.ratings(rater))
            lines: list[tuple[str, str]] = []
            problem = ""
            if answered:
                try:
                    lines = summary_lines(
                        kind.analyze(filled_csv(store, settings.state, study, rater))
                    )
                except NormlabError as error:
                    problem = str(error)
            raters.append((rater, answered, lines, problem))
        invite = str(request.url_for("join_form", invite=study.invite))
        return page(
            request,
            "study.html",
            study=study,
            kind=kind,
            total=total,
            raters=raters,
            invite=invite,
        )

    @app.get("/studies/{study_id}/ratings/{rater_id}.csv")
    def study_export(request: Request, study_id: str, rater_id: str) -> Response:
        owner_only(request)
        study = _study(study_id)
        rater = store.rater_by_id(study.id, rater_id)
        if rater is None:
            raise HTTPException(404, "no such rater")
        # Read whole at once: another download may replace the file right after (with the
        # same rater's answers), and a response streamed from the path could mix the two.
        content = filled_csv(store, settings.state, study, rater).read_bytes()
        name = f"ratings-{slug(rater.name)}-{rater.id}.csv"
        return Response(
            content,
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": f'attachment; filename="{name}"'},
        )

    # raters
    @app.get("/join/{invite}", name="join_form")
    def join_form(request: Request, invite: str) -> HTMLResponse:
        study = store.study_by_invite(invite)
        if study is None:
            raise HTTPException(404, "this invite link is not valid")
        return page(request, "join.html", study=study, invite=invite, rater_page=True)

    @app.post("/join/{invite}")
    async def join(request: Request, invite: str) -> Response:
        study = store.study_by_invite(invite)
        if study is None:
            raise HTTPException(404, "this invite link is not valid")
        data = await form(request)
        name = str(data.get("name", "")).strip()
        if not name or len(name) > MAX_NAME:
            raise HTTPException(400, f"enter your name (at most {MAX_NAME} characters)")
        try:
            rater = store.join(study.id, name, study.max_raters)
        except StudyFullError as error:
            raise HTTPException(403, str(error)) from error
        return RedirectResponse(f"/rate/{rater.token}", status_code=303)

    def _rater(token: str) -> tuple[Rater, Study]:
        rater = store.rater(token)
        study = store.study(rater.study_id) if rater else None
        if rater is None or study is None:
            raise HTTPException(404, "this rating link is not valid")
        return rater, study

    def _order(rater: Rater, item_ids: list[str]) -> list[str]:
        """The rater's own random order, the same on every visit (so stopping is safe)."""
        return sorted(
            item_ids, key=lambda i: hashlib.sha256(f"{rater.token}|{i}".encode()).hexdigest()
        )

    @app.get("/rate/{token}")
    def rate_next(request: Request, token: str) -> Response:
        rater, study = _rater(token)
        answered = store.ratings(rater)
        order = _order(rater, [item.item_id for item in store.items(study.id)])
        left = [item_id for item_id in order if item_id not in answered]
        if not left:
            return page(
                request,
                "rate_done.html",
                study=study,
                rater=rater,
                total=len(order),
                rater_page=True,
            )
        return _rate_item(request, rater, study, left[0], len(answered), len(order))

    @app.get("/rate/{token}/{item_id}")
    def rate_item(request: Request, token: str, item_id: str) -> HTMLResponse:
        rater, study = _rater(token)
        answered = store.ratings(rater)
        return _rate_item(request, rater, study, item_id, len(answered), len(store.items(study.id)))

    def _rate_item(
        request: Request, rater: Rater, study: Study, item_id: str, done: int, total: int
    ) -> HTMLResponse:
        item = store.item(study.id, item_id)
        if item is None:
            raise HTTPException(404, "no such item in your study")
        kind = STUDY_KINDS[study.kind]
        payload = json.loads(item.payload)
        shown = [
            (column, payload.get(column, ""))
            for column in kind.columns()
            if column not in kind.hidden
        ]
        current = store.ratings(rater).get(item_id)
        return page(
            request,
            "rate.html",
            study=study,
            kind=kind,
            rater=rater,
            item_id=item_id,
            shown=shown,
            done=done,
            total=total,
            current=current,
            rater_page=True,
        )

    @app.post("/rate/{token}/{item_id}")
    async def rate_save(request: Request, token: str, item_id: str) -> Response:
        rater, study = _rater(token)
        if store.item(study.id, item_id) is None:
            raise HTTPException(404, "no such item in your study")
        data = await form(request)
        kind = STUDY_KINDS[study.kind]
        answer = str(data.get("answer", ""))
        if answer not in {value for value, _ in kind.choices}:
            raise HTTPException(400, "choose one of the answers")
        notes = str(data.get("notes", ""))
        if len(notes) > MAX_NOTES:
            raise HTTPException(
                413, f"notes: at most {MAX_NOTES:,} characters (these have {len(notes):,})"
            )
        store.rate(rater, item_id, answer, notes)
        return RedirectResponse(f"/rate/{rater.token}", status_code=303)

    return app
