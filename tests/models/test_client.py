"""The role- and actor-tagged client on the scripted model: records, prefixes, failures, caps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.model import ChatMessageUser, GenerateConfig, get_model
from pydantic import BaseModel

from normlab.models import ModelClient, prefix_shares

pytestmark = pytest.mark.anyio


class Answer(BaseModel):
    answer: str


def script(tmp_path: Path, rules: list[dict[str, object]]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"rules": rules}))
    return f"scripted/{path}"


async def test_records_role_actor_prefix_and_usage(tmp_path: Path) -> None:
    model = get_model(script(tmp_path, [{"match": ".", "replies": ['{"answer": "yes"}']}]))
    client = ModelClient({"persona": model, "judge": model})
    first = [ChatMessageUser(content="You are Kenji. Chat so far: hello")]
    second = [ChatMessageUser(content="You are Kenji. Chat so far: hello there")]
    await client.structured("persona", "Kenji", first, Answer)
    await client.structured("persona", "Kenji", second, Answer)
    await client.structured("persona", "Priya", second, Answer)
    result = await client.structured("judge", "judge", first, Answer, operation="label")
    assert result.value == Answer(answer="yes")
    kenji = [r for r in client.records if r.actor == "Kenji"]
    assert kenji[0].shared_prefix_chars == 0
    assert kenji[1].shared_prefix_chars == len(first[0].text)  # the same caller's last prompt
    assert client.records[2].shared_prefix_chars == 0  # Priya has no previous prompt
    assert client.records[3].operation == "label"
    usage = client.usage()
    assert (usage["persona"].calls, usage["judge"].calls) == (3, 1)
    assert usage["persona"].input_tokens == sum(r.input_tokens for r in client.records[:3])
    shares = prefix_shares(client.records, by=lambda r: r.actor)
    assert shares["Priya"] == 0.0 and shares["Kenji"] == pytest.approx(
        len(first[0].text) / (len(first[0].text) + len(second[0].text))
    )


async def test_parse_failure_is_recorded_after_the_repair_retry(tmp_path: Path) -> None:
    model = get_model(script(tmp_path, [{"match": ".", "replies": ["no json here"]}]))
    client = ModelClient({"judge": model})
    result = await client.structured("judge", "judge", [ChatMessageUser(content="x")], Answer)
    assert result.value is None and result.attempts == 2
    (record,) = client.records
    assert record.parse_failed and not record.truncated and record.attempts == 2


async def test_a_reply_cut_by_its_cap_is_retried_with_a_larger_cap(tmp_path: Path) -> None:
    long = " ".join(["word"] * 30)
    model = get_model(script(tmp_path, [{"match": ".", "replies": [long]}]))
    client = ModelClient({"subject": model})
    messages = [ChatMessageUser(content="talk")]
    fits = await client.text("subject", "Ana", messages, GenerateConfig(max_tokens=20))
    assert (fits.truncations, fits.truncated, fits.text) == (1, False, long)  # 40 words fit
    cut = await client.text("subject", "Ana", messages, GenerateConfig(max_tokens=10))
    assert (cut.truncations, cut.truncated, cut.attempts) == (2, True, 2)
    assert client.records[-1].truncated and not client.records[-1].parse_failed
    broken = await client.structured(
        "subject", "Ana", messages, Answer, GenerateConfig(max_tokens=10)
    )
    assert broken.value is None and broken.truncated
    assert broken.error is not None and broken.error.startswith("reply cut off at the output cap")
