"""Secrets out of every file: canaries in the API key, in the base URL's password and in the
environment, and a real run of HSII and CRSEC through the command line against an
OpenAI-compatible endpoint on loopback; then every byte written is searched, inside ``.eval``
archives (each member read) and compressed trace files too, and every line printed.

Inspect used to write ``SERVICE_BASE_URL=http://user:PASSWORD@host/v1`` into each role's
``base_url`` in the ``.eval`` header, ``_journal/start.json`` and ``logs.json``, and every
request's URL into its trace file; the preflight error named the URL whole.
"""

from __future__ import annotations

import base64
import gzip
import json
import logging
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai._util.logger import _logHandler
from typer.testing import CliRunner, Result

from normlab.cli import app
from tests.helpers.endpoint import model_name, service, serving
from tests.models.test_preflight import free_port

HSII = Path(__file__).parent / "hsii" / "fixtures"
CRSEC = Path(__file__).parent / "crsec" / "fixtures"
KEY = "canary-key-3f9c1a7e"
PASSWORD = "canary-pass-8b2d6e40"
ENV_SECRET = "canary-env-51c7a9d3"
CANARIES = [
    KEY,
    PASSWORD,
    ENV_SECRET,
    # the user-info as an HTTP Basic credential, should a request's headers ever be recorded
    base64.b64encode(f"user:{PASSWORD}".encode()).decode(),
]
runner = CliRunner()


