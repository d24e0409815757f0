"""Help text a person can read: value names as click writes them, flags with none, no markup.

Typer 0.29 writes every value's Python type in angle brackets (``--json <bool>``,
``--judge <str>``, ``--system <list[str]>``), a required argument in braces in the usage line
(``normlab study run [OPTIONS] {study_file}``), and reads help text as Rich markup, so
``pip install normlab[ray]`` lost its ``[ray]``. ``plain_help`` turns a command tree's
help back to the convention every other command line follows: ``--judge TEXT``, ``--json``,
``STUDY_FILE``, text printed as written. It changes only the commands it is given (each
parameter's class is swapped for a subclass that formats differently), never Typer itself,
so another Typer program in the same process is untouched.
"""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption

_TYPE_NAMES = {"str": "TEXT", "int": "INTEGER", "float": "FLOAT"}
"""Typer's type label → the value name click prints; anything else (PATH, choices) kept."""


def _value_name(label: str | None) -> str | None:
    """``<list[str]>`` → ``TEXT``, ``<path>`` → ``PATH``, ``<a|b>`` → ``a|b``.

    A repeatable option takes one value each time it is given, as click shows it; its help
    says it is repeatable."""
    if label is None:
        return None
    inner = label.removeprefix("<").removesuffix(">")
    if inner.startswith("list[") and inner.endswith("]"):
        inner = inner.removeprefix("list[").removesuffix("]")
    return inner if "|" in inner else _TYPE_NAMES.get(inner, inner.upper())


class _PlainOption(TyperOption):
    """An option shown as ``--judge TEXT``, a flag as ``--json`` alone."""

    def display_type_rich(self, ctx: Any) -> str | None:
        if self.is_flag or self.count:
            return None
        if self.metavar is not None:
            return self.metavar
        return _value_name(self.display_type(ctx))


class _PlainArgument(TyperArgument):
    """An argument shown as ``STUDY_FILE`` (``[RUN]`` when optional), typed ``PATH``."""

    def _upper_name(self) -> str:
        return self.metavar if self.metavar is not None else (self.name or "").upper()

    def _rich_display_name(self) -> str:
        return self._upper_name() + ("..." if self.nargs != 1 else "")

    def _usage_display_name(self) -> str:
        name = self._upper_name() if self.required else f"[{self._upper_name()}]"
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return _value_name(self.display_type(ctx))


def _plain(param: Any) -> None:
    if type(param) is TyperOption:
        param.__class__ = _PlainOption
    elif type(param) is TyperArgument:
        param.__class__ = _PlainArgument


def _escaped(text: str | None) -> str | None:
    """Help text as written: Rich reads ``[ray]`` as a style tag unless it is escaped."""
    if text is None or getattr(text, "_normlab_escaped", False):
        return text
    return _Escaped(escape(text))


class _Escaped(str):
    """Text already escaped (so a second walk over a shared command leaves it alone)."""

    _normlab_escaped = True


def plain_help(command: Any) -> None:
    """Format ``command``'s help, and its subcommands' (already loaded), as plain text."""
    if isinstance(command, TyperCommand | TyperGroup):
        command.help = _escaped(command.help)
        command.short_help = _escaped(command.short_help)
        command.epilog = _escaped(command.epilog)
    for param in command.params:
        _plain(param)
        if isinstance(param, TyperOption | TyperArgument):
            param.help = _escaped(param.help)
    help_option = command.get_help_option(command.context_class(command))
    if help_option is not None:
        _plain(help_option)
    for subcommand in getattr(command, "commands", {}).values():
        plain_help(subcommand)
