"""Web app fixtures: scripted runs of all four systems, a live server, a headless Chromium.

The runs are made once per session by the systems' own commands on the scripted model.
The browser is Debian's Chromium driven by Playwright (no browser download): when it is
missing the browser tests skip, unless ``NORMLAB_REQUIRE_BROWSER=1`` (set by ``.ci/run``,
which installs it) makes that a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi.testclient import TestClient
from starlette.types import ASGIApp
from typer.testing import CliRunner

from normlab.cli import app as cli_app
from normlab.web import ServeSettings, create_app
from normlab.web.play import PlayConfig
from tests.conftest import _guarded_connect
from tests.crsec.support import BUSY_MODEL, SMALL
from tests.web.browser_thread import PlaywrightThread

LOSONA = Path(__file__).parents[1] / "losona" / "fixtures"
SCENE = Path(__file__).parents[1] / "scene" / "fixtures"
HSII = Path(__file__).parents[1] / "hsii" / "fixtures"
LOSONA_MODEL = f"scripted/{LOSONA / 'script.json'}"
SCENE_MODEL = f"scripted/{SCENE / 'script.json'}"
HSII_MODEL = f"scripted/{HSII / 'script.json'}"
HSII_REFERENCE = f"scripted/{HSII / 'reference.json'}"
INJECTED = "<script>window.pwned = 1</script><b>bold</b>"
CHROMIUM = os.environ.get("NORMLAB_CHROMIUM", "/usr/bin/chromium")
SCREENSHOTS = os.environ.get("NORMLAB_SCREENSHOTS")
"""Folder to save the README's screenshots into (``docs/screenshots`` when refreshing them)."""

TOKEN = "correct-horse-battery-staple-owner-token"
"""An owner token long enough to be accepted (32 characters at least)."""

runner = CliRunner()


def local(app: ASGIApp, **options: Any) -> TestClient:
    """A test client that says ``Host: 127.0.0.1``, as a browser on this machine does
    (TestClient's own ``testserver`` is a name the server refuses, as it should)."""
    return TestClient(app, base_url="http://127.0.0.1", **options)


def cli(*args: str) -> str:
    result = runner.invoke(cli_app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def injected_scenarios(folder: Path) -> Path:
    """LoSoNA's test scenarios with markup in a turn, to prove every page keeps it text."""
    rows = [json.loads(line) for line in (LOSONA / "scenarios.jsonl").read_text().splitlines()]
    rows[0]["transcript"][1]["content"] = f"looking {INJECTED}"
    path = folder / "scenarios.jsonl"
    path.write_text("\n".join(json.dumps(row) for row in rows) + "\n")
    return path


def make_runs(root: Path) -> dict[str, Any]:
    """One scripted run per system under ``root`` (as ``normlab demo`` lays them out)."""
    scenarios = injected_scenarios(root.parent)
    cli(
        "losona", "run", "--model", LOSONA_MODEL, "--judge", LOSONA_MODEL,
        "--data", str(scenarios), "-c", "naive", "-c", "norm_informed", "--epochs", "1",
        "--log-dir", str(root / "losona"),
    )  # fmt: skip
    personas = [
        a for r in ("persona", "orchestrator", "auditor") for a in ("--role", f"{r}={SCENE_MODEL}")
    ]
    cli(
        "scene", "run", "--model", SCENE_MODEL, "--judge", SCENE_MODEL, *personas,
        "--data", str(SCENE / "scenarios.jsonl"), "--reps", "1", "--log-dir", str(root / "scene"),
    )  # fmt: skip
    cli(
        "hsii", "run", "--model", HSII_MODEL, "--judge", HSII_MODEL,
        "--role", f"persona={HSII_MODEL}", "--role", f"reference={HSII_REFERENCE}",
        "--cases", str(HSII / "paper_tables.jsonl"), "--epsilon", "2",
        "--log-dir", str(root / "hsii"),
    )  # fmt: skip
    cli(
        "crsec", "run", "--model", BUSY_MODEL, "--judge", BUSY_MODEL, "--out", str(root / "crsec"),
        "--agents", ",".join(SMALL), "--hours", "9-11", "--days", "1",
    )  # fmt: skip
    return {"scenarios": scenarios}


@pytest.fixture(scope="session")
def session_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The test guards (no network, no display, private Inspect cache) for session fixtures."""
    base = tmp_path_factory.mktemp("web-session")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket.socket, "connect", _guarded_connect)
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("INSPECT_DISPLAY", "none")
        patch.setenv("INSPECT_CACHE_DIR", str(base / "inspect-cache"))
        patch.chdir(base)
        yield base


@pytest.fixture(scope="session")
def built_runs(session_env: Path) -> Path:
    root = session_env / "runs"
    make_runs(root)
    return root


@pytest.fixture
def runs(built_runs: Path, tmp_path: Path) -> Path:
    """A private copy of the session's runs (tests add plays and studies to it)."""
    root = tmp_path / "runs"
    shutil.copytree(built_runs, root)
    shutil.copy(built_runs.parent / "scenarios.jsonl", tmp_path / "scenarios.jsonl")
    return root


def settings_for(runs: Path, **changes: Any) -> ServeSettings:
    """Serve ``runs`` with LoSoNA's scripted judge and the injected scenarios to play."""
    values: dict[str, Any] = {
        "runs": runs,
        "state": runs / ".normlab",
        "judge": LOSONA_MODEL,
        "play": PlayConfig(banks={"losona": runs.parent / "scenarios.jsonl"}),
    }
    values.update(changes)
    return ServeSettings(**values)


@contextmanager
def serving(settings: ServeSettings) -> Iterator[str]:
    """The app on a free loopback port in a thread, for a real browser."""
    app = create_app(settings)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Chromium through Playwright started on a thread of its own (``browser_thread``), so no
    event loop stays running in this one for the tests that come after a browser test."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("NORMLAB_REQUIRE_BROWSER") == "1":
            pytest.fail(f"{CHROMIUM} is missing and NORMLAB_REQUIRE_BROWSER=1")
        pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    thread = PlaywrightThread()
    playwright = thread.call(lambda: sync_playwright().start())
    try:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        yield chromium
        chromium.close()
    finally:
        playwright.stop()
        thread.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 860})
    page = context.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:  # called on Playwright's thread, with its Dialog
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.dialogs = dialogs
    yield page
    context.close()


def screenshot(page: Any, name: str) -> None:
    """Save the page for the README when ``NORMLAB_SCREENSHOTS`` names a folder."""
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"))
