"""The embedded default model: Qwen2.5-Coder-0.5B run in-process by llama.cpp.

Registered for Inspect as the ``embedded`` provider, so ``embedded/qwen2.5-coder-0.5b``
works wherever a model string does. It needs no network and no API key; it is
the model every role uses when the user names none. A 0.5B model is a plumbing
check, not a judge: reports say so when it judges.

Why this shape:
- one llama.cpp server per process (loading costs seconds and 0.8 GB), shared by
  every role and every sample;
- one slot (``-M n_parallel=N`` for more) plus llama.cpp's RAM prompt cache, so
  identical or prefix-sharing prompts (the K epochs of a sample, the judge calls
  of one scenario) reuse the evaluated prefix instead of recomputing it: on two
  CPU cores one slot decodes faster than two sharing them (8 requests of ~1,500
  prompt and 150 reply tokens: 37 s with one slot, 51–58 s with two, which also
  reused less of the prefixes: ``python -m benchmarks.embedded_slots``);
- a prefix scheduler in front of the server (``normlab.models.prefix_scheduler``)
  that runs prompts sharing a prefix back to back: Inspect may send up to
  ``max_connections`` requests, and whenever a slot frees, the waiting request
  most similar to that slot's last prompt goes next;
- every attempt is timed from the moment it gets a slot, not from when Inspect sent it: a
  request queued behind a slow or busy CPU is waiting, not hung, and Inspect's own attempt
  timer (which normlab leaves unset for this provider, ``times_own_attempts``) would time
  it out for waiting; and it is timed out only when it stops making progress
  (``NORMLAB_ATTEMPT_TIMEOUT``, default 600 s, without a prompt batch evaluated or a token
  written), never while it is producing tokens: the reply is streamed, and each chunk
  (prompt progress every ``N_BATCH`` tokens, then each token) is a heartbeat. On a machine
  slow enough, a fixed bound on the whole attempt cut replies that were still coming and
  started them again from nothing, for ever. A timed-out attempt is retried by Inspect
  like its own, and its generation stops at its next step, freeing the slot;
- llama.cpp's worker threads sleep while they wait for work (``poll = 0``) instead of
  spinning: spinning threads compete with each other, and with anything else on the
  machine, when the cores are oversubscribed (``python -m benchmarks.embedded_polling``);
- one worker thread per core that is free when the model loads (``free_cores``), not per
  core: llama.cpp's threads meet at a barrier after every matrix product, so a thread that
  shares its core with another process holds all the others back. Beside two busy loops on
  two cores, 3 requests took 91–96 s on one thread and 197–444 s on two, with 4–6× the CPU
  (``python -m benchmarks.embedded_polling --poll 0 --threads 1 2 --busy 2``); on a quiet
  machine every core is free, so nothing changes there (``-M n_threads=N`` fixes it);
- token usage comes from llama.cpp itself, with cache hits reported as
  ``input_tokens_cache_read``.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
    modelapi,
)

from normlab.models.embedded_weights import embedded_gguf_path
from normlab.models.prefix_scheduler import Progress, SlotTimeoutError, scheduler_for_loop
from normlab.models.provider import GenerateArgs, NormlabModelAPI
from normlab.models.timeouts import attempt_timeout

DEFAULT_MAX_TOKENS = 512
QUEUE_DEPTH_PER_SLOT = 16
N_BATCH = 512
"""Prompt tokens evaluated per step: each step reports progress (llama.cpp's default of
2,048 would leave a long prompt silent for minutes on a busy machine). The physical batch
(``n_ubatch``) is 512 already, so this costs no speed."""
POLL = 0
"""llama.cpp's polling level for idle worker threads: 0 sleeps, llama.cpp's default 50 spins."""

FREE_CORES_WINDOW = 0.25
"""Seconds over which ``free_cores`` watches the machine's idle time before the model loads."""

_server_lock = threading.Lock()
_servers: dict[tuple[int, int, int, int], Any] = {}


def _load_server(n_ctx: int, n_parallel: int, n_threads: int, poll: int) -> Any:
    """Start (once per setting) the in-process llama.cpp server."""
    key = (n_ctx, n_parallel, n_threads, poll)
    with _server_lock:
        if key not in _servers:
            import xllamacpp

            params = xllamacpp.CommonParams()
            params.model.path = str(embedded_gguf_path())
            params.n_ctx = n_ctx
            params.n_parallel = n_parallel
            params.cpuparams.n_threads = n_threads
            params.cpuparams_batch.n_threads = n_threads
            params.cpuparams.poll = poll
            params.cpuparams_batch.poll = poll
            params.n_batch = N_BATCH
            params.cache_prompt = True
            params.cache_ram_mib = 2048
            params.warmup = False
            params.verbosity = -1
            _servers[key] = xllamacpp.Server(params)
        return _servers[key]


