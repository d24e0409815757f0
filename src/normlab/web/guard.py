"""What makes ``normlab serve`` safe to run for a lab, in one place.

Each rule answers a way the app was broken from outside:

- **Host names** (``HostPolicy``): a page on ``attacker.example`` whose name a DNS
  rebinding points at 127.0.0.1 reaches a loopback server with the owner's powers, and
  the browser sends ``Host: attacker.example``. So only the names the server was started
  for are served: the loopback names, the ``--host`` address, ``--allow-host`` names (and,
  bound to every interface, any IP address: a rebinding page can only ever send a name).
- **Origin** (``same_origin``): a state-changing request whose ``Origin`` (else
  ``Referer``) names another site is refused; a request with neither relies on CSRF.
- **Sessions and CSRF** (``Sessions``): every browser gets a random session id in a
  cookie; a form's CSRF token is an HMAC of that id under a per-server secret key
  (``STATE/secret.key``, 0600), so a forged cookie and field pair never matches, and
  comparisons are on bytes, so no input can make them raise. The owner's cookie is a
  fresh session id issued at login, never the token.
- **Owner tokens** (``OwnerToken``): at least ``MIN_OWNER_TOKEN`` characters,
  held only as a hash.
- **Login attempts** (``LoginLimiter``): a few wrong tokens per client a minute and a
  cap over all clients, then 429 with ``Retry-After``.
- **Request size** (``Guard``): a body over ``MAX_BODY`` is refused with 413 before
  it is read (``Content-Length``) or as soon as the bytes streamed pass it.
- **File modes** (``private_folder``, ``private_file``): the state folder holds the
  invite and rater tokens, the secret key and the blind studies' audit keys, so it is the
  owner's alone.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import sqlite3
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.requests import cookie_parser
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from normlab.core.errors import InputError
from normlab.core.files import read_bytes

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
"""Bind addresses meaning every interface."""
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
MIN_OWNER_TOKEN = 32
SESSION_COOKIE = "normlab_session"
MAX_BODY = 200_000
"""Bytes in a request body: a form here is a few short fields; the longest, a rating's notes
(``MAX_NOTES`` characters), is under 50 kB percent-encoded."""
MAX_FIELDS = 20
"""Fields in a form (the longest form, a new study, has 7)."""
MAX_NOTES = 4000
"""Characters of a rater's notes on one item."""
MAX_AMENDED = 16_000
"""Characters of a curator's amended text (a whole dialogue, in curation studies): with the
notes, under ``MAX_BODY`` percent-encoded even in three-byte characters."""
MAX_NAME = 60
"""Characters of a rater's name."""
OWNER_SESSION_SECONDS = 12 * 3600
SECRET_KEY = "secret.key"
FULL_DISK = frozenset({errno.ENOSPC, errno.EDQUOT})
SQLITE_FULL = 13
SQLITE_IOERR = 10

_HOST = re.compile(r"(?:\[([0-9a-f:.]+)\]|([a-z0-9._-]+))(?::(\d{1,5}))?", re.ASCII)
_SESSION_ID = re.compile(r"[A-Za-z0-9_-]{43}", re.ASCII)


def host_name(header: str) -> str | None:
    """The name in a ``Host`` header, lowercased, port and IPv6 brackets dropped; None when
    the header is not a host name (a rebinding name is a name: ``HostPolicy`` decides)."""
    found = _HOST.fullmatch(header.strip().lower())
    if found is None:
        return None
    return found.group(1) or found.group(2)


def is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_name(value: str) -> str:
    """An ``--allow-host`` value as the name a Host header carries: a DNS name or an IP
    address, without scheme, port or path (the port is never checked)."""
    text = value.strip().lower()
    if is_ip(text.strip("[]")):
        return text.strip("[]")
    found = _HOST.fullmatch(text)
    if found is None or found.group(2) is None or found.group(3) is not None:
        raise InputError(
            "--allow-host",
            f"{value!r} is not a host name: give the name alone, as in "
            "--allow-host lab.example.org",
            field="allow_host",
        )
    return found.group(2)


