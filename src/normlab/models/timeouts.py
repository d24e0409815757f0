"""How long one attempt of a model call may take: normlab's guard against hung endpoints."""

from __future__ import annotations

import os

from normlab.core.errors import InputError

ATTEMPT_TIMEOUT_ENV = "NORMLAB_ATTEMPT_TIMEOUT"
DEFAULT_ATTEMPT_TIMEOUT_S = 600


def attempt_timeout() -> int:
    """Seconds one attempt of a model call may take before Inspect abandons and retries it.

    Inspect sets none by default, so an endpoint that accepts a request and never
    answers hangs a run forever. Ten minutes covers a slow CPU model writing a
    long reply; ``NORMLAB_ATTEMPT_TIMEOUT`` sets another value (whole seconds).
    """
    text = os.environ.get(ATTEMPT_TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_ATTEMPT_TIMEOUT_S
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise InputError(ATTEMPT_TIMEOUT_ENV, f"expected whole seconds ≥ 1, got {text[:40]!r}")
    return int(text)
