"""Every command's ``--help`` reads as plain help (issue 34, item 4): no ``<bool>`` after a
flag, no Python type names (``<str>``, ``<list[str]>``), no ``{…}`` for an argument in the
usage line, and no text lost to Rich markup (``normlab[ray]`` kept whole)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from normlab.cli import GROUPS, app

WIDE = {"COLUMNS": "400", "TERMINAL_WIDTH": "400"}
"""So that no help line wraps and a bracketed word can be looked for whole."""


def _commands() -> Iterator[tuple[list[str], Any]]:
    """Every command path (``["study", "run"]``) and its click command, groups loaded."""
    root = typer.main.get_command(app)
    ctx = root.context_class(root)
    stack: list[tuple[list[str], Any]] = [([], root)]
    while stack:
        path, command = stack.pop()
        yield path, command
        names = command.list_commands(ctx) if hasattr(command, "list_commands") else []
        stack += [([*path, name], command.get_command(ctx, name)) for name in names]


COMMANDS = [path for path, _ in _commands()]


def test_every_group_and_its_commands_are_checked() -> None:
    assert {path[0] for path in COMMANDS if path} >= set(GROUPS) | {"demo", "serve"}
    assert ["study", "run"] in COMMANDS and ["crsec", "export"] in COMMANDS
    assert len(COMMANDS) > 60


@pytest.mark.parametrize("path", COMMANDS, ids=[" ".join(p) or "normlab" for p in COMMANDS])
def test_help_has_no_type_names_braces_or_lost_markup(path: list[str]) -> None:
    result = CliRunner().invoke(app, [*path, "--help"], env=WIDE)
    assert result.exit_code == 0, result.output
    text = result.output
    assert not re.search(r"<(?:bool|str|int|float|path|list\[[^\]]*\])>", text), text
    usage = next(line for line in text.splitlines() if "Usage:" in line)
    assert "{" not in usage and "}" not in usage, usage
    command = _lookup(path)
    for param in command.params:
        written = (getattr(param, "help", None) or "").replace("\\[", "[")  # as in the source
        for bracketed in re.findall(r"[\w.-]*\[[\w,.=-]+\]", written):
            assert bracketed in text, f"{bracketed!r} lost from --help of {path}"


def _lookup(path: list[str]) -> Any:
    for candidate, command in _commands():
        if candidate == path:
            return command
    raise AssertionError(path)


def test_the_examples_the_issue_names() -> None:
    run = CliRunner().invoke(app, ["study", "run", "--help"], env=WIDE).output
    assert "normlab[ray]" in run
    assert "[OPTIONS] STUDY_FILE" in run
    assert re.search(r"--json\s+Print only", run), "a flag takes no value"
    export = CliRunner().invoke(app, ["crsec", "export", "--help"], env=WIDE).output
    assert "[OPTIONS] RUN" in export
