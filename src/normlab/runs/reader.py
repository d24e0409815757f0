"""What a system's reader page shows of one sample, as plain rows: the system builds them (its
``reader.py``, named by its ``SystemParts.reader``), the web app renders them.

One chat row shape serves every system's chat, so one template renders them. The rows are
built from a run's records through the system's own loader (``record_of``), the one reader of
its logs that its analysis and report use too, so the viewer never shows an old log's stored
number where the report shows today's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

from inspect_ai.log import EvalLog, EvalSample

from normlab.core.logs import LogSample, local_path


@dataclass
class ChatRow:
    turn_id: str
    actor: str
    content: str
    kind: str = "message"
    target: str = ""
    marks: list[str] = field(default_factory=list)
    section: str = ""


@dataclass
class Reply:
    """One reply of the subject, with the judge's verdict and reasons."""

    label: str
    text: str
    verdict: str
    reasons: str


@dataclass
class SampleView:
    title: str
    facts: list[tuple[str, str]]
    chat: list[ChatRow]
    replies: list[Reply] = field(default_factory=list)
    extra_chats: list[tuple[str, list[ChatRow]]] = field(default_factory=list)


@dataclass(frozen=True)
class Reader:
    """How the web app reads a system's logs (its ``SystemParts.reader``)."""

    view: Callable[[EvalLog, int], SampleView]
    """(log, sample index) → the sample's page."""
    label: Callable[[EvalLog, EvalSample], tuple[str, str]]
    """(log, sample) → what the sample is and its outcome, for the run page's list."""


def log_sample(log: EvalLog, sample: EvalSample) -> LogSample:
    """The sample as a system's ``record_of`` reads it."""
    return LogSample(log, sample, local_path(log.location))


def explanation(sample: EvalSample) -> str:
    """The score's explanation: the judge's reasons, or why the auditor's verdict is missing."""
    score = next(iter((sample.scores or {}).values()), None)
    return str(score.explanation or "") if score is not None else ""


def counted(values: dict[str, float]) -> str:
    """``name value`` of each value that is a number (NaN: outside its denominator)."""
    return ", ".join(f"{k} {v:g}" for k, v in values.items() if not math.isnan(v))
