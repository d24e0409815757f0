"""The import graph: packages in layers, no package imports another in a loop, and no import
from the shared ground up into a system or the CLI.

Layers, lowest first, one per package, in the order of the design's layout
(``/work/shared/design.md``, "Layout"; ``docs/architecture.md``)::

    core  stats  models  report  runs  commands  norms  agents
    losona scene hsii  crsec  study  web  demo  _registry  cli

A package imports only packages on lower layers, at module level or inside a function (an
import deferred to a function is still a dependency: it runs the moment the function does).
Packages on one line (``losona``, ``scene``, ``hsii``; ``core`` and ``stats``) import none of
one another. Every ``import`` and ``from … import`` anywhere in a module counts, those under
``if TYPE_CHECKING:`` included.

Above the shared ground, a package is entered only through its face (its ``__init__.py``):
the systems, ``agents`` and ``web`` import one another's faces, never their modules, so a
module can move inside its package without another package noticing.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import normlab

SOURCE = Path(normlab.__file__).parent

ORDER: tuple[tuple[str, ...], ...] = (
    ("_faces",),
    ("core", "stats"),
    ("models",),
    ("report",),
    ("runs",),
    ("commands",),
    ("norms",),
    ("agents",),
    ("losona", "scene", "hsii"),
    ("crsec",),
    ("specs",),
    ("study",),
    ("web",),
    ("demo",),
    ("_registry",),
    ("cli",),
)
"""Packages (and top-level modules), lowest first; those in one tuple share a line."""
LAYERS = {name: rank for rank, line in enumerate(ORDER) for name in line}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    """Every module ``path`` imports from normlab, wherever the import stands in the module
    (top level, a function, a class, ``if TYPE_CHECKING:``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # "from normlab.x import y" names module normlab.x, and normlab.x.y if y is one;
            # "from normlab import crsec" names the package normlab.crsec
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


@functools.cache
def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in SOURCE.rglob("*.py")}
    return {
        name: {target for target in imports(path) if target.startswith("normlab.")}
        for name, path in modules.items()
    }


def package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "normlab"


def package_graph() -> dict[str, dict[str, list[str]]]:
    """Package → package it imports → the module imports that make the edge."""
    edges: dict[str, dict[str, list[str]]] = {}
    for module, targets in graph().items():
        source = package(module)
        for target in targets:
            destination = package(target)
            if destination not in (source, "normlab"):
                edges.setdefault(source, {}).setdefault(destination, []).append(
                    f"{module} -> {target}"
                )
    return edges


def test_every_package_is_placed_in_a_layer() -> None:
    packages = {package(module) for module in graph()} - {"normlab"}
    assert packages <= set(LAYERS), packages - set(LAYERS)


def test_no_package_imports_one_on_its_own_layer_or_above() -> None:
    wrong = sorted(
        f"{source} -> {destination}: {sorted(made)[0]}"
        for source, targets in package_graph().items()
        for destination, made in targets.items()
        if LAYERS[destination] >= LAYERS[source]
    )
    assert wrong == []


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Every cycle a depth-first walk of ``edges`` closes (each reported once, from the node
    the walk entered it by)."""
    state: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                found.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node)
    return found


def test_the_package_graph_has_no_cycle() -> None:
    """Packages importing one another in a loop (``agents -> crsec -> agents``), imports inside
    functions included: such a loop is invisible to a module-level check, and it is what keeps
    two packages from being understood, tested or moved apart."""
    edges = {source: set(targets) for source, targets in package_graph().items()}
    assert cycles(edges) == []


def test_the_cycle_check_sees_a_loop_through_a_function() -> None:
    """The check itself: a loop closed by an import inside a function is a cycle."""
    tree = ast.parse("def f():\n    from normlab.b.x import y\n")
    deferred = [
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    ]
    assert deferred == ["normlab.b.x"]
    edges = {"a": {package(module) for module in deferred}, "b": {"a"}}
    assert cycles(edges) == [["a", "b", "a"]]


def test_the_module_graph_has_no_cycle() -> None:
    edges = graph()
    modules = set(edges)

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    # A package's __init__ re-exports its modules: an edge into a package face is an edge
    # into the modules it imports, so cycles through faces are cycles too.
    resolved = {m: {t for x in ts if (t := resolve(x)) and t != m} for m, ts in edges.items()}
    assert cycles(resolved) == []


def test_the_top_level_cli_only_mounts() -> None:
    tree = ast.parse((SOURCE / "cli.py").read_text(encoding="utf-8"))
    commands = [
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and any("command" in ast.unparse(d) for d in node.decorator_list)
    ]
    assert commands == []  # demo lives in normlab.demo; cli.py only mounts


DOORS = ("losona", "scene", "hsii", "crsec", "agents", "study", "web")
"""Packages entered only through their face (above the shared ground)."""


def _resolve(target: str, modules: set[str]) -> str:
    while target not in modules:
        target = target.rpartition(".")[0]
    return target


def test_across_packages_only_faces() -> None:
    """The one exception: the top-level command line mounts each package's ``cli`` module
    (no face exports a command, so a face never loads typer)."""
    edges = graph()
    modules = set(edges)
    wrong = sorted(
        f"{module} -> {target}"
        for module, targets in edges.items()
        for target in targets
        if (door := package(target)) in DOORS
        and package(module) != door
        and (inside := _resolve(target, modules)) != f"normlab.{door}"
        and not (module == "normlab.cli" and inside == f"normlab.{door}.cli")
    )
    assert wrong == []
