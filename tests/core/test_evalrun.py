"""One folder per configuration: the default log folder names what changes the samples, and a
folder holding another configuration is refused on one line naming what differs (issue 18)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task, task

from normlab.core.evalrun import Configuration
from tests.losona.conftest import SCENARIOS, SCRIPT, run_cli

MODEL = f"scripted/{SCRIPT}"


@task
def example(conditions: list[str] | None = None, limit: int | None = None, k: int = 3) -> Task:
    return Task()


def test_only_arguments_that_differ_from_the_defaults_name_the_folder() -> None:
    assert Configuration.of(example, {"k": 3, "limit": None}).folder() == "defaults"
    assert Configuration.of(example, {"conditions": []}).folder() == "defaults"
    changed = Configuration.of(example, {"conditions": ["naive"], "limit": 1, "k": 1})
    assert changed.folder() == "conditions-naive__k-1__limit-1"
    assert changed.arguments == {"conditions": ["naive"], "limit": 1, "k": 1}
    assert Configuration.of(example, {"k": 1}, beside=("k",)).folder() == "defaults"


def test_a_shortened_value_adds_a_digest_so_two_files_never_share_a_folder() -> None:
    a = Configuration.of(example, {"conditions": ["/data/a/set.jsonl"]}).folder()
    b = Configuration.of(example, {"conditions": ["/data/b/set.jsonl"]}).folder()
    assert a.startswith("conditions-set.jsonl__") and b.startswith("conditions-set.jsonl__")
    assert a != b
    long = Configuration.of(example, {"conditions": [f"c{i}" for i in range(60)]}).folder()
    assert len(long) <= 80


def losona(*extra: str) -> tuple[int, str]:
    return run_cli(
        "losona", "run", "--model", MODEL, "--judge", MODEL, "--data", str(SCENARIOS), *extra
    )


def test_changing_the_options_runs_into_a_folder_of_its_own(workdir: Path) -> None:
    assert losona("-c", "naive")[0] == 0
    assert losona("-c", "norm_informed", "-k", "1")[0] == 0
    (models,) = (workdir / "runs" / "losona").iterdir()
    folders = sorted(path.name for path in models.iterdir())
    assert len(folders) == 2
    assert folders[0].startswith("conditions-naive__scenarios-scenarios.jsonl__")
    assert folders[1].startswith("conditions-norm_informed__epochs-1__scenarios-scenarios.jsonl__")
    assert losona("-c", "naive")[0] == 0  # the same options again: resumed, no third folder
    assert len(list(models.iterdir())) == 2


def test_a_folder_of_another_configuration_is_one_line_naming_the_option(workdir: Path) -> None:
    logs = str(workdir / "logs")
    assert losona("-c", "naive", "--log-dir", logs)[0] == 0
    code, output = losona("-c", "norm_informed", "--log-dir", logs)
    assert code == 2
    (line,) = output.strip().splitlines()
    assert line.startswith("normlab: error: --log-dir: ")
    assert "conditions=['naive'] there, ['norm_informed'] now" in line
    assert "choose another --log-dir" in line
    other = workdir / "other-judge.json"
    other.write_text(SCRIPT.read_text())
    code, output = losona("-c", "naive", "--log-dir", logs, "--judge", f"scripted/{other}")
    assert code == 2 and "(judge scripted/" in output and " now)" in output


def test_a_folder_of_another_task_version_is_refused_on_one_line(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new TASK_VERSION means results not comparable with the old: Inspect would run the
    task again beside the old log, and the folder's analysis would read both."""
    import normlab.losona.task

    logs = str(workdir / "logs")
    assert losona("-c", "naive", "--log-dir", logs)[0] == 0
    version = normlab.losona.task.TASK_VERSION
    monkeypatch.setattr(normlab.losona.task, "TASK_VERSION", version + 1)
    code, output = losona("-c", "naive", "--log-dir", logs)
    assert code == 2
    (line,) = output.strip().splitlines()
    assert line == (
        f"normlab: error: --log-dir: {logs} holds a run of task version {version}, and this is "
        f"version {version + 1}, whose results are not comparable with it: choose another "
        "--log-dir"
    )
    assert len(list((workdir / "logs").glob("*.eval"))) == 1


