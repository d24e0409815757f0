"""The scripted model: deterministic replies, usage always set, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser, get_model

from normlab.core.errors import InputError
from normlab.models.scripted import Script, ScriptedResponder, ScriptRule

pytestmark = pytest.mark.anyio


def test_same_prompt_cycles_through_replies_other_prompts_are_independent() -> None:
    responder = ScriptedResponder(
        Script(rules=[ScriptRule(match="hello", replies=["a", "b"])], default="d"), "test"
    )
    assert [responder.reply("hello 1") for _ in range(3)] == ["a", "b", "a"]
    assert responder.reply("hello 2") == "a"
    assert responder.reply("bye") == "d"


def test_a_template_rule_names_what_its_match_found() -> None:
    rule = ScriptRule(
        match=r'"role_from": "(?P<who>[^"]+)"', replies=[r"to \g<who>: \n"], template=True
    )
    plain = ScriptRule(match="x", replies=[r"kept \g<who>"])
    responder = ScriptedResponder(Script(rules=[rule, plain]), "test")
    assert responder.reply('{"role_from": "Ana Li"}') == "to Ana Li: \n"
    assert responder.reply("x") == r"kept \g<who>"  # a rule without template is verbatim


def test_no_match_without_default_is_an_input_error() -> None:
    responder = ScriptedResponder(Script(rules=[]), "script.json")
    with pytest.raises(InputError, match=r"script\.json: no rule matches"):
        responder.reply("anything")


async def test_provider_sets_usage(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"default": "two words"}))
    output = await get_model(f"scripted/{script}").generate([ChatMessageUser(content="a b c")])
    assert output.completion == "two words"
    assert output.usage is not None
    assert (output.usage.input_tokens, output.usage.output_tokens) == (3, 2)


def test_bad_script_names_the_field(tmp_path: Path) -> None:
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"rules": [{"match": "(", "replies": ["x"]}]}))
    with pytest.raises(InputError, match=r"s.json: field 'rules.0.match': invalid regex"):
        get_model(f"scripted/{script}")
