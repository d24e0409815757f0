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
        assert (spec.task is None) == (parts.statistics is None)  # CRSEC's cells run whole


ABOVE_THE_SYSTEMS = ("study", "web", "cli.py", "demo.py", "specs.py", "_registry.py")
"""What iterates over the systems' descriptions (``docs/architecture.md``, "One typed
description per system")."""
TEMPLATES = SOURCE / "web" / "templates"
"""The web app's pages, which take what they show from the routes."""


def _named_systems(tree: ast.AST, names: set[str]) -> list[int]:
    """Lines where a system's name is written as a string: compared with, a dict's key, one
    of a list of names, a parameter's default, an argument (``RunSummary("crsec", …)``), a
    branch's value (``"crsec" if run.is_dir() else …``). Each is a table or a branch keyed by
    a system's name, which a fifth system would have to join; a name in prose (a docstring,
    a message) is no string equal to it and is not flagged."""
    return sorted(
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names
    )


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


def test_no_page_of_the_web_app_names_a_system() -> None:
    """A quoted value in a template equal to a system's name, or one made from it
    (``data-system="hsii-bank"``), is a page keyed by that system; a page names a system
    only through what its route passes (``{{ kind.offers }}``). Words in a page's prose
    (``normlab crsec analyze``) are not quoted values. A system's own page (CRSEC's replay) is
    in its own package, behind its parts' ``folder_runs``."""
    names = "|".join(re.escape(spec.name) for spec in specs())
    quoted = re.compile(rf"""(["'])(?:{names})(?:-[\w-]*)?\1""")
    named = [
        f"{page.name}:{text.count(chr(10), 0, found.start()) + 1}: {found.group(0)}"
        for page in sorted(TEMPLATES.glob("*.html"))
        for text in [page.read_text(encoding="utf-8")]
        for found in quoted.finditer(text)
    ]
    assert named == []


def test_the_name_checks_see_what_they_look_for() -> None:
    """The checks themselves, on the shapes they were written for."""
    names = {"alpha", "beta"}
    source = (
        'def page(system: str = "alpha"): ...\n'
        'summary = Summary("beta", path)\n'
        'system = "alpha" if folder else other\n'
        'table = {"alpha": 1}\n'
        'if system == "beta": ...\n'
        '"""Prose may name alpha and beta."""\n'
        'note = f"a {system} run; alpha"\n'
    )
    assert _named_systems(ast.parse(source), names) == [1, 2, 3, 4, 5]


def _named_routes(text: str, names: set[str]) -> list[str]:
    """The routes of ``text`` whose path starts with a system's name (``@app.get("/crsec")``)."""
    pattern = "|".join(re.escape(name) for name in sorted(names))
    route = re.compile(rf"""@\w+\.(?:get|post)\(\s*["']/(?:{pattern})\b[^"']*""")
    return [found.group(0) for found in route.finditer(text)]


def test_no_route_of_the_web_app_is_a_systems() -> None:
    """A route named after a system (the old ``/crsec`` replay) is a page only that system
    gets; a run folder's page is its system's ``folder_runs.page`` under ``/run``."""
    names = {spec.name for spec in specs()}
    named = [
        f"{module.relative_to(SOURCE)}: {route}"
        for module in sorted((SOURCE / "web").rglob("*.py"))
        for route in _named_routes(module.read_text(encoding="utf-8"), names)
    ]
    assert named == []
    sample = (
        '@app.get("/alpha")\n@app.post(\n    "/beta/x")\n@app.get("/run")\n@app.get("/alphabet")'
    )
    assert _named_routes(sample, {"alpha", "beta"}) == [
        '@app.get("/alpha',
        '@app.post(\n    "/beta/x',
    ]
