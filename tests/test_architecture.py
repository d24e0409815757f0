"""``docs/architecture.md`` stays true: its layout names every package and top-level module of
``src/normlab`` and nothing else, line by line in the order ``tests/test_layers.py`` enforces;
every system's spec is found and declares what the command line, the web app, studies and the
demo read of it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import normlab
from normlab.runs import SystemSpec
from normlab.specs import parts as system_parts
from normlab.specs import specs
from tests.test_layers import ORDER

SOURCE = Path(normlab.__file__).parent
PAGE = SOURCE.parents[1] / "docs" / "architecture.md"
NAME = re.compile(r"^([A-Za-z_]\w*)(/|\.py)$")


def layout_lines() -> list[tuple[str, ...]]:
    """The names on each line of the page's layout block (``core/ stats/``: core, stats)."""
    text = PAGE.read_text(encoding="utf-8")
    block = text.split("```text\n", 1)[1].split("```", 1)[0]
    lines = []
    for line in block.splitlines()[1:]:  # the first names src/normlab/ itself
        if not line.startswith("  ") or line.startswith("   "):
            continue  # a continuation of the line above
        names = []
        for word in line.split():
            found = NAME.match(word)
            if found is None:
                break  # the description starts
            names.append(found.group(1))
        lines.append(tuple(names))
    return lines


def test_the_layout_names_every_package_and_module_and_nothing_else() -> None:
    named = {name for line in layout_lines() for name in line}
    packages = {path.parent.name for path in SOURCE.glob("*/__init__.py")}
    modules = {path.stem for path in SOURCE.glob("*.py")} - {"__init__"}
    assert named == packages | modules


def test_the_layout_is_in_the_layers_order() -> None:
    assert layout_lines() == list(ORDER)


def test_the_page_is_in_the_docs_site() -> None:
    assert "architecture.md" in (SOURCE.parents[1] / "mkdocs.yml").read_text(encoding="utf-8")


def test_every_system_is_found_by_its_spec() -> None:
    found = specs()
    assert [spec.name for spec in found] == ["losona", "scene", "hsii", "crsec"]
    assert all(isinstance(spec, SystemSpec) for spec in found)
    for spec in found:
        assert (SOURCE / spec.name / "spec.py").is_file()
        assert spec.help and spec.summary and spec.roles
        parts = system_parts(spec)
        assert parts.unit and parts.verdict_items and parts.ratings
        assert (spec.task is None) == (not parts.shardable)  # CRSEC: no task, no shards
        assert (spec.task is None) == (parts.sequential is None)  # CRSEC's cells run whole


ABOVE_THE_SYSTEMS = ("study", "cli.py", "demo.py", "specs.py", "_registry.py")
"""What iterates over the systems' descriptions (``docs/architecture.md``, "One typed
description per system"). Not yet ``web``: its play page still branches on HSII's and SCENE's
names (``play_routes.py``) and ``serve`` names the three banks (``web/cli.py``)."""


def _named_systems(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a system's name is compared with, used as a dict's key, or listed among
    other systems' names: a table or a branch keyed by a system's name."""

    def named(node: ast.AST | None) -> bool:
        return isinstance(node, ast.Constant) and node.value in names

    def keyed(node: ast.AST) -> bool:
        if isinstance(node, ast.Compare):
            return any(named(side) for side in [node.left, *node.comparators])
        if isinstance(node, ast.Dict):
            return any(named(key) for key in node.keys)
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return sum(map(named, node.elts)) > 1
        return False

    found = [node.lineno for node in ast.walk(tree) if keyed(node) and hasattr(node, "lineno")]
    return found


def test_nothing_above_the_systems_is_keyed_by_a_system_name() -> None:
    names = {spec.name for spec in specs()}
    keyed = []
    for place in ABOVE_THE_SYSTEMS:
        path = SOURCE / place
        for module in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            tree = ast.parse(module.read_text(encoding="utf-8"))
            keyed += [
                f"{module.relative_to(SOURCE)}:{line}" for line in _named_systems(tree, names)
            ]
    assert keyed == []
