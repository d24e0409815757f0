"""HSII's reader page: the history with who speaks to whom, the subject's pick beside the
golden, the judge's comparisons and the long run (``normlab.runs.reader``)."""

from __future__ import annotations

from typing import Any

from inspect_ai.log import EvalLog, EvalSample

from normlab.hsii.analysis import comparisons_of, record_of, stages_of
from normlab.runs.reader import ChatRow, Reader, Reply, SampleView, counted, explanation, log_sample


def sample_label(log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(case; its stage values) for the run page's list."""
    case = record_of(log_sample(log, sample))
    return str((sample.metadata or {}).get("case_id", sample.id)), (
        counted(stages_of(case)) if case is not None else ""
    )


def _hsii_row(n: int, message: dict[str, Any], marks: list[str] | None = None) -> ChatRow:
    return ChatRow(
        str(message.get("index", n)),
        str(message.get("role_from", message.get("speaker", ""))),
        str(message.get("content", "")),
        "message",
        f"to {message.get('role_to', message.get('addressee', ''))}",
        marks or [],
    )


def _statement(statement: dict[str, Any] | None, raw: str) -> str:
    if not statement:
        return f"(unparsed) {raw}"
    return f"to {', '.join(statement.get('targets', []))}: {statement.get('content', '')}"


def hsii_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    meta = sample.metadata or {}
    case = meta.get("case", {})
    result = meta.get("hsii", {})
    record = record_of(log_sample(log, sample))
    comparisons = comparisons_of(log_sample(log, sample))
    reasons = explanation(sample)
    chat = [_hsii_row(n, m) for n, m in enumerate(case.get("messages", []), start=1)]
    golden = case.get("golden", {})
    replies = [
        Reply(
            "subject's pick and statement",
            _statement(result.get("parsed"), sample.output.completion if sample.output else ""),
            "right addressee" if result.get("target_ok") else "wrong addressee or unparsed",
            reasons,
        ),
        Reply("golden", f"to {golden.get('role_to', '')}: {golden.get('content', '')}", "", ""),
    ]
    for stage, comparison in comparisons.items():
        replies.append(
            Reply(
                f"judge, {stage} comparison vs {comparison.other} (both orders)",
                comparison.other_statement,
                ", ".join(str(v) for v in comparison.verdicts),
                " / ".join(comparison.reasons),
            )
        )
    extra = []
    run = result.get("long_run")
    if run:
        extra.append(
            (
                "Long run (r4): the subject with the target",
                [_hsii_row(n, turn) for n, turn in enumerate(run.get("turns", []), start=1)],
            )
        )
    background = case.get("background", {})
    return SampleView(
        f"HSII: {case.get('case_id', sample.id)}",
        [
            ("scene", str(background.get("scene", ""))),
            ("characters", ", ".join(background.get("characters", []))),
            ("relationships", str(background.get("relationships", ""))),
            ("subject model", str(log.eval.model)),
            ("stages", counted(stages_of(record)) if record is not None else ""),
        ],
        chat,
        replies,
        extra,
    )


READER = Reader(view=hsii_view, label=sample_label)
