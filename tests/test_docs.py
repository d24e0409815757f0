"""The API reference (``make docs``: mkdocstrings renders each package face, Google style) reads
as a reference: every public name of every face has prose, every field of a file a researcher
writes says what it holds, and no docstring holds a Sphinx role, which the Markdown renderer
shows as literal text linking nowhere (``python -m tools.crossrefs`` rewrites one as a
cross-reference). Names and fields are read as mkdocstrings reads them: through griffe, from
the source, attribute docstrings included."""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterator
from pathlib import Path

import griffe
import pytest
from pydantic import BaseModel
from tools.crossrefs import ROLE

import normlab
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
