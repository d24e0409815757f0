"""``docs/architecture.md`` stays true: its layout names every package and top-level module of
``src/normlab`` and nothing else, line by line in the order ``tests/test_layers.py`` enforces;
every system's spec is found and declares what the command line, the web app, studies and the
demo read of it."""

from __future__ import annotations

import ast
import importlib
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


ENTRY = re.compile(r"^([A-Za-z_][\w.-]*)(/|\.(?:py|md|yaml))$")
"""A file or folder of a system's package as the page's skeleton writes it."""


def _names(line: str) -> list[str]:
    """The leading names of a skeleton line (``solver.py scorer.py  the subject's…``)."""
    names = []
    for word in line.split():
        found = ENTRY.match(word)
        if found is None:
            break  # the description starts
        names.append(found.group(0))
    return names


def skeleton_groups(text: str) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The page's "A system's package" block, as (the systems a group is for, its entries):
    a line at the margin names the systems (``losona/ scene/ hsii/``), the lines indented
    under it the files and folders each of them has."""
    section = text.split("## A system's package", 1)[1]
    block = section.split("```text\n", 1)[1].split("```", 1)[0]
    groups: list[tuple[tuple[str, ...], list[str]]] = []
    for line in block.splitlines():
        if not line.startswith(" "):
            groups.append((tuple(name.rstrip("/") for name in _names(line)), []))
        else:
            groups[-1][1].extend(_names(line))
    return [(systems, tuple(entries)) for systems, entries in groups]


def package_entries(system: str) -> set[str]:
    """What a system's package holds at its top: files, and folders written ``name/``."""
    return {
        f"{path.name}/" if path.is_dir() else path.name
        for path in (SOURCE / system).iterdir()
        if path.name != "__pycache__"
    }


def test_the_skeleton_names_each_systems_files_and_nothing_else() -> None:
    groups = skeleton_groups(PAGE.read_text(encoding="utf-8"))
    names = [spec.name for spec in specs()]
    assert sorted({system for systems, _ in groups for system in systems}) == sorted(names)
    for system in names:
        written = [entry for systems, entries in groups if system in systems for entry in entries]
        assert len(written) == len(set(written)), f"{system}: an entry named twice"
        assert set(written) == package_entries(system), system


def test_a_systems_own_files_are_not_shared_by_its_block() -> None:
    """A file named for one system alone, that every system of a larger block it belongs to
    has too, belongs to that block (the skeleton says what is common, once)."""
    groups = skeleton_groups(PAGE.read_text(encoding="utf-8"))
    shared = [
        (f"{entry} of {systems[0]}", other)
        for systems, entries in groups
        if len(systems) == 1
        for entry in entries
        for other, _ in groups
        if len(other) > 1
        and systems[0] in other
        and all(entry in package_entries(system) for system in other)
    ]
    assert shared == []


def test_the_skeleton_parser_reads_its_shape() -> None:
    text = (
        "## A system's package\n\n```text\nalpha/ beta/   both\n  spec.py a/   its spec\n"
        "     more words\nalpha/         its own\n  eval.yaml README.md  cards\n```\n"
    )
    assert skeleton_groups(text) == [
        (("alpha", "beta"), ("spec.py", "a/")),
        (("alpha",), ("eval.yaml", "README.md")),
    ]


PATH = re.compile(r"`((?:[\w.-]+/)*[\w.-]+(?:/|\.(?:py|md|yaml|html|json|txt)))`")
"""A file or folder the page names in backticks (``crsec/folder_runs.py``, ``prompts/``)."""
DOTTED = re.compile(r"`(normlab(?:\.\w+)+)`")
"""A module or an object the page names by its dotted path (``normlab.runs.reader``)."""
BULLET = re.compile(r"^- `(\w+)/`")
"""A bullet about one package (``- `crsec/`: …``): a bare file name in it is that package's."""


def _exists(name: str, package: str | None) -> bool:
    root = SOURCE.parents[1]
    if name.split("/", 1)[0] in {"tests", "docs", "src", "tools"}:
        return (root / name).exists()
    if (SOURCE / name).exists():
        return True
    where = SOURCE / package if package else SOURCE
    return any(where.glob(f"**/{name.rstrip('/')}"))


def _importable(dotted: str) -> bool:
    module, attributes = dotted, list[str]()
    while module:
        try:
            found: object = importlib.import_module(module)
        except ModuleNotFoundError:
            module, _, attribute = module.rpartition(".")
            attributes.insert(0, attribute)
            continue
        for attribute in attributes:
            if not hasattr(found, attribute):
                return False
            found = getattr(found, attribute)
        return True
    return False


def named_paths(text: str) -> list[tuple[str, str | None]]:
    """Each file, folder and dotted path the page names, with the package its bullet is about
    (``None`` outside such a bullet); a placeholder (``<name>``) is no path."""
    named: list[tuple[str, str | None]] = []
    package: str | None = None
    for line in text.splitlines():
        if not line.startswith("  "):
            found = BULLET.match(line)
            package = found.group(1) if found else None
        named += [(name, package) for name in PATH.findall(line)]
        named += [(name, None) for name in DOTTED.findall(line)]
    return named


def test_every_path_the_page_names_exists() -> None:
    named = named_paths(PAGE.read_text(encoding="utf-8"))
    assert len(named) > 100  # the page names its modules, and the pattern finds them
    missing = [
        f"{name} ({package or 'src/normlab'})"
        for name, package in named
        if not (_importable(name) if name.startswith("normlab.") else _exists(name, package))
    ]
    assert missing == []


def test_the_path_check_sees_a_missing_one() -> None:
    text = "- `crsec/`: `sim/` (`loop.py`, `nowhere.py`), `normlab.runs.nothing`\n"
    named = named_paths(text)
    assert ("loop.py", "crsec") in named and ("normlab.runs.nothing", None) in named
    assert _exists("loop.py", "crsec") and not _exists("nowhere.py", "crsec")
    assert not _exists("loop.py", "hsii")
    assert _importable("normlab.runs.reader") and not _importable("normlab.runs.nothing")