@dataclass(frozen=True)
class HostPolicy:
    """The ``Host`` names the server answers to (see the module docstring)."""

    names: frozenset[str]
    any_address: bool = False
    """Bound to every interface: an IP address is served too (no rebinding page can send one
    for itself: its own pages carry its name)."""

    @classmethod
    def for_bind(cls, host: str, allow: Iterable[str] = ()) -> HostPolicy:
        extra = {allowed_name(name) for name in allow}
        if host in WILDCARDS:
            return cls(LOOPBACK_NAMES | extra, any_address=True)
        if is_loopback(host):
            return cls(LOOPBACK_NAMES | extra)
        return cls(frozenset({host.strip("[]").lower()}) | extra)

    def allows(self, name: str) -> bool:
        return name in self.names or (self.any_address and is_ip(name))


def same_origin(headers: Headers) -> bool:
    """Whether a request's ``Origin`` (else its ``Referer``) names the host it was sent to;
    True when it carries neither (old clients, ``Referrer-Policy: no-referrer``): CSRF then
    decides."""
    source = headers.get("origin")
    if source is None:
        source = headers.get("referer")
    if source is None:
        return True
    try:
        parts = urlsplit(source)
    except ValueError:
        return False
    host = headers.get("host", "")
    return parts.scheme in {"http", "https"} and parts.netloc.lower() == host.strip().lower()


def _bytes(text: str) -> bytes:
    """``text`` as bytes whatever it holds (a form value can carry lone surrogates)."""
    return text.encode("utf-8", "surrogatepass")


def check_owner_token(token: str, option: str) -> None:
    """An owner token too short to resist guessing is a one-line error naming ``option``."""
    if len(token) < MIN_OWNER_TOKEN:
        raise InputError(
            option,
            f"an owner token needs at least {MIN_OWNER_TOKEN} characters (this one has "
            f"{len(token)}); make one with: python -c 'import secrets; "
            "print(secrets.token_urlsafe(32))'",
            field=option.lstrip("-").replace("-", "_"),
        )


class OwnerToken:
    """The owner token, held only as its SHA-256: compared in constant time, on bytes."""

    def __init__(self, token: str) -> None:
        self._digest = hashlib.sha256(_bytes(token)).digest()

    def matches(self, given: str) -> bool:
        return hmac.compare_digest(hashlib.sha256(_bytes(given)).digest(), self._digest)


