"""The embedded default model: weights assembled offline, verified, and it answers."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model
from pydantic import BaseModel

from normlab.models import EMBEDDED_MODEL, embedded_weights, generate_structured

pytestmark = pytest.mark.anyio


def test_parts_are_found_through_package_metadata() -> None:
    parts = embedded_weights.locate_parts()
    assert [part.package for part in parts] == list(embedded_weights.PART_PACKAGES)
    assert sum(part.size for part in parts) == embedded_weights.GGUF_SIZE


def test_corrupt_assembly_is_refused_and_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(embedded_weights.CACHE_ENV, str(tmp_path))
    monkeypatch.setattr(embedded_weights, "GGUF_SHA256", "0" * 64)
    with pytest.raises(embedded_weights.EmbeddedModelError, match="sha256"):
        embedded_weights.embedded_gguf_path()
    assert not list((tmp_path / "models").iterdir())


class Greeting(BaseModel):
    greeting: str
    is_friendly: bool


@pytest.mark.slow
async def test_embedded_model_answers_offline_with_usage_and_prompt_cache() -> None:
    model = get_model(EMBEDDED_MODEL)
    prompt: list[ChatMessage] = [
        ChatMessageUser(content="Greet the new member of our hiking group in one sentence.")
    ]
    config = GenerateConfig(max_tokens=24, temperature=0.0)
    first = await model.generate(prompt, config=config)
    second = await model.generate(prompt, config=config)
    assert first.completion.strip()
    # Temperature 0: the same prompt, the same reply.
    assert second.completion == first.completion
    assert first.usage is not None and second.usage is not None
    assert 0 < first.usage.output_tokens <= 24 and first.usage.input_tokens > 0
    # The identical second prompt is served from llama.cpp's prompt cache.
    assert (second.usage.input_tokens_cache_read or 0) > 0


@pytest.mark.slow
async def test_embedded_model_follows_a_json_schema() -> None:
    result = await generate_structured(
        get_model(EMBEDDED_MODEL),
        [ChatMessageUser(content="Write a greeting for a new chat member as JSON.")],
        Greeting,
        config=GenerateConfig(max_tokens=80, temperature=0.0),
    )
    # The schema is enforced (llama.cpp's json_schema grammar): the first reply is the object
    # itself, both fields filled, no repair round and no cut.
    assert result.value is not None, result.error
    assert result.value.greeting.strip() and isinstance(result.value.is_friendly, bool)
    assert len(result.replies) == 1 and not result.truncated
    assert set(json.loads(result.replies[0])) == {"greeting", "is_friendly"}


class _FakeServer:
    """llama.cpp's streaming call as xllamacpp makes it: one callback per chunk, and a
    callback that returns True stops the generation."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = pieces
        self.sent = 0
        self.request: dict[str, object] = {}

    def handle_chat_completions(self, request: dict[str, object], callback: object) -> None:
        assert callable(callback)
        self.request = request
        chunks: list[dict[str, object]] = [
            {"choices": [{"delta": {"role": "assistant", "content": None}}], "prompt_progress": {}}
        ]
        chunks += [{"choices": [{"delta": {"content": piece}}]} for piece in self.pieces]
        chunks += [
            {"choices": [{"delta": {}, "finish_reason": "length"}]},
            {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}},
        ]
        for chunk in chunks:
            self.sent += 1
            if callback(chunk):
                return


def test_a_streamed_reply_is_assembled_and_every_chunk_is_a_heartbeat() -> None:
    from normlab.models.embedded import complete_streaming
    from normlab.models.prefix_scheduler import Progress

    server = _FakeServer(["Hel", "lo", "!"])
    progress = Progress()
    ticks: list[float] = []
    progress.tick = lambda: ticks.append(1.0)  # type: ignore[method-assign]
    reply = complete_streaming(server, {"messages": [], "max_tokens": 3}, progress)
    assert reply == {
        "choices": [
            {"message": {"role": "assistant", "content": "Hello!"}, "finish_reason": "length"}
        ],
        "usage": {"prompt_tokens": 9, "completion_tokens": 3},
    }
    assert len(ticks) == server.sent == 6
    assert server.request["stream"] is True and server.request["return_progress"] is True


