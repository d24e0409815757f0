"""The structured-output helper: lenient parse, one repair retry, recorded failure, and the
retries of responses that are no reply."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest
from inspect_ai.model import ChatMessageUser, Model, ModelOutput, get_model
from pydantic import BaseModel

from normlab.models import structured
from normlab.models.structured import (
    UNUSABLE_RETRIES,
    ReplyParseError,
    StructuredResult,
    UnusableResponseError,
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


class _Flaky:
    """A model whose first responses are no reply: an unreadable body (``error``) or an empty
    message (``error=None``), ``bad`` times; then ``reply``."""

    api = None

    def __init__(self, bad: int, error: Exception | None, reply: str = "fine") -> None:
        self.bad, self.error, self.reply, self.calls = bad, error, reply, 0

    async def generate(self, *args: Any, **kwargs: Any) -> ModelOutput:
        self.calls += 1
        if self.calls > self.bad:
            return ModelOutput.from_content(model="flaky", content=self.reply)
        if self.error is not None:
            raise self.error
        return ModelOutput.from_content(model="flaky", content="")

    def __str__(self) -> str:
        return "flaky"


@pytest.fixture
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(structured, "UNUSABLE_BACKOFF_S", 0.0)


BODY_ERROR = json.JSONDecodeError("Expecting value", "<html>", 0)


@pytest.mark.usefixtures("no_backoff")
@pytest.mark.parametrize("error", [BODY_ERROR, None])
async def test_responses_that_are_no_reply_are_asked_again_and_counted(
    error: Exception | None,
) -> None:
    flaky = _Flaky(bad=2, error=error)
    result: StructuredResult[BaseModel] = await generate_structured(
        cast(Model, flaky), [ChatMessageUser(content="Say")], None, repair_retries=0
    )
    assert (flaky.calls, result.retries, result.replies) == (3, 2, ["fine"])


@pytest.mark.usefixtures("no_backoff")
async def test_an_endpoint_that_never_replies_fails_naming_its_last_error() -> None:
    flaky = _Flaky(bad=99, error=BODY_ERROR)
    with pytest.raises(UnusableResponseError) as raised:
        await generate_structured(cast(Model, flaky), [ChatMessageUser(content="Say")], None)
    assert flaky.calls == UNUSABLE_RETRIES + 1
    assert str(raised.value) == (
        "flaky: no usable response after 5 tries "
        "(JSONDecodeError: Expecting value: line 1 column 1 (char 0))"
    )


@pytest.mark.usefixtures("no_backoff")
async def test_an_empty_message_is_kept_once_the_retries_are_spent() -> None:
    flaky = _Flaky(bad=99, error=None)
    result = await generate_structured(
        cast(Model, flaky), [ChatMessageUser(content="Judge")], Verdict
    )
    # Each of the two tries (first and repair) is asked 1 + 4 times, then kept empty.
    assert (flaky.calls, result.retries, result.replies) == (10, 8, ["", ""])
    assert result.value is None and result.error is not None


@pytest.mark.usefixtures("no_backoff")
async def test_other_errors_are_not_retried_here() -> None:
    flaky = _Flaky(bad=99, error=RuntimeError("quota"))
    with pytest.raises(RuntimeError, match="quota"):
        await generate_structured(cast(Model, flaky), [ChatMessageUser(content="Say")], None)
    assert flaky.calls == 1
