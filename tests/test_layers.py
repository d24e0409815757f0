"""The import graph: no cycle, and no import from the shared ground up into a system or the CLI.

Layers, lowest first: ``core`` and ``stats``; ``models``; ``report``; ``commands``;
the systems (``losona``, ``scene``, ``hsii``, ``crsec``, ``agents``); the entry points
(``cli``, ``demo``, ``_registry``, ``web``, ``study``). A module may import from its own layer
or below.

Above the shared ground, a package is entered only through its face (its ``__init__.py``):
the systems, ``agents`` and ``web`` import one another's faces, never their modules, so a
module can move inside its package without another package noticing.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import normlab

SOURCE = Path(normlab.__file__).parent
LAYERS = {
    "_faces": 0,
    "core": 0,
    "stats": 0,
    "models": 1,
    "report": 2,
    "commands": 3,
    "crsec": 4,
    "agents": 4,
    "losona": 4,
    "scene": 4,
    "hsii": 4,
    "cli": 5,
    "demo": 5,
    "_registry": 5,
    "web": 5,
    "study": 5,
}


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path) -> Iterator[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            # "from normlab.x import y" names module normlab.x, and normlab.x.y if y is one
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def graph() -> dict[str, set[str]]:
    modules = {module_name(path): path for path in SOURCE.rglob("*.py")}
    edges: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        edges[name] = {target for target in imports(path) if target.startswith("normlab.")}
    return edges


def package(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "normlab"


def test_no_import_runs_from_a_lower_layer_to_a_higher_one() -> None:
    wrong = []
    for module, targets in graph().items():
        source = package(module)
        for target in targets:
            destination = package(target)
            if source in LAYERS and destination in LAYERS and LAYERS[destination] > LAYERS[source]:
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def test_every_package_is_placed_in_a_layer() -> None:
    packages = {package(module) for module in graph()} - {"normlab"}
    assert packages <= set(LAYERS), packages - set(LAYERS)


def test_the_module_graph_has_no_cycle() -> None:
    edges = graph()
    modules = set(edges)

    def resolve(target: str) -> str | None:
        while target and target not in modules:
            target = target.rpartition(".")[0]
        return target or None

    resolved = {m: {t for x in ts if (t := resolve(x)) and t != m} for m, ts in edges.items()}
    # A package's __init__ re-exports its modules: an edge into a package face is an edge
    # into the modules it imports, so cycles through faces are cycles too.
    state: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(resolved[node]):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(resolved):
        if node not in state:
            visit(node)
    assert cycles == []


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