def test_a_stopped_attempt_stops_generating_at_its_next_chunk() -> None:
    from normlab.models.embedded import complete_streaming
    from normlab.models.prefix_scheduler import Progress

    server = _FakeServer(["a"] * 50)
    progress = Progress()
    progress.stop()
    complete_streaming(server, {"messages": []}, progress)
    assert server.sent == 1, "nobody waits for the reply: llama.cpp is told to stop"


def test_every_free_string_of_a_reply_schema_is_bounded() -> None:
    """A 0.5B judge looped inside its "reasoning" string to the token cap, twice (the cut-off
    retry doubles the cap): 1,200 of a LoSoNA demo's 1,630 output tokens. The grammar built
    from the schema now closes each free string at ``MAX_STRING_CHARS``."""
    from normlab.models.embedded import MAX_STRING_CHARS, bounded_strings

    schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            "type": {"type": "string", "enum": ["injunctive", "descriptive"]},
            "reasoning": {"type": "string"},
            "quote": {"type": "string", "maxLength": 80},
            "items": {"type": "array", "items": {"type": "string"}},
            "complies": {"type": "boolean"},
        },
    }
    bounded = bounded_strings(schema)
    properties = bounded["properties"]
    assert properties["reasoning"]["maxLength"] == MAX_STRING_CHARS
    assert properties["items"]["items"]["maxLength"] == MAX_STRING_CHARS
    assert properties["quote"]["maxLength"] == 80, "its own bound is kept"
    assert "maxLength" not in properties["type"] and "maxLength" not in properties["complies"]
    assert "maxLength" not in schema["properties"]["reasoning"], "the caller's schema untouched"


def _machine(
    monkeypatch: pytest.MonkeyPatch, cores: int, samples: list[tuple[float, float]]
) -> None:
    """A machine of ``cores`` cores whose /proc/stat reads ``samples`` in turn (idle, total)."""
    from normlab.models import embedded

    readings = iter(samples)
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr(embedded, "_cpu_times", lambda: next(readings))
    monkeypatch.setattr("normlab.models.embedded.time.sleep", lambda seconds: None)


@pytest.mark.parametrize(
    ("cores", "idle", "expected"),
    [
        (2, 200.0, 2),  # quiet: every core idle, one thread each
        (2, 0.0, 1),  # two busy loops on two cores: one thread, never none
        (4, 200.0, 2),  # two of four cores busy
        (2, 90.0, 1),  # one busy loop, give or take
    ],
)
def test_threads_go_to_the_cores_that_are_free(
    monkeypatch: pytest.MonkeyPatch, cores: int, idle: float, expected: int
) -> None:
    """Beside two busy loops on two cores, 3 requests took 91–96 s on one thread and 197–444 s
    on two (llama.cpp's threads wait for each other after every matrix product, and one of
    them always waits for its core): the thread count follows the idle share of the machine
    over the window, here 100 ticks per core."""
    from normlab.models.embedded import free_cores

    _machine(monkeypatch, cores, [(0.0, 0.0), (idle, 100.0 * cores)])
    assert free_cores() == expected


def test_without_proc_stat_every_core_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    from normlab.models import embedded

    monkeypatch.setattr(embedded, "_cpu_times", lambda: None)
    monkeypatch.setattr("normlab.models.embedded.time.sleep", lambda seconds: None)
    assert embedded.free_cores() == len(os.sched_getaffinity(0))


def test_every_role_shares_the_threads_chosen_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """A judge's model created while the subject's server is busy must not measure the machine
    again (it would find no core free and load a second, one-thread copy of the model)."""
    from normlab.models import embedded

    counts = iter([2, 1])
    monkeypatch.setattr(embedded, "free_cores", lambda: next(counts))
    monkeypatch.setattr(embedded, "_chosen_threads", {})
    first = embedded.chosen_threads(16384, 1, 0)
    assert (first, embedded.chosen_threads(16384, 1, 0)) == (2, 2)
    assert embedded.chosen_threads(4096, 1, 0) == 1, "other settings are measured on their own"


def test_free_cores_on_this_machine_is_a_real_count() -> None:
    from normlab.models.embedded import free_cores

    assert 1 <= free_cores(window=0.05) <= len(os.sched_getaffinity(0))
