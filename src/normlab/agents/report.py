"""What every benchmark report shows of the norm-learning subject: whether it inferred the
hidden norm and when (a table), and what it read, kept and refused reply by reply (a trace),
so that its database can be read back from the logs and shown beside its replies."""

from __future__ import annotations

from collections.abc import Iterable

from normlab.agents.inference import InferenceSummary
from normlab.agents.norm_memory import MemoryLog
from normlab.report import Table, format_estimate, format_rate

STATUS_MARK = {"qualified": "+", "rejected": "−", "duplicate": "="}


def inference_table(rows: Iterable[tuple[str, str, InferenceSummary]], unit: str) -> Table:
    """One row per (subject, condition or view): the hidden norm held, when, and how much the
    agent kept and refused."""
    return Table(
        caption="What the norm-learning subject inferred: "
        f"{unit}s whose qualified norms at the last reply express the hidden norm (judge, "
        "CRSEC's strict matching prompt; Wilson 95% CI, k/n); the reply and chat turn at "
        "which it first held it (mean over those that did, bootstrap 95% CI); qualified and "
        f"rejected norms per {unit}",
        header=[
            "subject",
            "condition",
            "held the hidden norm",
            "first held at reply",
            "first held at chat turn",
            f"qualified / {unit}",
            f"rejected / {unit}",
            "unjudged",
            "judge parse failures",
        ],
        rows=[
            [
                subject,
                condition,
                format_rate(summary.held),
                format_estimate(summary.first_held_reply, digits=1, percent=False, signed=False),
                format_estimate(summary.first_held_turn, digits=1, percent=False, signed=False),
                format_estimate(summary.qualified, digits=1, percent=False, signed=False),
                format_estimate(summary.rejected, digits=1, percent=False, signed=False),
                str(summary.unjudged),
                str(summary.parse_failures),
            ]
            for subject, condition, summary in rows
        ],
    )


def memory_trace(log: MemoryLog) -> str:
    """Reply by reply: what the agent identified (+ kept, − refused and why, = already held)
    and the qualified norms its reply prompt listed."""
    lines: list[str] = []
    for reading in log.readings:
        where = f" (chat read up to turn {reading.turn})" if reading.turn is not None else ""
        lines.append(f"reply {reading.reply}{where}: {reading.calls} calls")
        if not reading.read:
            lines.append("  nothing new to read")
        for item in reading.items:
            why = f"  [{item.rejection}]" if item.rejection else ""
            lines.append(f"  {STATUS_MARK[item.status]} {item.content} ({item.type}){why}")
        held = "; ".join(reading.qualified) or "NONE"
        lines.append(f"  qualified: {held}")
    return "\n".join(lines)
