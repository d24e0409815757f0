"""The API reference (``make docs``: mkdocstrings renders each package face, Google style) reads
as a reference: every public name of every face has prose, every field of a file a researcher
writes says what it holds, and no docstring holds a Sphinx role, which the Markdown renderer
shows as literal text linking nowhere (``python -m tools.crossrefs`` rewrites one as a
cross-reference). Names and fields are read as mkdocstrings reads them: through griffe, from
the source, attribute docstrings included."""

from __future__ import annotations

import functools
import re
import shlex
import typing
from collections.abc import Iterator
from pathlib import Path

import griffe
import pytest
import typer
from pydantic import BaseModel
from tools.crossrefs import ROLE
from typer.core import TyperGroup
from typer.testing import CliRunner

import normlab
from normlab.cli import app
from normlab.crsec import Society
from normlab.hsii import Case, Dialogue
from normlab.losona import Scenario
from normlab.scene import SceneScenario
from normlab.study import Study

SOURCE = Path(normlab.__file__).resolve().parent
FACES = sorted(path.parent.name for path in SOURCE.glob("*/__init__.py"))

DATA_FILES: list[type[BaseModel]] = [Scenario, SceneScenario, Case, Dialogue, Society, Study]
"""The models of the files a researcher writes: scenarios, cases and dialogues, a society,
a study."""


@functools.cache
def package() -> griffe.Module:
    """``normlab`` as mkdocstrings loads it."""
    loaded = griffe.load("normlab", search_paths=[str(SOURCE.parent)], resolve_aliases=True)
    assert isinstance(loaded, griffe.Module)
    return loaded


def target(found: griffe.Object | griffe.Alias) -> griffe.Object:
    return found.final_target if isinstance(found, griffe.Alias) else found


def test_every_face_is_a_page_of_the_reference() -> None:
    pages = {path.stem for path in (SOURCE.parents[1] / "docs" / "reference").glob("*.md")}
    assert pages == set(FACES)
    for face in FACES:
        text = (SOURCE.parents[1] / "docs" / "reference" / f"{face}.md").read_text("utf-8")
        assert f"::: normlab.{face}\n" in text


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_of_a_face_has_prose(face: str) -> None:
    module = package()[face]
    assert module.docstring is not None, f"normlab.{face} has no module docstring"
    exports = list(module.exports or [])
    assert exports, f"normlab.{face} exports nothing"
    bare = [name for name in exports if not target(module[name]).docstring]
    assert bare == [], f"normlab.{face}: names without a docstring"


def data_models(model: type[BaseModel]) -> Iterator[type[BaseModel]]:
    """``model`` and every normlab model its fields hold, each once."""
    seen: set[type[BaseModel]] = set()
    waiting = [model]
    while waiting:
        current = waiting.pop()
        if current in seen or not current.__module__.startswith("normlab."):
            continue
        seen.add(current)
        yield current
        for field in current.model_fields.values():
            waiting.extend(models_in(field.annotation))


def models_in(annotation: object) -> Iterator[type[BaseModel]]:
    for argument in typing.get_args(annotation):
        yield from models_in(argument)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation


@pytest.mark.parametrize("root", DATA_FILES, ids=lambda model: model.__name__)
def test_every_field_of_a_data_file_has_prose(root: type[BaseModel]) -> None:
    bare = []
    for model in data_models(root):
        found = target(package().modules_collection[f"{model.__module__}.{model.__qualname__}"])
        if not found.docstring:
            bare.append(model.__qualname__)
        for name in model.model_fields:
            member = found.all_members.get(name)
            if member is None or not target(member).docstring:
                bare.append(f"{model.__qualname__}.{name}")
    assert bare == []


def test_the_data_files_hold_nested_models() -> None:
    """The walk above goes into nested models (else it would check only the top level)."""
    assert {model.__name__ for model in data_models(SceneScenario)} >= {
        "Scaffold",
        "Channel",
        "CastMember",
        "HiddenPersona",
        "FidelityCriteria",
    }


