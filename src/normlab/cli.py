"""The ``normlab`` command: mounts each system's commands, ``models``, ``demo`` and ``serve``.

Every command reports bad input on one line naming file, line and field and
exits 2; an incomplete run exits 1 and resumes when run again.

The systems' command groups load when one of their commands (or their ``--help``) runs,
not before: ``normlab --help`` lists them from the systems' specs (light modules) without
importing Inspect, matplotlib or FastAPI, so it answers at once.
"""

from __future__ import annotations

import importlib
import logging
from typing import Any

import typer
from typer.core import TyperGroup

from normlab.commands.help import plain_help
from normlab.demo import demo
from normlab.specs import specs
from normlab.web.cli import ServeCommand, serve

HELP = """normlab: measure and simulate how LLM agents read, follow, enforce and create group norms.

Every command reports bad input on one line naming file, line and field and exits 2;
an incomplete run exits 1 and resumes when run again."""

TOOLS: dict[str, tuple[str, str]] = {
    "models": ("normlab.commands.models", "Check the models normlab can call."),
    "study": (
        "normlab.study.cli",
        "A study: systems × subjects × roles, planned (calls, cost, power), run and reported.",
    ),
}
"""The command groups that are not a system: group → (module whose ``app`` it is, help)."""
GROUPS: dict[str, tuple[str, str]] = {
    "models": TOOLS["models"],
    **{spec.name: (spec.cli, spec.help) for spec in specs()},
    "study": TOOLS["study"],
}
"""Command group → (module whose ``app`` is the group, the group's help): each system's from
its spec (``normlab.specs``), then the tools'."""


class LazyGroup(TyperGroup):
    """A group whose subgroups are imported when used; its own help lists them unloaded."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._listing = False
        for name, (_, text) in GROUPS.items():
            self.commands.setdefault(name, TyperGroup(name=name, help=text))
        plain_help(self)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = self.commands.get(cmd_name)
        if cmd_name in GROUPS and not self._listing and not getattr(command, "loaded", False):
            module, text = GROUPS[cmd_name]
            command = typer.main.get_group(importlib.import_module(module).app)
            command.name, command.help = cmd_name, text
            command.loaded = True  # type: ignore[attr-defined]
            plain_help(command)
            self.commands[cmd_name] = command
        return command

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self._listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self._listing = False


app = typer.Typer(help=HELP, no_args_is_help=True, add_completion=False, cls=LazyGroup)
app.command("demo")(demo)
app.command("serve", cls=ServeCommand)(serve)


def main() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    app()


if __name__ == "__main__":
    main()
