"""An OpenAI-compatible model endpoint on loopback, for measuring speed and injecting faults.

    python -m benchmarks.endpoint --script S.json [--latency 0.5] [--jitter exp]
        [--rate-limit 0.1] [--server-error 0.1] [--timeout 0.05] [--drop 0.0]
        [--malformed 0.05] [--truncated 0.05] [--empty 0.0] [--port 0] [--seed 0]

Replies come from a scripted model's script (:mod:`normlab.models.scripted`), so
every system's prompts get answers it can parse, and a sweep against the
endpoint is the same sweep as against ``scripted/S.json``, only over HTTP
through the provider path a user's OpenAI-compatible URL takes
(``openai-api/SERVICE/MODEL`` with ``SERVICE_BASE_URL``). Each request waits the
latency (fixed, or drawn: ``--jitter exp`` for exponential with that mean,
``uniform`` for 0..2×), reports token usage (whitespace words), honours
``max_tokens`` (a cut reply ends with ``finish_reason: length``), and with the
given probabilities fails instead:

* ``rate_limit``: 429 with ``Retry-After`` (``--retry-after`` seconds);
* ``server_error``: 500 or 503 with an error body;
* ``timeout``: holds the request without answering (the client's timeout fires);
* ``drop``: closes the connection without a response;
* ``malformed``: 200 whose body is not JSON (a proxy's HTML page);
* ``truncated``: 200 whose JSON body is cut in half;
* ``empty``: 200 with an empty message.

``GET /stats`` returns the counts (requests, replies, faults by kind, peak
concurrency); ``POST /stats/reset`` zeroes them. It is a stdlib asyncio HTTP/1.1
server with keep-alive, run in its own process by :class:`EndpointProcess` so
it never competes with the process under measurement for the GIL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from normlab.models.scripted import ScriptedResponder, load_script

FAULTS = ("rate_limit", "server_error", "timeout", "drop", "malformed", "truncated", "empty")
SETTINGS = ("latency", "jitter", "retry_after", "timeout_hold", "seed")
"""``EndpointConfig``'s settings besides the script and the faults: each, like each of
``FAULTS``, is the command line's option of the same name (``retry_after``:
``--retry-after``), which is how ``EndpointProcess`` hands them to its child process."""


def _option(name: str) -> str:
    return f"--{name.replace('_', '-')}"


def _named(source: object, names: tuple[str, ...]) -> dict[str, Any]:
    return {name: getattr(source, name) for name in names}


@dataclass(frozen=True)
class Faults:
    """The probability of each fault per request (the rest are answered normally)."""

    rate_limit: float = 0.0
    server_error: float = 0.0
    timeout: float = 0.0
    drop: float = 0.0
    malformed: float = 0.0
    truncated: float = 0.0
    empty: float = 0.0

    def __post_init__(self) -> None:
        if sum(asdict(self).values()) > 1.0:
            raise ValueError("fault probabilities sum to more than 1")

    def draw(self, rng: random.Random) -> str | None:
        roll = rng.random()
        for name in FAULTS:
            roll -= getattr(self, name)
            if roll < 0:
                return name
        return None


@dataclass(frozen=True)
class EndpointConfig:
    script: Path
    latency: float = 0.0
    jitter: str = "fixed"
    """``fixed`` (every request waits ``latency``), ``exp`` (exponential, mean ``latency``) or
    ``uniform`` (uniform on 0..2×latency)."""
    faults: Faults = field(default_factory=Faults)
    retry_after: float = 0.05
    timeout_hold: float = 600.0
    seed: int = 0


@dataclass
class Stats:
    requests: int = 0
    replies: int = 0
    faults: Counter[str] = field(default_factory=Counter)
    in_flight: int = 0
    peak_in_flight: int = 0
    started: float = field(default_factory=time.monotonic)

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "replies": self.replies,
            "faults": dict(self.faults),
            "peak_in_flight": self.peak_in_flight,
            "seconds": round(time.monotonic() - self.started, 3),
        }


class Endpoint:
    """The request handler: scripted replies, latency and faults; see the module docstring."""

    def __init__(self, config: EndpointConfig) -> None:
        self.config = config
        self.responder = ScriptedResponder(load_script(config.script), str(config.script))
        self.rng = random.Random(config.seed)
        self.stats = Stats()

    def latency(self) -> float:
        mean = self.config.latency
        if self.config.jitter == "exp" and mean > 0:
            return self.rng.expovariate(1.0 / mean)
        if self.config.jitter == "uniform":
            return self.rng.uniform(0.0, 2.0 * mean)
        return mean

    def completion(self, request: dict[str, Any], empty: bool) -> dict[str, Any]:
        messages = request.get("messages") or []
        prompt = "\n\n".join(_message_text(message) for message in messages)
        seed = request.get("seed")
        reply = "" if empty else self.responder.answer(prompt, seed)[0]
        cap = request.get("max_completion_tokens") or request.get("max_tokens")
        words = reply.split(" ")
        cut = isinstance(cap, int) and len(words) > cap
        if cut:
            reply = " ".join(words[:cap])
        prompt_tokens, completion_tokens = len(prompt.split()), len(reply.split())
        return {
            "id": f"chatcmpl-{self.stats.requests}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": reply},
                    "finish_reason": "length" if cut else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }

    async def respond(self, method: str, path: str, body: bytes) -> Response | None:
        """The response to one request, or None to drop the connection."""
        if method == "GET" and path.endswith("/stats"):
            return Response.json(200, self.stats.as_json())
        if method == "POST" and path.endswith("/stats/reset"):
            self.stats = Stats()
            return Response.json(200, {"reset": True})
        if method == "GET" and path.endswith("/models"):
            return Response.json(200, {"object": "list", "data": [{"id": "scripted"}]})
        if method != "POST" or not path.endswith("/chat/completions"):
            return Response.json(404, {"error": {"message": f"no route {method} {path}"}})
        self.stats.requests += 1
        fault = self.config.faults.draw(self.rng)
        if fault == "timeout":
            self.stats.faults[fault] += 1
            await asyncio.sleep(self.config.timeout_hold)
            return None
        await asyncio.sleep(self.latency())
        if fault is not None:
            self.stats.faults[fault] += 1
        if fault == "drop":
            return None
        if fault == "rate_limit":
            seconds = self.config.retry_after
            return Response.json(
                429,
                {"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}},
                {"Retry-After": f"{seconds:g}", "retry-after-ms": f"{seconds * 1000:g}"},
            )
        if fault == "server_error":
            status = self.rng.choice((500, 503))
            return Response.json(status, {"error": {"message": "upstream failure"}})
        if fault == "malformed":
            return Response(200, b"<html><body>502 Bad Gateway</body></html>")
        try:
            request = json.loads(body)
        except json.JSONDecodeError:
            return Response.json(400, {"error": {"message": "request body is not JSON"}})
        payload = json.dumps(self.completion(request, empty=fault == "empty")).encode()
        if fault == "truncated":
            return Response(200, payload[: len(payload) // 2])
        self.stats.replies += 1
        return Response(200, payload)


def _message_text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(
        cls, status: int, value: dict[str, Any], headers: dict[str, str] | None = None
    ) -> Response:
        return cls(status, json.dumps(value).encode(), headers or {})

    def encode(self) -> bytes:
        reason = {200: "OK", 404: "Not Found", 429: "Too Many Requests"}.get(self.status, "Error")
        lines = [
            f"HTTP/1.1 {self.status} {reason}",
            "Content-Type: application/json",
            f"Content-Length: {len(self.body)}",
            "Connection: keep-alive",
            *(f"{name}: {value}" for name, value in self.headers.items()),
        ]
        return ("\r\n".join(lines) + "\r\n\r\n").encode() + self.body


async def _serve_connection(
    endpoint: Endpoint, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            request_line, *header_lines = head.decode("latin-1").split("\r\n")
            method, path, _ = request_line.split(" ", 2)
            length = 0
            for line in header_lines:
                name, _, value = line.partition(":")
                if name.strip().lower() == "content-length":
                    length = int(value.strip())
            body = await reader.readexactly(length) if length else b""
            endpoint.stats.in_flight += 1
            endpoint.stats.peak_in_flight = max(
                endpoint.stats.peak_in_flight, endpoint.stats.in_flight
            )
            try:
                response = await endpoint.respond(method, path, body)
            finally:
                endpoint.stats.in_flight -= 1
            if response is None:
                break
            writer.write(response.encode())
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, ValueError):
        pass
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def serve(config: EndpointConfig, port: int, port_file: Path | None) -> None:
    endpoint = Endpoint(config)
    server = await asyncio.start_server(
        lambda r, w: _serve_connection(endpoint, r, w), "127.0.0.1", port, backlog=1024
    )
    bound = server.sockets[0].getsockname()[1]
    if port_file is not None:
        port_file.write_text(str(bound))
    print(f"endpoint: http://127.0.0.1:{bound}/v1", flush=True)
    async with server:
        await server.serve_forever()


class EndpointProcess:
    """Run the endpoint in a child process; ``base_url`` is its ``/v1`` address.

    ``env(service)`` gives the variables that point ``openai-api/SERVICE/…`` at it.
    """

    def __init__(self, config: EndpointConfig, folder: Path) -> None:
        self.config = config
        self.folder = folder
        self.port_file = folder / "endpoint.port"
        self.process: subprocess.Popen[bytes] | None = None
        self.base_url = ""

    def arguments(self) -> list[str]:
        arguments = ["--script", str(self.config.script), "--port-file", str(self.port_file)]
        given = {**_named(self.config, SETTINGS), **_named(self.config.faults, FAULTS)}
        for name, value in given.items():
            arguments += [_option(name), str(value)]
        return arguments

    def __enter__(self) -> EndpointProcess:
        self.port_file.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.endpoint", *self.arguments()],
            cwd=Path(__file__).resolve().parents[1],
            stdout=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while not self.port_file.exists() or not self.port_file.read_text():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the endpoint did not start")
            time.sleep(0.05)
        self.base_url = f"http://127.0.0.1:{self.port_file.read_text()}/v1"
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def env(self, service: str = "endpoint") -> dict[str, str]:
        prefix = service.upper().replace("-", "_")
        return {f"{prefix}_BASE_URL": self.base_url, f"{prefix}_API_KEY": "not-a-secret"}

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.base_url}/stats", timeout=10) as response:
            value: dict[str, Any] = json.load(response)
            return value

    def reset(self) -> None:
        request = urllib.request.Request(f"{self.base_url}/stats/reset", method="POST")
        with urllib.request.urlopen(request, timeout=10):
            pass


def main() -> None:
    # An option left out is left out of the namespace (SUPPRESS), so the dataclasses' defaults
    # are the only ones: the command line states none of them again.
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], argument_default=argparse.SUPPRESS
    )
    parser.add_argument("--script", type=Path, required=True)
    parser.add_argument("--latency", type=float)
    parser.add_argument("--jitter", choices=("fixed", "exp", "uniform"))
    parser.add_argument("--retry-after", type=float)
    parser.add_argument("--timeout-hold", type=float)
    parser.add_argument("--seed", type=int)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--port-file", type=Path, default=None)
    for name in FAULTS:
        parser.add_argument(_option(name), type=float)
    given = vars(parser.parse_args())
    port, port_file = given.pop("port"), given.pop("port_file")
    faults = Faults(**{name: given.pop(name) for name in FAULTS if name in given})
    config = EndpointConfig(faults=faults, **given)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(config, port, port_file))


if __name__ == "__main__":
    main()