def test_no_sphinx_role_in_the_source() -> None:
    holding = {
        path.relative_to(SOURCE).as_posix()
        for path in SOURCE.rglob("*.py")
        if ROLE.search(path.read_text(encoding="utf-8"))
    }
    assert sorted(holding) == [], "run: make docs && python -m tools.crossrefs FILE"


def test_the_role_pattern_finds_each_spelling() -> None:
    for written in (":func:`x`", ":class:`~a.B`", ":py:meth:`A.b`", ":mod:`a.b`", ":data:`X`"):
        assert ROLE.search(f"see {written}."), written
    assert not ROLE.search("see [`x`][normlab.core.x] and ``x``")


REFERENCE = SOURCE.parents[1] / "docs" / "reference"
ROOT = SOURCE.parents[1]
FENCE = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)
PAGE_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def opening(face: str) -> str:
    """What a face's reference page says before its API block."""
    return (REFERENCE / f"{face}.md").read_text("utf-8").split(f"::: normlab.{face}\n", 1)[0]


def blocks(face: str, language: str) -> list[str]:
    return [code for lang, code in FENCE.findall(opening(face)) if lang == language]


@pytest.mark.parametrize("face", FACES)
def test_a_reference_page_opens_with_the_package_its_entry_points_and_its_readme(
    face: str,
) -> None:
    text = opening(face)
    prose = text.split("\n\n", 2)[1]  # the paragraph after the title
    assert len(prose.split()) >= 20, f"{face}: say what the package is for"
    assert "## Entry points" in text and blocks(face, "python"), face
    links = PAGE_LINK.findall(text)
    assert any(link.endswith(("README.md", "architecture.md")) for link in links), face
    missing = [link for link in links if not (REFERENCE / link).resolve().exists()]
    assert missing == [], f"{face}: links to no file"


@pytest.mark.parametrize("face", FACES)
def test_a_reference_pages_python_example_runs(
    face: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each example runs as printed, from the repository root (its paths are the root's)."""
    monkeypatch.chdir(ROOT)
    for code in blocks(face, "python"):
        exec(compile(code, f"docs/reference/{face}.md", "exec"), {})
    assert capsys.readouterr().out.strip(), f"{face}: the example shows nothing"


def command_path(words: list[str]) -> tuple[list[str], list[str]]:
    """The subcommands ``words`` name under ``normlab`` (each group's own, loaded as a run
    would) and the options of the command they reach."""
    command = typer.main.get_command(app)
    path: list[str] = []
    for word in words:
        if not isinstance(command, TyperGroup):
            break
        found = command.get_command(typer.Context(command), word)
        if found is None:
            break
        command, path = found, [*path, word]
    return path, [option for parameter in command.params for option in parameter.opts]


REFERENCE_COMMANDS = [
    (face, line)
    for face in FACES
    for code in blocks(face, "bash")
    for line in code.splitlines()
    if line.startswith("normlab ")
]


def test_the_reference_pages_show_commands() -> None:
    assert {face for face, _ in REFERENCE_COMMANDS} >= {"losona", "scene", "hsii", "crsec"}


@pytest.mark.parametrize("face,line", REFERENCE_COMMANDS, ids=lambda value: str(value))
def test_a_reference_pages_command_exists_with_its_options(face: str, line: str) -> None:
    words = shlex.split(line)[1:]
    path, known = command_path(words)
    assert path, f"{face}: {line}: no such command"
    unknown = [word for word in words if word.startswith("-") and word not in {*known, "--help"}]
    assert unknown == [], f"{face}: {line}"
    result = CliRunner().invoke(app, [*path, "--help"])
    assert result.exit_code == 0, result.output


def test_the_command_check_sees_a_wrong_one() -> None:
    assert command_path(["losona", "nothing"])[0] == ["losona"]
    assert command_path(["nothing"])[0] == []
    assert "--model" in command_path(["losona", "run"])[1]
