"""A task's parameters (name, annotation, default, help) read from its source, not imported.

A benchmark's ``run`` options are its ``@task`` function's parameters, with the help its
docstring's ``Args:`` section gives them, so each is described once, in ``task.py``. Importing
``task.py`` imports Inspect (a second or more), and ``normlab SYSTEM run --help`` must answer
at once, so the function is read as text: its signature and docstring through ``ast``, a
default that is a name through the module's own literal assignment or the (light) module it
imports the name from. ``tests/commands/test_running.py`` checks the reading against
``inspect.signature`` of the imported task.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_ARGUMENT = re.compile(r"^(?P<name>\w+)(?: \([^)]*\))?: (?P<text>.*)$")


@dataclass(frozen=True)
class TaskParameter:
    """One parameter of a task function, as written in its source."""

    name: str
    annotation: str
    """As written: ``str | list[str] | None``."""
    default: Any
    help: str
    """Its line (and continuation lines) in the docstring's ``Args:``, whitespace folded."""

    @property
    def members(self) -> list[str]:
        """The annotation's union members: ``["str", "list[str]", "None"]``."""
        return _members(ast.parse(self.annotation, mode="eval").body)


def _members(node: ast.expr) -> list[str]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return [*_members(node.left), *_members(node.right)]
    return [ast.unparse(node)]


def parse_args_section(docstring: str) -> dict[str, str]:
    """The ``Args:`` section of a Google-style docstring: parameter name → its text, with
    continuation lines joined and whitespace folded."""
    found: dict[str, str] = {}
    lines = docstring.splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == "Args:")
    except StopIteration:
        return found
    indent: int | None = None
    current = ""
    for line in lines[start + 1 :]:
        if not line.strip():
            break
        depth = len(line) - len(line.lstrip())
        indent = depth if indent is None else indent
        if depth < indent:
            break
        matched = _ARGUMENT.match(line.strip()) if depth == indent else None
        if matched:
            current = matched["name"]
            found[current] = matched["text"]
        elif current:
            found[current] += " " + line.strip()
    return {name: " ".join(text.split()) for name, text in found.items()}


def _source(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise LookupError(f"no source for {module}")
    return Path(spec.origin)


def _default(node: ast.expr, tree: ast.Module) -> Any:
    """A default's value: a literal, a module-level literal assignment, or a name imported
    from another module (imported here: keep such modules light, as ``defaults.py`` is)."""
    try:
        return ast.literal_eval(node)
    except ValueError:
        if not isinstance(node, ast.Name):
            raise
    for statement in tree.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == node.id for t in targets):
                return ast.literal_eval(statement.value)
        names = statement.names if isinstance(statement, ast.ImportFrom) else []
        if any((alias.asname or alias.name) == node.id for alias in names):
            assert isinstance(statement, ast.ImportFrom) and statement.module
            return getattr(importlib.import_module(statement.module), node.id)
    raise ValueError(f"default {node.id} is neither a literal nor imported")


@functools.cache
def task_parameters(target: str) -> tuple[TaskParameter, ...]:
    """The parameters of ``module:function`` in order, each with its docstring help."""
    module, _, name = target.partition(":")
    tree = ast.parse(_source(module).read_text(encoding="utf-8"))
    function = next(
        node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name
    )
    helps = parse_args_section(ast.get_docstring(function) or "")
    arguments = function.args
    defaults = [None] * (len(arguments.args) - len(arguments.defaults)) + arguments.defaults
    return tuple(
        TaskParameter(
            name=argument.arg,
            annotation=ast.unparse(argument.annotation) if argument.annotation else "str",
            default=_default(default, tree) if default is not None else ...,
            help=helps.get(argument.arg, ""),
        )
        for argument, default in zip(arguments.args, defaults, strict=True)
    )
