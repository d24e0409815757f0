"""Prompt files filled with each paper's placeholder syntax, nothing else touched."""

from __future__ import annotations

import re

import pytest

from normlab.core.templates import DOUBLE_BRACES, SINGLE_BRACES, PromptSet, fill


def test_only_known_placeholders_are_filled() -> None:
    template = 'Say {name} as {"json": 1} and {{persona.name}}'
    assert (
        fill(template, {"name": "hi"}, SINGLE_BRACES)
        == 'Say hi as {"json": 1} and {{persona.name}}'
    )
    assert fill(template, {"persona.name": "Kenji"}, DOUBLE_BRACES).endswith("and Kenji")
    with pytest.raises(KeyError, match="has no value"):
        fill("{missing}", {}, SINGLE_BRACES)


def test_prompt_set_loads_package_files() -> None:
    prompts = PromptSet("normlab.losona", SINGLE_BRACES)
    judge = prompts.load("judge")
    assert "{norm_statement}" in judge and not judge.endswith("\n")
    assert re.search(r"\{subject\}", prompts.load("subject_base"))
