"""How long one attempt of a model call may take: normlab's guard against hung endpoints."""

from __future__ import annotations

import os

from normlab.core.errors import InputError

ATTEMPT_TIMEOUT_ENV = "NORMLAB_ATTEMPT_TIMEOUT"
DEFAULT_ATTEMPT_TIMEOUT_S = 600
MAX_ATTEMPT_TIMEOUT_S = 86_400
"""A day: the longest one attempt may be given (a model call that needs longer is hung)."""


def attempt_timeout() -> int:
    """Seconds one attempt of a model call may take before Inspect abandons and retries it.

    Inspect sets none by default, so an endpoint that accepts a request and never
    answers hangs a run forever. Ten minutes covers a slow CPU model writing a
    long reply; ``NORMLAB_ATTEMPT_TIMEOUT`` sets another value (whole seconds).
    """
    text = os.environ.get(ATTEMPT_TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_ATTEMPT_TIMEOUT_S
    # The length is checked before int(): past 4,300 digits int() itself refuses, with a
    # traceback; past a day, an attempt is no longer guarded at all.
    digits = text.lstrip("0") if text.isascii() and text.isdigit() else None
    if digits is None or not digits or len(digits) > 6 or int(digits) > MAX_ATTEMPT_TIMEOUT_S:
        raise InputError(
            ATTEMPT_TIMEOUT_ENV,
            f"expected whole seconds from 1 to {MAX_ATTEMPT_TIMEOUT_S:,}, got {text[:40]!r}"
            + ("…" if len(text) > 40 else ""),
        )
    return int(digits)