def _cpu_times() -> tuple[float, float] | None:
    """The machine's idle and total CPU time so far (Linux ``/proc/stat``, in ticks)."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = stat.readline().split()
    except OSError:
        return None
    if len(fields) < 5 or fields[0] != "cpu":
        return None
    ticks = [float(value) for value in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0.0)  # idle + iowait
    return idle, sum(ticks[:8])  # guest time is counted in user time already


def free_cores(window: float = FREE_CORES_WINDOW) -> int:
    """The cores this process may use that nothing else is using now, at least 1.

    Watches the machine's idle time for ``window`` seconds (``/proc/stat``): the share idle,
    times the cores, rounded. This process's own CPU time in the window is counted as free,
    since the threads will be its own. Where ``/proc/stat`` cannot be read, every core.
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    cores = cores or 1
    machine_cores = os.cpu_count() or cores
    before, own_before = _cpu_times(), time.process_time()
    time.sleep(window)
    after, own_after = _cpu_times(), time.process_time()
    if before is None or after is None or after[1] <= before[1]:
        return cores
    idle_share = (after[0] - before[0]) / (after[1] - before[1])
    own_share = (own_after - own_before) / (window * machine_cores)
    free = round(min(1.0, idle_share + own_share) * machine_cores)
    return max(1, min(cores, free))


_chosen_threads: dict[tuple[int, int, int], int] = {}
_choice_lock = threading.Lock()


def chosen_threads(n_ctx: int, n_parallel: int, poll: int) -> int:
    """The worker threads of the process's server for these settings: ``free_cores`` when
    it is first asked, then the same. Every role's model in the process shares that server,
    rather than loading a second copy with a count measured while the first one runs."""
    with _choice_lock:
        key = (n_ctx, n_parallel, poll)
        if key not in _chosen_threads:
            _chosen_threads[key] = free_cores()
        return _chosen_threads[key]


def to_chat_dicts(messages: list[ChatMessage]) -> list[dict[str, str]]:
    """Inspect messages as OpenAI-style ``{"role", "content"}`` dicts (text only)."""
    converted = []
    for message in messages:
        role = message.role if message.role in ("system", "user", "assistant") else "user"
        converted.append({"role": role, "content": message.text})
    return converted


def prompt_key(request: dict[str, Any]) -> str:
    """The text llama.cpp will see, in order: what prefix sharing is measured on."""
    return "\x00".join(f"{m['role']}\x01{m['content']}" for m in request["messages"])


def complete_streaming(server: Any, request: dict[str, Any], progress: Progress) -> dict[str, Any]:
    """Run one chat completion as a stream, ticking ``progress`` at every chunk.

    Returns the reply in the shape of a non-streamed completion (``choices[0].message``,
    ``finish_reason``, ``usage``), or llama.cpp's error. Stops generating (the callback
    returns True) once ``progress.stopped`` says nobody waits for the reply any more.
    """
    content: list[str] = []
    finish_reason: str | None = None
    usage: dict[str, Any] = {}
    error: Any = None

    def on_chunk(chunk: dict[str, Any]) -> bool:
        nonlocal finish_reason, usage, error
        progress.tick()
        if "error" in chunk or "code" in chunk:
            error = chunk.get("error", chunk)
            return True
        for choice in chunk.get("choices") or []:
            piece = (choice.get("delta") or {}).get("content")
            if piece:
                content.append(piece)
            finish_reason = choice.get("finish_reason") or finish_reason
        usage = chunk.get("usage") or usage
        return progress.stopped

    streamed = {
        **request,
        "stream": True,
        "return_progress": True,
        "stream_options": {"include_usage": True},
    }
    server.handle_chat_completions(streamed, on_chunk)
    if error is not None:
        return {"error": error}
    return {
        "choices": [
            {
                "message": {"role": "assistant", "content": "".join(content)},
                "finish_reason": finish_reason,
            }
        ],
        "usage": usage,
    }


MAX_STRING_CHARS = 600
"""Longest string the embedded model may write in a JSON reply: a 0.5B model sometimes loops
inside a string ("reasoning" repeating a sentence) until its token cap, then is retried with
twice the cap and loops again; the grammar llama.cpp builds from the schema closes such a
string here instead (a judge's quoted evidence or reasoning stays far shorter)."""


