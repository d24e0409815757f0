"""The structured-output helper: lenient parse, one repair retry, recorded failure."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser, get_model
from pydantic import BaseModel

from normlab.models.structured import (
    ReplyParseError,
    extract_json_object,
    generate_structured,
    parse_reply,
)

pytestmark = pytest.mark.anyio


class Verdict(BaseModel):
    reasoning: str
    complies: bool


@pytest.mark.parametrize(
    "reply",
    [
        '{"reasoning": "ok", "complies": true}',
        'Sure!\n```json\n{"reasoning": "ok", "complies": true}\n```',
        'Here you go: {"reasoning": "ok", "complies": true} hope it helps',
        '{"reasoning": "line one\nline two", "complies": true}',  # raw newline in a string
    ],
)
def test_lenient_parse(reply: str) -> None:
    assert parse_reply(reply, Verdict).complies is True


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I think it complies.", "no JSON object|invalid JSON"),
        ('{"reasoning": "ok"}', "field 'complies'"),
        ('{"reasoning": "ok", "complies": "perhaps"}', "field 'complies'"),
    ],
)
def test_parse_failures_explain_themselves(reply: str, message: str) -> None:
    with pytest.raises(ReplyParseError, match=message):
        parse_reply(reply, Verdict)


def scripted(tmp_path: Path, first: str, after_repair: str) -> str:
    script = tmp_path / "script.json"
    rules = [
        {"match": "could not be used", "replies": [after_repair]},  # the repair prompt
        {"match": "Judge", "replies": [first]},
    ]
    script.write_text(json.dumps({"rules": rules}))
    return f"scripted/{script}"


async def test_repair_retry_recovers(tmp_path: Path) -> None:
    model = get_model(scripted(tmp_path, "not json", '{"reasoning": "r", "complies": false}'))
    result = await generate_structured(model, [ChatMessageUser(content="Judge this")], Verdict)
    assert result.value == Verdict(reasoning="r", complies=False)
    assert result.attempts == 2
    assert result.usage.output_tokens > 0


async def test_failure_after_repair_is_recorded(tmp_path: Path) -> None:
    model = get_model(scripted(tmp_path, "still not json", "still not json"))
    result = await generate_structured(model, [ChatMessageUser(content="Judge this")], Verdict)
    assert result.value is None and result.parse_failed
    assert result.replies == ["still not json", "still not json"]
    assert result.error is not None and "JSON" in result.error


def test_a_reply_with_a_number_past_pythons_digit_limit_is_a_parse_failure() -> None:
    with pytest.raises(ReplyParseError, match="too long"):
        extract_json_object('{"n": ' + "9" * 5000 + "}")