@pytest.mark.slow
def test_ctrl_c_says_what_is_safe_and_how_to_resume(tmp_path: Path) -> None:
    """Ctrl-C used to exit 2 with '.: no logs or records found' although the cancelled log
    held every finished sample; now exit 130, how many are safe, and the resume command."""
    import os
    import shlex
    import signal
    import subprocess
    import sys
    import time

    command = [
        str(Path(sys.executable).with_name("normlab")), "losona", "run",
        "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
        "--data", str(SCENARIOS), "--epochs", "100",
        "--log-dir", str(tmp_path / "logs"),
    ]  # fmt: skip
    output = tmp_path / "out.txt"
    with output.open("w") as sink:
        process = subprocess.Popen(command, stdout=sink, stderr=subprocess.STDOUT, cwd=tmp_path)
        deadline = time.monotonic() + 120
        while "finished (" not in output.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(0.3)  # 800 samples: seconds of work left
        process.send_signal(signal.SIGINT)
        code = process.wait(timeout=120)
    text = output.read_text()
    assert code == 130, text[-2000:]
    last = text.strip().splitlines()[-1]
    assert "interrupted;" in last and "finished samples are safe" in last, last
    assert last.endswith(f"to resume, rerun {shlex.join(['normlab', *command[1:]])}")
    assert "CancelledError" not in text  # cancelled samples are not reported as finished
    assert os.listdir(tmp_path / "logs")


def test_a_file_url_log_dir_is_that_folder_and_a_newline_is_refused(
    workdir: Path, tmp_path: Path
) -> None:
    """``--log-dir file:///…`` wrote the log under ./file:/…; a newline in the name finished
    the run and then could not find its own log."""
    target = tmp_path / "url-logs"
    code, output = run_cli(
        "losona", "run", "--model", f"scripted/{SCRIPT}", "--judge", f"scripted/{SCRIPT}",
        "--data", str(SCENARIOS), "-c", "naive", "--epochs", "1",
        "--log-dir", target.as_uri(),
    )  # fmt: skip
    assert code == 0, output
    assert list(target.glob("*.eval")) and not (workdir / "file:").exists()
    code, output = run_cli(
        "losona", "run", "--model", f"scripted/{SCRIPT}", "--log-dir", "runs\nx",
    )  # fmt: skip
    assert code == 2 and "--log-dir: 'runs\\nx' holds a control character" in output
    assert not (workdir / "runs\nx").exists()


def test_a_demo_folder_of_another_task_version_is_started_over(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``normlab demo`` after an upgrade: its own folder holds the old version's demo, which a
    run may not resume or sit beside; the demo starts over there instead of failing."""
    import normlab.losona.task
    import normlab.runs.benchmark
    from normlab.losona import run_losona

    monkeypatch.setattr(normlab.runs.benchmark, "DEFAULT_MODEL", MODEL)
    monkeypatch.setattr(normlab.runs.benchmark, "task_roles", lambda task: {"judge": MODEL})
    data = {"scenarios": str(SCENARIOS), "conditions": ["naive"], "epochs": 1}
    report = run_losona.demo(workdir, **data)  # type: ignore[arg-type]
    old = sorted((workdir / "losona").glob("*.eval"))
    assert report.exists() and len(old) == 1
    version = normlab.losona.task.TASK_VERSION
    monkeypatch.setattr(normlab.losona.task, "TASK_VERSION", version + 1)
    report = run_losona.demo(workdir, **data)  # type: ignore[arg-type]
    new = sorted((workdir / "losona").glob("*.eval"))
    assert report.exists() and len(new) == 1 and new != old
