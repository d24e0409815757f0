"""normlab installs as a library, not only as a checkout: the wheel built from this tree, put
into a fresh virtual environment (not editable), runs a LoSoNA run on the scripted model and
``inspect eval normlab/losona`` from a folder outside the repository, with every prompt, bank
and template it needs shipped inside the wheel.

Offline by construction: the wheel is built without build isolation (the setuptools already
installed), and the fresh environment takes normlab's dependencies (Inspect, the embedded
model's part packages…) from this environment's site-packages through a ``.pth`` line. Such a
line adds the folder only, never the ``.pth`` files inside it, so this checkout's editable
``src`` path stays out and only the wheel's copy of normlab can be imported.
"""

from __future__ import annotations

import os
import site
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "losona" / "fixtures"
DATA_SUFFIXES = {".txt", ".json", ".jsonl", ".md", ".html", ".css", ".js"}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    build = tmp_path_factory.mktemp("build")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--wheel-dir", str(out), str(ROOT)],
        check=True, capture_output=True, timeout=300, cwd=build,
        env={**os.environ, "PIP_NO_INDEX": "1"},
    )  # fmt: skip
    (path,) = sorted(out.glob("normlab-*.whl"))
    return path


def test_every_data_file_of_the_package_is_in_the_wheel(wheel: Path) -> None:
    shipped = set(zipfile.ZipFile(wheel).namelist())
    source = ROOT / "src"
    wanted = {
        path.relative_to(source).as_posix()
        for path in (source / "normlab").rglob("*")
        if path.is_file() and path.suffix in DATA_SUFFIXES
    }
    assert wanted and wanted <= shipped, sorted(wanted - shipped)[:10]


@pytest.mark.slow  # installs the wheel into a fresh environment and runs it there
def test_the_installed_wheel_runs_from_outside_the_repository(wheel: Path, tmp_path: Path) -> None:
    environment = tmp_path / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()  # fmt: skip
    # The wheel's files (not editable): unpacked into the fresh environment, as pip would.
    zipfile.ZipFile(wheel).extractall(purelib)
    (Path(purelib) / "normlab-dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n"
    )
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    env = {
        key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")
    }
    env.update(INSPECT_DISPLAY="none", PATH=f"{environment / 'bin'}:{env['PATH']}")
    imported = subprocess.run(
        [str(python), "-c", "import normlab; print(normlab.__file__)"],
        check=True, capture_output=True, text=True, cwd=outside, env=env,
    ).stdout  # fmt: skip
    assert imported.startswith(purelib), imported  # the wheel's copy, not the checkout's
    model = f"scripted/{FIXTURES / 'script.json'}"
    run = subprocess.run(
        [str(python), "-m", "normlab.cli", "losona", "run", "--model", model, "--judge", model,
         "--data", str(FIXTURES / "scenarios.jsonl"), "-c", "naive", "--epochs", "1",
         "--log-dir", "logs"],
        capture_output=True, text=True, cwd=outside, env=env, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    assert (outside / "logs" / "report.html").exists()
    counted = (  # the shipped banks and prompts, as the wheel's copy of normlab reads them
        "from normlab.losona import load_scenarios; from normlab.losona.dataset import "
        "SCENARIOS_PATH; from normlab.hsii import load_cases; from normlab.norms import PROMPTS; "
        "from normlab.crsec.prompts import PROMPTS as OWN; "
        "print(len(load_scenarios(SCENARIOS_PATH)), len(load_cases()), "
        "len(PROMPTS.load('create_norm')), len(OWN.load('questionnaire')))"
    )
    shipped = subprocess.run(
        [str(python), "-c", counted], capture_output=True, text=True, cwd=outside, env=env,
        timeout=120,
    )  # fmt: skip
    assert shipped.returncode == 0, shipped.stderr[-2000:]
    here = subprocess.run(  # the same, read from this checkout
        [sys.executable, "-c", counted], capture_output=True, text=True, check=True, timeout=120
    )
    scenarios, cases, norm_prompt, questionnaire = map(int, shipped.stdout.split())
    assert shipped.stdout == here.stdout
    assert scenarios > 0 and cases > 0 and norm_prompt > 0 and questionnaire > 0
    inspect = subprocess.run(
        [str(python), "-m", "inspect_ai", "eval", "normlab/losona", "--model", model,
         "--model-role", f"judge={model}", "-T", f"scenarios={FIXTURES / 'scenarios.jsonl'}",
         "-T", "conditions=naive", "--epochs", "1", "--log-dir", "inspect-logs"],
        capture_output=True, text=True, cwd=outside, env=env, timeout=300,
    )  # fmt: skip
    assert inspect.returncode == 0, inspect.stdout[-2000:] + inspect.stderr[-2000:]
    assert list((outside / "inspect-logs").glob("*.eval"))
