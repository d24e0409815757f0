"""Light package faces: a face names its public objects, and imports each on first use.

Each package's ``__init__.py`` is its public face (the only door other packages use), but a
face that imported everything it names would make every import of the package, and of any
module inside it, pay for Inspect, matplotlib or FastAPI: ``normlab --help`` would take
seconds, and Inspect's entry point would load the command line. So a face lists its names
once, as imports under ``if TYPE_CHECKING:`` (what type checkers and readers see), and at run
time hands its ``__getattr__`` to ``lazy_face``, which reads those imports from the face's
own source and imports a name's module the first time the name is asked for::

    if TYPE_CHECKING:
        from normlab.losona.task import losona
    else:
        __getattr__, __dir__ = lazy_face(__name__, __file__)
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def face_imports(source: str) -> dict[str, tuple[str, str]]:
    """``{exported name: (module, name in module)}`` from the ``if TYPE_CHECKING:`` block."""
    exports: dict[str, tuple[str, str]] = {}
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.If) and _is_type_checking(node.test)):
            continue
        for statement in node.body:
            if isinstance(statement, ast.ImportFrom) and statement.module:
                for alias in statement.names:
                    exports[alias.asname or alias.name] = (statement.module, alias.name)
    return exports


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def lazy_face(package: str, init_file: str) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the face of ``package`` (its ``__init__.py``)."""
    exports = face_imports(Path(init_file).read_text(encoding="utf-8"))

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = exports[name]
        value = getattr(importlib.import_module(module), attribute)
        # Cached on the package, so later lookups skip this hook.
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *exports})

    return __getattr__, __dir__