class Sessions:
    """Session ids, their CSRF tokens, and which sessions logged in as the owner.

    Owner sessions live in memory: a restart asks the owner to log in again, and nothing
    that opens the owner pages is ever written to disk.
    """

    def __init__(
        self,
        key: bytes,
        lifetime: float = OWNER_SESSION_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._key = key
        self._lifetime = lifetime
        self.clock = clock
        self._owners: dict[bytes, float] = {}
        self._lock = threading.Lock()

    @staticmethod
    def new() -> str:
        return secrets.token_urlsafe(32)

    @staticmethod
    def valid(session: str | None) -> bool:
        return session is not None and _SESSION_ID.fullmatch(session) is not None

    def _mac(self, purpose: bytes, session: str) -> bytes:
        return hmac.new(self._key, purpose + b":" + _bytes(session), hashlib.sha256).digest()

    def csrf(self, session: str) -> str:
        """The CSRF token of ``session``: only this server can make it, for this session."""
        return base64.urlsafe_b64encode(self._mac(b"csrf", session)).rstrip(b"=").decode()

    def csrf_ok(self, session: str, given: str) -> bool:
        return hmac.compare_digest(_bytes(self.csrf(session)), _bytes(given))

    def make_owner(self) -> str:
        """A new session id that opens the owner pages (issued at login, so a session id
        planted before it is worth nothing)."""
        session = self.new()
        now = self.clock()
        with self._lock:
            self._owners = {k: end for k, end in self._owners.items() if end > now}
            self._owners[self._mac(b"owner", session)] = now + self._lifetime
        return session

    def is_owner(self, session: str) -> bool:
        if not self.valid(session):
            return False
        with self._lock:
            end = self._owners.get(self._mac(b"owner", session))
        return end is not None and end > self.clock()

    def end(self, session: str) -> None:
        with self._lock:
            self._owners.pop(self._mac(b"owner", session), None)


class LoginLimiter:
    """Wrong owner tokens: at most ``per_client`` a window from one client address, and
    ``overall`` from all of them together (an attacker with many addresses still gets only
    that many guesses a minute; the owner may then wait too, which is the price)."""

    def __init__(
        self,
        per_client: int = 5,
        overall: int = 30,
        window: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_client = per_client
        self.overall = overall
        self.window = window
        self.clock = clock
        self._clients: dict[str, deque[float]] = {}
        self._all: deque[float] = deque()
        self._lock = threading.Lock()

    def _prune(self, now: float) -> None:
        start = now - self.window
        while self._all and self._all[0] <= start:
            self._all.popleft()
        for client in list(self._clients):
            times = self._clients[client]
            while times and times[0] <= start:
                times.popleft()
            if not times:
                del self._clients[client]

    def retry_after(self, client: str) -> int:
        """Seconds until ``client`` may try again; 0 when it may now."""
        now = self.clock()
        with self._lock:
            self._prune(now)
            waits = []
            if len(self._all) >= self.overall:
                waits.append(self._all[0] + self.window - now)
            mine = self._clients.get(client)
            if mine is not None and len(mine) >= self.per_client:
                waits.append(mine[0] + self.window - now)
        return max(1, math.ceil(max(waits))) if waits else 0

    def failed(self, client: str) -> None:
        now = self.clock()
        with self._lock:
            self._prune(now)
            self._all.append(now)
            self._clients.setdefault(client, deque()).append(now)

    def succeeded(self, client: str) -> None:
        with self._lock:
            self._clients.pop(client, None)


class BodyTooLarge(Exception):
    """Raised from the request stream once more than ``MAX_BODY`` bytes came in."""


class Guard:
    """ASGI middleware in front of every route: host names, origin, body size, the session
    cookie and the security headers (see the module docstring)."""

    def __init__(
        self, app: ASGIApp, *, policy: HostPolicy, sessions: Sessions, max_body: int = MAX_BODY
    ) -> None:
        self.app = app
        self.policy = policy
        self.sessions = sessions
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        name = host_name(headers.get("host", ""))
        if name is None or not self.policy.allows(name):
            await _plain(
                scope,
                receive,
                send,
                400,
                "This server does not answer to that host name. Open it by the address it was "
                "started on, or start it with --allow-host NAME.",
            )
            return
        if scope["method"] not in SAFE_METHODS and not same_origin(headers):
            await _plain(scope, receive, send, 403, "Cross-site request refused.")
            return
        length = headers.get("content-length")
        if length is not None and (not length.isascii() or not length.strip().isdigit()):
            await _plain(scope, receive, send, 400, "Bad Content-Length.")
            return
        if length is not None and int(length) > self.max_body:
            await _plain(scope, receive, send, 413, self._too_large())
            return

        given = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE)
        fresh = given is None or not Sessions.valid(given)
        session = Sessions.new() if given is None or fresh else given
        state = scope.setdefault("state", {})
        state["session"] = session
        state["csrf"] = self.sessions.csrf(session)
        secure = scope.get("scheme") == "https"
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_body:
                    raise BodyTooLarge
            return message

        async def marked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                out = MutableHeaders(scope=message)
                out["Content-Security-Policy"] = (
                    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
                    "frame-ancestors 'none'; form-action 'self'"
                )
                out["X-Content-Type-Options"] = "nosniff"
                out["Referrer-Policy"] = "same-origin"
                if fresh:
                    out.append("set-cookie", session_cookie(session, secure))
            await send(message)

        try:
            await self.app(scope, counted, marked)
        except BodyTooLarge:
            if started:
                raise
            await _plain(scope, receive, send, 413, self._too_large())

    def _too_large(self) -> str:
        return f"Request too large: at most {self.max_body:,} bytes."


async def _plain(scope: Scope, receive: Receive, send: Send, status: int, text: str) -> None:
    response = PlainTextResponse(text + "\n", status_code=status)
    response.headers["X-Content-Type-Options"] = "nosniff"
    await response(scope, receive, send)


def session_cookie(session: str, secure: bool) -> str:
    """The ``Set-Cookie`` value for a session id: not readable by scripts, never sent by
    another site's requests, and only over HTTPS when the page came over HTTPS."""
    flags = "; Secure" if secure else ""
    return f"{SESSION_COOKIE}={session}; HttpOnly; Path=/; SameSite=Strict{flags}"


def private_folder(path: Path) -> Path:
    """``path`` made (if missing) and kept the owner's alone (0700), however it was made."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path, 0o700)
    return path


def private_file(path: Path) -> Path:
    """``path`` made empty if missing and kept the owner's alone (0600): created with that
    mode, so there is no moment in which another user could open it."""
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
    os.chmod(path, 0o600)
    return path


def secret_key(state: Path) -> bytes:
    """The server's secret key (``STATE/secret.key``, 0600), made once: CSRF tokens stay
    valid across restarts, and two servers on one state folder agree on it."""
    path = state / SECRET_KEY
    if not path.exists():
        handle, temporary = tempfile.mkstemp(dir=state, prefix=".secret-")
        try:
            os.write(handle, secrets.token_bytes(32))
            os.fsync(handle)
            os.close(handle)
            with contextlib.suppress(FileExistsError):
                os.link(temporary, path)  # never replaces a key another server just made
        finally:
            os.unlink(temporary)
    private_file(path)
    key = read_bytes(path, 4096)  # a regular file of a few bytes, whatever was put there
    if len(key) < 32:
        raise InputError(path, "not a normlab secret key (too short): delete it and restart")
    return key


def tighten(state: Path, database: str) -> None:
    """The state folder's own files as ``private_folder`` and ``private_file`` want
    them, for a folder an older normlab made with the umask's modes (0755, 0644). Only
    normlab's own entries are touched: ``--state`` may name a folder that holds more."""
    private_folder(state)
    files = [state / name for name in (database, f"{database}-wal", f"{database}-shm")]
    studies = state / "studies"
    if studies.is_dir() and not studies.is_symlink():
        private_folder(studies)
        for study in studies.iterdir():
            if study.is_dir() and not study.is_symlink():
                private_folder(study)
                files.extend(study.iterdir())
    for path in files:
        if path.is_file() and not path.is_symlink():
            os.chmod(path, 0o600)


def storage_failure(error: BaseException) -> str | None:
    """What ``error`` says of the disk it was writing, as the end of "The state folder X …",
    or ``None`` for an error that is no storage failure (a bug, to be a 500).

    A full disk (or quota) from a file write or SQLite's ``SQLITE_FULL`` is "is full". Near
    full, SQLite often fails earlier, in the ``fsync`` of ``PRAGMA synchronous=FULL`` or a
    write to its WAL, with an ``SQLITE_IOERR`` (extended codes keep it in the low byte):
    that is the lab's disk to look at too, not a bug."""
    if isinstance(error, OSError):
        return "is full" if error.errno in FULL_DISK else None
    if not isinstance(error, sqlite3.Error):
        return None
    code = getattr(error, "sqlite_errorcode", None)
    primary = code & 0xFF if isinstance(code, int) else None
    if primary == SQLITE_FULL or "disk is full" in str(error):
        return "is full"
    if primary == SQLITE_IOERR or "disk I/O error" in str(error):
        return "could not be written (SQLite: disk I/O error, as on a nearly full disk)"
    return None
