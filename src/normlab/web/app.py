"""``normlab serve``: the FastAPI app (server-rendered pages, SQLite for what people enter).

Pages: the runs (home), a reader per system, play (a person in the subject's seat),
rating studies (owner side), the rater's side (invite link → items) and a study's Compare
page (``normlab.web.compare``). Safety is built
in here rather than left to deployment (the rules and why: ``normlab.web.guard``):
only the host names the server was started for are served, and a state-changing request
from another site is refused; every page is rendered by Jinja with autoescaping on, so
transcript and model text stays text; every form carries a CSRF token signed for the
browser's session; owner pages need the owner token when one is set (always, off
loopback: ``check_settings``), with wrong tokens rate-limited; bodies are capped;
a rater's token opens only their own study's items, and an invite admits a bounded
number of raters. The state folder (tokens, secret key, blind keys) is the owner's alone.
"""

from __future__ import annotations

import contextlib
import dataclasses
import sqlite3
from collections.abc import AsyncIterator
from importlib.resources import files
from pathlib import Path

import jinja2
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from normlab.core.errors import InputError, NormlabError
from normlab.core.files import read_bytes
from normlab.core.secrets import redact_text
from normlab.web.compare import router as compare_router
from normlab.web.guard import (
    MAX_BODY,
    Guard,
    HostPolicy,
    LoginLimiter,
    OwnerToken,
    Sessions,
    check_owner_token,
    is_loopback,
    secret_key,
    session_cookie,
    storage_failure,
    tighten,
)
from normlab.web.pages import Pages, found
from normlab.web.play import Seats
from normlab.web.play_routes import router as play_router
from normlab.web.rating_routes import router as rating_router
from normlab.web.readers import load_under, reader_of, sample_label, system_of
from normlab.web.runs import (
    REPORT_FILES,
    discover,
    folder_runs_of,
    folder_templates,
    inside,
    variant_label,
)
from normlab.web.settings import ServeSettings
from normlab.web.store import Store
from normlab.web.study_routes import router as study_router

WEB = files("normlab.web")
DATABASE = "normlab.sqlite3"
MAX_SERVED_FILE = 64 << 20
"""Bytes of a report, CSV or JSON served as text (read whole, to redact credentials)."""


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
    """The web app ``normlab serve`` runs: run readers, play as ``human/NAME`` and rating
    studies over ``settings.runs``, its state (SQLite, secret key) in ``settings.state``. A
    host reachable from other machines without an owner token is refused before anything
    starts."""
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
    seats = Seats(settings.runs, settings.judge, settings.roles, settings.play, settings.max_seats)
    own = {name: jinja2.FileSystemLoader(str(path)) for name, path in folder_templates().items()}
    env = jinja2.Environment(
        # The app's templates, and each system's run-folder pages under its name.
        loader=jinja2.ChoiceLoader(
            [jinja2.FileSystemLoader(str(WEB / "templates")), jinja2.PrefixLoader(own)]
        ),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        seats.close()  # each seat's process ends with the server, not at the interpreter's exit

    app = FastAPI(
        title="normlab", docs_url=None, redoc_url=None, openapi_url=None, lifespan=lifespan
    )
    app.state.logins = logins  # tests move its clock
    app.state.seats = seats  # tests close them
    app.add_middleware(Guard, policy=policy, sessions=sessions, max_body=MAX_BODY)
    app.mount("/static", StaticFiles(directory=str(WEB / "static")), name="static")

    pages = Pages(settings, store, sessions, seats, env, owner_token)
    app.state.pages = pages  # the routers' routes are handed it (``normlab.web.pages.pages_of``)
    page, owner_only, form = pages.page, pages.owner_only, pages.form

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> HTMLResponse:
        response = page(request, "error.html", error.status_code, message=str(error.detail))
        response.headers.update(error.headers or {})
        return response

    @app.exception_handler(NormlabError)
    async def input_error(request: Request, error: NormlabError) -> HTMLResponse:
        return page(request, "error.html", 400, message=str(error))

    async def full_disk(request: Request, error: Exception) -> HTMLResponse:
        """A full (or failing) disk is the lab's to fix, not a bug: say which folder, 503."""
        failure = storage_failure(error)
        if failure is None:
            raise error
        where = state
        filename = getattr(error, "filename", None)
        if filename is not None and Path(str(filename)).is_relative_to(settings.runs):
            where = settings.runs
        folder = "state folder" if where == state else "runs folder"
        message = (
            f"The {folder} {where} {failure}: nothing was saved. Free some space on its disk "
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
        # Through core.files: a report file is a regular file of at most MAX_SERVED_FILE bytes.
        text = read_bytes(path, MAX_SERVED_FILE).decode("utf-8", errors="replace")
        return Response(redact_text(text), media_type=media.get(path.suffix, "text/plain"))

    @app.get("/run")
    def run_page(request: Request, path: str) -> Response:
        owner_only(request)
        target = inside(settings.runs, path)
        if target.is_dir():  # a run folder of a system whose runs are folders: its own page
            system, runs = found(folder_runs_of(target), "not a run folder of any system")
            shown = runs.page(target, request.query_params)
            return page(request, f"{system}/{shown.template}", 200, path=path, **shown.values)
        log = load_under(settings.runs, target)
        system = system_of(log)
        samples = [
            (index, *sample_label(system, log, sample))
            for index, sample in enumerate(log.samples or [])
        ]
        variant = variant_label(log)
        return page(
            request, "run.html", path=path, system=system, log=log, samples=samples, variant=variant
        )

    @app.get("/sample")
    def sample_page(request: Request, path: str, n: int) -> HTMLResponse:
        owner_only(request)
        log = load_under(settings.runs, inside(settings.runs, path))
        system = system_of(log)
        reader = reader_of(system)
        if reader is None or not 0 <= n < len(log.samples or []):
            raise HTTPException(404, "no such sample")
        found = reader.view(log, n)
        # Every system's page says which prompt the subject was given, read from the log.
        view = dataclasses.replace(
            found, facts=[*found.facts, ("prompt variant", variant_label(log))]
        )
        return page(request, "sample.html", path=path, view=view, system=system)

    # Each part of the app is a router of its own, handed this one Pages (``pages_of``).
    for router in (play_router, study_router, rating_router, compare_router):
        app.include_router(router)
    return app