def _invoke(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert not any(canary in result.output for canary in CANARIES), result.output
    return result


def _with_credentials(endpoint_url: str) -> str:
    return endpoint_url.replace("http://", f"http://user:{PASSWORD}@", 1)


def _contents(path: Path) -> Iterator[tuple[str, bytes]]:
    """Every byte of ``path``: the file itself, each member of a zip (an ``.eval`` log), and
    the text of a gzip file (a trace file Inspect compressed at exit)."""
    data = path.read_bytes()
    yield str(path), data
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:  # Inspect's zstd members: its import adds them
            for name in archive.namelist():
                yield f"{path}!{name}", archive.read(name)
    if path.suffix == ".gz":
        yield f"{path}!gunzip", gzip.decompress(data)


def _written(root: Path) -> dict[str, bytes]:
    files = (path for path in sorted(root.rglob("*")) if path.is_file() and not path.is_symlink())
    return {name: data for path in files for name, data in _contents(path)}


def _run_args(model: str, logs: Path) -> list[str]:
    """An HSII run with every role but the reference on ``model``."""
    return [
        "--model", model, "--judge", model, "--role", f"persona={model}",
        "--role", f"reference=scripted/{HSII / 'reference.json'}",
        "--cases", str(HSII / "paper_tables.jsonl"), "--log-dir", str(logs),
        "--report-dir", str(logs.parent / "report"),
    ]  # fmt: skip


def _trace_file() -> Path | None:
    """The file Inspect's trace handler writes every log record of this process to (created
    when the first eval ran, in this test or an earlier one)."""
    handler = _logHandler["handler"]
    trace = getattr(handler, "trace_logger", None)
    return Path(trace.baseFilename) if isinstance(trace, logging.FileHandler) else None


def test_no_canary_reaches_a_file_or_a_line_printed(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NORMLAB_CANARY_TOKEN", ENV_SECRET)
    trace_before = _trace_file()
    trace_start = trace_before.stat().st_size if trace_before and trace_before.exists() else 0
    logs, endpoints = workdir / "logs", workdir / "endpoints"
    with (
        serving(endpoints / "hsii", HSII / "script.json", monkeypatch) as hsii_endpoint,
        serving(endpoints / "crsec", CRSEC / "busy.json", monkeypatch) as crsec_endpoint,
    ):
        for endpoint in (hsii_endpoint, crsec_endpoint):
            prefix = service(endpoint).upper()
            monkeypatch.setenv(f"{prefix}_BASE_URL", _with_credentials(endpoint.base_url))
            monkeypatch.setenv(f"{prefix}_API_KEY", KEY)
        model = model_name(hsii_endpoint)
        run = _invoke("hsii", "run", *_run_args(model, logs))
        assert run.exit_code == 0, run.output
        assert hsii_endpoint.stats()["replies"] > 0  # the calls went through the URL
        # resumed on the same folder: the redacted log is the same run's
        assert _invoke("hsii", "run", *_run_args(model, logs)).exit_code == 0
        crsec_model = model_name(crsec_endpoint)
        simulated = _invoke(
            "crsec", "run", "--model", crsec_model, "--judge", crsec_model,
            "--out", str(workdir / "crsec"), "--agents", "Bob Johnson,Carlos Gomez",
            "--hours", "9-10", "--days", "1",
        )  # fmt: skip
        assert simulated.exit_code == 0, simulated.output
        assert crsec_endpoint.stats()["replies"] > 0
    report = _invoke("hsii", "report", str(logs), "--out", str(workdir / "report-again"))
    assert report.exit_code == 0, report.output
    assert _invoke("hsii", "analyze", str(logs), "--json").exit_code == 0

    written = _written(workdir)
    trace = _trace_file()
    if trace is not None and trace.exists():
        written[f"{trace} (from byte {trace_start})"] = trace.read_bytes()[trace_start:]
    leaks = [
        f"{name}: {canary}"
        for name, data in written.items()
        for canary in CANARIES
        if canary.encode() in data
    ]
    assert not leaks, "\n".join(leaks)
    # What was searched: the log's header and journal, the eval set's index, the reports,
    # the simulation's run folder and Inspect's trace of this run.
    redacted = _with_credentials(hsii_endpoint.base_url).replace(PASSWORD, "***")
    (header,) = (data for name, data in written.items() if name.endswith(".eval!header.json"))
    assert json.loads(header)["eval"]["model_roles"]["judge"]["base_url"] == redacted
    searched = ("!_journal/start.json", "logs/logs.json", "report/report.html",
                "report-again/report.html", "crsec/events.jsonl", "crsec/report.html")  # fmt: skip
    for suffix in searched:
        assert any(name.endswith(suffix) for name in written), suffix
    # Inspect's trace, where this process has one and this run wrote to it (after other
    # tests in the same process it may have rotated), holds the URL redacted.
    traced = b"".join(data for name, data in written.items() if name.startswith(str(trace)))
    assert not traced or redacted.encode() in traced


def test_an_unreachable_endpoint_is_named_without_its_password(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    port = free_port()  # a loopback port nothing listens on
    monkeypatch.setenv("DOWN_BASE_URL", f"http://user:{PASSWORD}@127.0.0.1:{port}/v1")
    monkeypatch.setenv("DOWN_API_KEY", KEY)
    result = _invoke("hsii", "run", "--model", "openai-api/down/m", "--log-dir", "logs")
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert f"(http://user:***@127.0.0.1:{port}/v1); is the server running?" in line
    checked = _invoke("models", "check", "--model", "openai-api/down/m", "--timeout", "2")
    assert checked.exit_code == 2, checked.output
    assert not (workdir / "logs").exists()


LOSONA = Path(__file__).parent / "losona" / "fixtures"


def test_inspect_eval_redacts_normlab_tasks_and_leaves_other_tasks_as_inspect_wrote_them(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``inspect eval normlab/losona`` through Inspect's own ``eval`` (the registry name, the
    entry point), then a task that is not normlab's in the same process: the normlab task's
    files hold no credential, its header the URL redacted; the other task's header keeps its
    URL as Inspect wrote it (before, loading the entry point redacted every task's)."""
    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelConfig
    from inspect_ai.solver import generate

    import normlab._registry  # noqa: F401 (what Inspect loads for ``normlab/…``)

    monkeypatch.setenv("NORMLAB_CANARY_TOKEN", ENV_SECRET)
    with serving(workdir / "endpoint", LOSONA / "script.json", monkeypatch) as endpoint:
        prefix = service(endpoint).upper()
        url = _with_credentials(endpoint.base_url)
        monkeypatch.setenv(f"{prefix}_BASE_URL", url)
        monkeypatch.setenv(f"{prefix}_API_KEY", KEY)
        model = model_name(endpoint)
        (ours,) = inspect_eval(
            "normlab/losona",
            model=model,
            model_roles={"judge": model},
            task_args={"scenarios": str(LOSONA / "scenarios.jsonl"), "conditions": "naive"},
            epochs=1,
            log_dir=str(workdir / "logs"),
            display="none",
        )
        other_task = Task(dataset=[Sample(input="Your next message:")], solver=generate())
        (other,) = inspect_eval(
            other_task,
            model=model,
            model_roles={"judge": model},
            log_dir=str(workdir / "other"),
            display="none",
        )
        assert endpoint.stats()["replies"] > 0  # the calls went through the URL
    assert (ours.status, other.status) == ("success", "success")
    written = _written(workdir / "logs")
    leaks = [
        f"{name}: {c}" for name, data in written.items() for c in CANARIES if c.encode() in data
    ]
    assert not leaks, "\n".join(leaks)
    (header,) = (data for name, data in written.items() if name.endswith(".eval!header.json"))
    redacted = url.replace(PASSWORD, "***")
    assert json.loads(header)["eval"]["model_roles"]["judge"]["base_url"] == redacted
    # Not normlab's task: not normlab's to rewrite (Inspect records a role's URL whole).
    roles = other.eval.model_roles or {}
    assert isinstance(roles["judge"], ModelConfig) and roles["judge"].base_url == url
