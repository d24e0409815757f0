"""The sweep's depth bound counts the calls a sample made one after another (issue 23): calls
asked at once count once, cache hits not at all, failed attempts not at all."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from types import SimpleNamespace

from benchmarks.sweep import _chain

START = datetime(2026, 1, 1, tzinfo=UTC)


def call(start: float, end: float, cache: str | None = None, error: str | None = None) -> object:
    return SimpleNamespace(
        timestamp=START + timedelta(seconds=start),
        completed=START + timedelta(seconds=end),
        cache=cache,
        error=error,
    )


def test_calls_asked_at_once_count_once_and_cache_hits_not_at_all() -> None:
    sequential = [call(0, 2), call(2, 4), call(4, 6)]
    assert _chain(sequential) == 3
    # the judge in both orders at once after the subject's reply: two latencies, not three
    assert _chain([call(0, 2), call(2, 4), call(2, 4.5)]) == 2
    assert _chain([*sequential, call(6, 6, cache="read"), call(6, 7, error="429")]) == 3
    assert _chain([]) == 0
