"""Every model a command will call, checked before anything is created or called.

A model string Inspect does not know, a provider whose SDK is not installed, a missing API
key or an endpoint nobody listens on used to surface as a long traceback once the run had
started, leaving an empty run folder behind, or as retries that never end. Each is found
here first, on one line naming the option, with exit code 2: ``check_models`` builds
every model as Inspect will (which loads the SDK and reads the key) and opens a TCP
connection to each endpoint a model will send requests to, without sending one. An
endpoint is named by its URL with any credentials in it redacted
([`normlab.core.secrets.redact_url`][normlab.core.redact_url]): the message lands in terminals and
CI logs.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from normlab.core.errors import InputError, unmarked
from normlab.core.secrets import guard_inspect_logs, redact_text, redact_url
from normlab.models.timeouts import attempt_timeout

CONNECT_TIMEOUT_S = 5.0


def endpoints(api: Any) -> list[str]:
    """The URLs a model API sends requests to: its own, its SDK client's, or those of the
    APIs it spreads calls over. In-process models (embedded, scripted, human) have none."""
    urls: list[str] = []
    for part in [api, *getattr(api, "apis", [])]:
        url = getattr(part, "base_url", None) or getattr(
            getattr(part, "client", None), "base_url", None
        )
        if url:
            urls.append(str(url))
    return urls


def unreachable(url: str, timeout: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why nothing answers at ``url``'s host and port (``None`` when a connection opens)."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except socket.gaierror:
        return f"cannot resolve {parts.hostname}"
    except TimeoutError:
        return f"no answer from {parts.hostname}:{port} within {timeout:g} s"
    except OSError as error:
        return f"cannot connect to {parts.hostname}:{port} ({error.strerror or error})"


def check_models(
    models: Mapping[str, str] | Iterable[tuple[str, str]], *, reach: bool = True
) -> None:
    """Build every ``(option, model)`` as Inspect will and reach its endpoints (not when
    ``reach`` is False: a judge whose verdicts may all be cached needs its key, not its
    server); the first that fails is an [`InputError`][normlab.core.InputError] naming the option
    and the model (each model once)."""
    from inspect_ai.model import get_model

    # Read before any sample starts: inside one, a bad value would be an eval error that
    # looks resumable and never names the variable.
    attempt_timeout()
    # Every command checks its models before its first call, in an eval or not (a generator,
    # a rescore): from here on Inspect's log lines carry no credentials.
    guard_inspect_logs()
    checked: set[str] = set()
    pairs = models.items() if isinstance(models, Mapping) else models
    for option, name in pairs:
        if name in checked:
            continue
        checked.add(name)
        try:
            model = get_model(name)
        except InputError:
            raise
        except Exception as error:  # Inspect raises several types for models it cannot build
            problem = redact_text(unmarked(str(error)))
            raise InputError(option, f"model {name!r}: {problem}") from None
        for url in endpoints(model.api) if reach else []:
            reason = unreachable(url)
            if reason is not None:
                raise InputError(
                    option,
                    f"model {name!r}: {reason} ({redact_url(url)}); is the server running?",
                )
