"""Package faces stay light: importing a face, the command line's modules or Inspect's entry
point loads only what it needs (``normlab --help`` answers at once; Inspect starts fast)."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

import normlab
from normlab._faces import face_imports

SOURCE = Path(normlab.__file__).parent
FACES = sorted(
    path.parent.relative_to(SOURCE.parent).as_posix().replace("/", ".")
    for path in SOURCE.glob("*/__init__.py")
)
HEAVY = ("inspect_ai", "matplotlib", "fastapi", "openai", "numpy", "sklearn", "scipy")


def loaded_after(statement: str) -> set[str]:
    """The top-level packages and normlab modules a fresh interpreter holds after ``statement``."""
    code = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(result.stdout.splitlines()[-1]))


PRELOADED = ("inspect_ai", "pydantic", "numpy", "scipy.stats", "jinja2", "yaml", "httpx", "rich")
"""Third-party libraries the faces' names use and may load, none of them a command line,
matplotlib or FastAPI: imported once, before the forks of ``loaded_after_each``."""

FORKED = """
import json, os, sys, traceback
for library in LIBRARIES:
    __import__(library)
preloaded = sorted(sys.modules)
loaded = []
for statement in STATEMENTS:
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.close(read)
        try:
            exec(statement, {})
            with os.fdopen(write, "w") as pipe:
                json.dump(sorted(sys.modules), pipe)
        except BaseException:
            traceback.print_exc()
            os._exit(1)
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        text = pipe.read()
    _, status = os.waitpid(child, 0)
    assert status == 0, statement
    loaded.append(json.loads(text))
print(json.dumps({"preloaded": preloaded, "loaded": loaded}))
"""


def loaded_after_each(statements: list[str]) -> tuple[set[str], list[set[str]]]:
    """What ``loaded_after`` gives for each statement, for the price of one interpreter: it
    imports ``PRELOADED`` and then runs each statement in a fork of its own, so no statement
    sees what another loaded. Returns what was loaded before the forks, then each fork's set
    (which includes it); a caller checks the first holds nothing it bans."""
    code = f"LIBRARIES = {PRELOADED!r}\nSTATEMENTS = {statements!r}\n{FORKED}"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=300
    )
    found = json.loads(result.stdout.splitlines()[-1])
    return set(found["preloaded"]), [set(names) for names in found["loaded"]]


def test_every_face_is_lazy_and_lists_what_it_exports() -> None:
    for face in FACES:
        source = (SOURCE.parent / face.replace(".", "/") / "__init__.py").read_text()
        exports = face_imports(source)
        module = importlib.import_module(face)
        assert sorted(exports) == sorted(module.__all__), face
        # An export named like a module of the package would be shadowed by that module.
        submodules = {path.stem for path in (SOURCE.parent / face.replace(".", "/")).iterdir()}
        assert not set(exports) & submodules, (face, set(exports) & submodules)


@pytest.mark.parametrize("face", FACES)
def test_importing_a_face_loads_nothing_heavy(face: str) -> None:
    loaded = loaded_after(f"import {face}")
    assert not {name for name in HEAVY if name in loaded}, face
    assert not [name for name in loaded if name.startswith("normlab.") and name.count(".") > 1]


def test_a_face_name_loads_its_module_on_first_use() -> None:
    loaded = loaded_after("from normlab.losona import load_scenarios")
    assert "normlab.losona.dataset" in loaded
    assert "normlab.losona.cli" not in loaded and "normlab.losona.report" not in loaded


@pytest.mark.parametrize("group", ["", "losona", "scene", "hsii", "crsec", "models"])
def test_help_loads_neither_inspect_nor_the_reports(group: str) -> None:
    args = [*([group] if group else []), "--help"]
    loaded = loaded_after(
        "from typer.testing import CliRunner\n"
        "from normlab.cli import app\n"
        f"result = CliRunner().invoke(app, {args!r})\n"
        "assert result.exit_code == 0, result.output"
    )
    assert not {name for name in HEAVY if name in loaded}, group
    others = {"losona", "scene", "hsii", "crsec"} - {group}
    assert not {f"normlab.{other}.cli" for other in others} & loaded


def test_inspects_entry_point_loads_no_command_line_and_no_report() -> None:
    loaded = loaded_after("import normlab._registry")
    assert not {"typer", "matplotlib", "fastapi", "openai"} & loaded
    ours = [name for name in loaded if name.startswith("normlab.")]
    assert not [name for name in ours if name.endswith((".cli", ".report", ".runner"))]


def test_top_level_help_lists_every_group_without_loading_it() -> None:
    tree = ast.parse((SOURCE / "cli.py").read_text(encoding="utf-8"))
    groups = next(
        node
        for node in tree.body
        if isinstance(node, ast.AnnAssign) and "GROUPS" in ast.unparse(node.target)
    )
    assert groups is not None
    from typer.testing import CliRunner

    from normlab.cli import GROUPS, app

    output = CliRunner().invoke(app, ["--help"]).output
    for name in GROUPS:
        assert name in output
    for name, (module, _) in GROUPS.items():
        assert hasattr(importlib.import_module(module), "app"), name


LIBRARIES = [face for face in FACES if face != "normlab.commands"]
"""Every face but the command line's own ground (its options are typer's)."""


@pytest.fixture(scope="module")
def names_loaded() -> dict[str, set[str]]:
    """For each face, what a fresh interpreter holds once every name it exports was used."""
    preloaded, loaded = loaded_after_each(
        [
            f"import {face} as face\nfor name in face.__all__: getattr(face, name)"
            for face in LIBRARIES
        ]
    )
    # What every fork shares was loaded by none of the faces: it must be free of all they ban.
    assert not {"typer", "matplotlib", "fastapi"} & preloaded
    assert not [name for name in preloaded if name.startswith("normlab")]
    return dict(zip(LIBRARIES, loaded, strict=True))


@pytest.mark.parametrize("face", LIBRARIES)
def test_a_faces_names_load_no_command_line_and_no_plotting(
    face: str, names_loaded: dict[str, set[str]]
) -> None:
    """Every name a face exports, once used, has loaded neither a command line (typer, any
    ``cli`` module) nor matplotlib (drawn only when a figure is), nor FastAPI outside the web
    app: a face is a library, for programs and Inspect as much as for the command line."""
    loaded = names_loaded[face]
    source = (SOURCE.parent / face.replace(".", "/") / "__init__.py").read_text()
    assert {module for module, _ in face_imports(source).values()} <= loaded  # every name used
    banned = {"typer", "matplotlib", *(() if face == "normlab.web" else ("fastapi",))}
    assert not banned & loaded, (face, banned & loaded)
    assert not [name for name in loaded if name.startswith("normlab.") and name.endswith(".cli")]
