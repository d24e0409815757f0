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
DOUBLE_BRACES = re.compile(r"\{\{([a-z_.]+)\}\}")


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
