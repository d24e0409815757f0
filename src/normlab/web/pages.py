"""What every page of the app shares: the settings, the stores, the template renderer and
the owner and CSRF checks. The routes of each part of the app (``app.py``: login, runs and
readers; ``play_routes.py``; ``study_routes.py``) are added with one ``Pages``, so every
page is rendered, and every form checked, the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import jinja2
from fastapi import HTTPException, Request
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
