"""Writing report.html: whole or not at all, credentials redacted, a full disk named by its path."""

from __future__ import annotations

import errno
import io
import os
from pathlib import Path
from typing import IO, Any

import pytest
from typer.testing import CliRunner

from normlab.cli import app
from normlab.core.errors import OutputError
from normlab.core.outputs import replacing
from normlab.report import HtmlReport

HSII = Path(__file__).parents[1] / "hsii" / "fixtures"
MODEL = f"scripted/{HSII / 'script.json'}"


class _FullDiskHandle:
    """A file being written when the disk fills: half of the next write lands, then the
    error a write to an open file raises, which names no file."""

    def __init__(self, handle: IO[Any], code: int) -> None:
        self._handle, self._code = handle, code

    def write(self, text: str) -> int:
        self._handle.write(text[: len(text) // 2])
        self._handle.flush()
        raise OSError(self._code, os.strerror(self._code))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _FullDiskHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def _full_disk(monkeypatch: pytest.MonkeyPatch, folder: Path, code: int = errno.ENOSPC) -> None:
    """Every file opened for writing in ``folder`` (by path, or by descriptor) meets a full
    disk; the rest of the file system is as it was."""
    real_open = io.open

    def target(file: Any) -> Path:
        return Path(os.readlink(f"/proc/self/fd/{file}") if isinstance(file, int) else file)

    def open_(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(file, mode, *args, **kwargs)
        writing = any(flag in mode for flag in "wax+")
        if writing and target(file).resolve().parent == folder.resolve():
            return _FullDiskHandle(handle, code)
        return handle

    monkeypatch.setattr(io, "open", open_)


def test_a_report_is_written_whole_with_credentials_redacted(tmp_path: Path) -> None:
    report = HtmlReport("R")
    report.paragraph("endpoint http://user:s3cret-pass@host:8000/v1?sig=abc&sv=1 answered")
    path = report.write(tmp_path / "sub" / "report.html")
    html = path.read_text()
    assert "http://user:***@host:8000/v1?sig=***&amp;sv=1" in html and "s3cret" not in html
    assert sorted(p.name for p in path.parent.iterdir()) == ["report.html"]  # no temporary left


def test_a_full_disk_leaves_the_old_report_and_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "report.html"
    path.write_text("the previous report")
    _full_disk(monkeypatch, tmp_path)
    with pytest.raises(OutputError) as raised:
        HtmlReport("R").write(path)
    assert str(raised.value) == f"{path}: cannot write (No space left on device)"
    assert path.read_text() == "the previous report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EDQUOT])
def test_the_report_command_says_which_file_the_full_disk_stopped(
    workdir: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    runner = CliRunner()
    run = runner.invoke(
        app,
        ["hsii", "run", "--model", MODEL, "--judge", MODEL, "--role", f"persona={MODEL}",
         "--role", f"reference=scripted/{HSII / 'reference.json'}",
         "--cases", str(HSII / "paper_tables.jsonl"), "--log-dir", "logs"],
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    old = (workdir / "logs" / "report.html").read_bytes()

    _full_disk(monkeypatch, workdir / "logs", code)
    result = runner.invoke(app, ["hsii", "report", "logs", "--out", "logs"])
    assert result.exit_code == 2, result.output
    line = result.output.strip().splitlines()[-1]
    assert line == f"normlab: error: logs/report.html: cannot write ({os.strerror(code)})"
    assert "Traceback" not in result.output
    assert (workdir / "logs" / "report.html").read_bytes() == old
    assert not list((workdir / "logs").glob(".report.html.*"))


def test_an_error_about_another_file_is_left_as_it_is(tmp_path: Path) -> None:
    path = tmp_path / "out.jsonl"
    with pytest.raises(FileNotFoundError) as raised, replacing(path) as handle:
        handle.write("a row\n")
        (tmp_path / "missing.json").read_text()
    assert raised.value.filename == str(tmp_path / "missing.json")
    assert list(tmp_path.iterdir()) == []
