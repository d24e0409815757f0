"""What every page of the app shares: the settings, the stores, the template renderer and
the owner and CSRF checks. ``create_app`` makes one ``Pages`` and keeps it on the app; each
part of the app is an ``APIRouter`` of its own (``play_routes``, ``study_routes`` for the
owner's side of a study, ``rating_routes`` for the rater's, ``compare``), whose routes are
handed that ``Pages`` as a dependency (``PagesDep``) and, on the owner's routers, checked by
``OwnerOnly`` before anything runs, so every page is rendered, and every form checked, the
same way. Host names, origins, body sizes and sessions are the ``Guard`` middleware's, in
front of every router alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, TypeVar

import jinja2
from fastapi import Depends, HTTPException, Request
from fastapi.responses import HTMLResponse
from starlette.datastructures import FormData

from normlab.web.guard import MAX_BODY, MAX_FIELDS, OwnerToken, Sessions
from normlab.web.play import Seats
from normlab.web.settings import ServeSettings
from normlab.web.store import Store

T = TypeVar("T")


def found(value: T | None, message: str) -> T:
    """``value``, or a 404 with ``message`` where the lookup found nothing."""
    if value is None:
        raise HTTPException(404, message)
    return value


@dataclass
class Pages:
    settings: ServeSettings
    """Resolved (absolute) folders; the owner token itself is not kept, only ``owner_token``."""
    store: Store
    sessions: Sessions
    seats: Seats
    env: jinja2.Environment
    owner_token: OwnerToken | None

    def page(
        self, request: Request, template: str, status: int = 200, **values: Any
    ) -> HTMLResponse:
        html = self.env.get_template(template).render(
            csrf=getattr(request.state, "csrf", ""), owner=self.is_owner(request), **values
        )
        return HTMLResponse(html, status_code=status)

    def is_owner(self, request: Request) -> bool:
        if self.owner_token is None:
            return True
        return self.sessions.is_owner(getattr(request.state, "session", ""))

    def owner_only(self, request: Request) -> None:
        if not self.is_owner(request):
            raise HTTPException(403, "owner pages: log in with the owner token at /login")

    async def form(self, request: Request) -> FormData:
        """The posted form (bounded: no files, few fields), after its CSRF token matched the
        one this server signed for the browser's session."""
        data = await request.form(max_files=0, max_fields=MAX_FIELDS, max_part_size=MAX_BODY)
        given = data.get("csrf")
        if not isinstance(given, str) or not self.sessions.csrf_ok(request.state.session, given):
            raise HTTPException(403, "the form's CSRF token does not match: reload the page")
        return data


def pages_of(request: Request) -> Pages:
    """The app's one ``Pages`` (``create_app`` keeps it as ``app.state.pages``)."""
    pages = request.app.state.pages
    if not isinstance(pages, Pages):  # a router included in an app create_app did not make
        raise TypeError("the app has no Pages: routers are included by create_app")
    return pages


PagesDep = Annotated[Pages, Depends(pages_of)]
"""A route's parameter for the app's ``Pages``."""


def _owner_only(request: Request, pages: PagesDep) -> None:
    pages.owner_only(request)


OwnerOnly = Depends(_owner_only)
"""An owner router's dependency: a route of it answers only the owner (403 otherwise), checked
before the route's own parameters are used."""
