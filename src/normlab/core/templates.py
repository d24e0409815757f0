"""Prompt templates kept as files next to the code that fills them (verbatim paper prompts).

Each benchmark names its placeholder syntax (LoSoNA's ``{name}``, SCENE's
``{{name}}``); only placeholders of that syntax are substituted, so the rest of a
prompt (a JSON shape, say) stays exactly as printed.
"""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files

SINGLE_BRACES = re.compile(r"\{([a-z_]+)\}")
"""LoSoNA's placeholders: ``{subject}``, as the paper prints them."""
DOUBLE_BRACES = re.compile(r"\{\{([a-z_.]+)\}\}")
"""SCENE's and HSII's placeholders: ``{{norm}}``, ``{{persona.name}}``; single braces stay
text."""


@cache
def load_prompt(package: str, name: str) -> str:
    """``<package>/prompts/<name>.txt`` without its final newline."""
    return (files(package) / "prompts" / f"{name}.txt").read_text(encoding="utf-8").rstrip("\n")


def fill(template: str, values: dict[str, str], placeholder: re.Pattern[str]) -> str:
    """Substitute placeholders; one without a value is a bug in the caller, so it raises."""

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt placeholder {match.group(0)} has no value")
        return values[key]

    return placeholder.sub(replace, template)


class PromptSet:
    """One system's prompt folder and placeholder syntax: ``load`` a file, ``fill`` a template."""

    def __init__(self, package: str, placeholder: re.Pattern[str]) -> None:
        self.package = package
        self.placeholder = placeholder

    def load(self, name: str) -> str:
        return load_prompt(self.package, name)

    def fill(self, template: str, values: dict[str, str]) -> str:
        return fill(template, values, self.placeholder)

    def render(self, name: str, values: dict[str, str]) -> str:
        """Load ``name`` and fill it."""
        return self.fill(self.load(name), values)