def bounded_strings(schema: Any) -> Any:
    """``schema`` with every free string given ``maxLength`` ``MAX_STRING_CHARS`` (one
    that has its own bound, an enum or a pattern is left as it is)."""
    if isinstance(schema, list):
        return [bounded_strings(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    bounded = {key: bounded_strings(value) for key, value in schema.items()}
    free = not {"maxLength", "enum", "const", "pattern"} & bounded.keys()
    if bounded.get("type") == "string" and free:
        bounded["maxLength"] = MAX_STRING_CHARS
    return bounded


def build_request(messages: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
    """Translate an Inspect generate call into an OpenAI chat-completions request."""
    request: dict[str, Any] = {
        "messages": to_chat_dicts(messages),
        "max_tokens": config.max_tokens or DEFAULT_MAX_TOKENS,
    }
    if config.temperature is not None:
        request["temperature"] = config.temperature
    if config.top_p is not None:
        request["top_p"] = config.top_p
    if config.seed is not None:
        request["seed"] = config.seed
    if config.stop_seqs:
        request["stop"] = config.stop_seqs
    if config.response_schema is not None:
        schema = config.response_schema
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {
                "name": schema.name,
                "schema": bounded_strings(schema.json_schema.model_dump(exclude_none=True)),
                "strict": True,
            },
        }
    return request


@modelapi(name="embedded")
class EmbeddedLlamaCpp(NormlabModelAPI):
    """Inspect provider for the embedded GGUF (llama.cpp via xllamacpp, CPU)."""

    times_own_attempts = True
    """Attempts are timed from their slot, not from Inspect's call (see the module)."""

    def setup(
        self,
        config: GenerateConfig,
        n_ctx: int = 16384,
        n_parallel: int = 1,
        n_threads: int | None = None,
        poll: int = POLL,
        **model_args: Any,
    ) -> None:
        self.n_ctx = int(n_ctx)
        self.poll = int(poll)
        self.n_parallel = int(n_parallel)
        self.n_threads = int(n_threads) if n_threads else 0  # 0: ``free_cores`` at load

    def _server(self) -> Any:
        """The llama.cpp server for this model's settings, its threads chosen when the first
        call of the process loads it (``chosen_threads``)."""
        threads = self.n_threads or chosen_threads(self.n_ctx, self.n_parallel, self.poll)
        return _load_server(self.n_ctx, self.n_parallel, threads, self.poll)

    def max_connections(self) -> int:
        # Let Inspect queue more requests than there are slots: the prefix
        # scheduler needs a choice of waiting prompts to order them by prefix.
        return QUEUE_DEPTH_PER_SLOT * self.n_parallel

    def connection_key(self) -> str:
        return "embedded"

    def should_retry(self, ex: Exception) -> bool:
        return isinstance(ex, SlotTimeoutError)

    async def respond(self, args: GenerateArgs) -> tuple[ModelOutput | Exception, ModelCall]:
        request = build_request(args.input, args.config)
        server = await anyio.to_thread.run_sync(self._server)
        scheduler = scheduler_for_loop(self.n_parallel)
        progress = Progress()
        response: dict[str, Any] = await scheduler.run(
            prompt_key(request),
            lambda: anyio.to_thread.run_sync(complete_streaming, server, request, progress),
            timeout=args.config.attempt_timeout or attempt_timeout(),
            progress=progress,
        )
        call = ModelCall.create(request=request, response=response)
        if "error" in response or not response.get("choices"):
            return RuntimeError(f"embedded model error: {response.get('error', response)}"), call
        choice = response["choices"][0]
        stop_reason: StopReason = (
            "max_tokens" if choice.get("finish_reason") == "length" else "stop"
        )
        output = ModelOutput.from_content(
            model=self.model_name,
            content=choice["message"].get("content") or "",
            stop_reason=stop_reason,
        )
        usage = response.get("usage", {})
        prompt_tokens = int(usage.get("prompt_tokens", 0))
        cached = int((usage.get("prompt_tokens_details") or {}).get("cached_tokens", 0))
        completion_tokens = int(usage.get("completion_tokens", 0))
        output.usage = ModelUsage(
            input_tokens=prompt_tokens - cached,
            output_tokens=completion_tokens,
            total_tokens=prompt_tokens + completion_tokens,
            input_tokens_cache_read=cached,
        )
        return output, call
