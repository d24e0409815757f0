"""HSII's reader page: the history with who speaks to whom, the subject's pick beside the
golden, the judge's comparisons and the long run (``normlab.runs.reader``)."""

from __future__ import annotations

from inspect_ai.log import EvalLog, EvalSample

from normlab.hsii.analysis import comparisons_of, record_of, stages_of
from normlab.hsii.meta import SampleMeta
from normlab.hsii.schemas import LongRunTurn, Message, Statement
from normlab.runs.reader import ChatRow, Reader, Reply, SampleView, counted, explanation, log_sample


def sample_label(log: EvalLog, sample: EvalSample) -> tuple[str, str]:
    """(case; its stage values) for the run page's list."""
    case = record_of(log_sample(log, sample))
    meta = SampleMeta.of(sample)
    return (meta.case_id if meta is not None else str(sample.id)), (
        counted(stages_of(case)) if case is not None else ""
    )


def _hsii_row(n: int, message: Message | LongRunTurn) -> ChatRow:
    if isinstance(message, LongRunTurn):
        return ChatRow(
            str(n), message.speaker, message.content, "message", f"to {message.addressee}"
        )
    return ChatRow(
        message.index or str(n),
        message.role_from,
        message.content,
        "message",
        f"to {message.role_to}",
    )


def _statement(statement: Statement | None, raw: str) -> str:
    if statement is None:
        return f"(unparsed) {raw}"
    return f"to {', '.join(statement.targets)}: {statement.content}"


def hsii_view(log: EvalLog, index: int) -> SampleView:
    sample = (log.samples or [])[index]
    meta = SampleMeta.of(sample)
    if meta is None:
        return SampleView(f"HSII: {sample.id}", [("subject model", str(log.eval.model))], [])
    case, result = meta.case, meta.hsii
    record = record_of(log_sample(log, sample))
    comparisons = comparisons_of(log_sample(log, sample))
    reasons = explanation(sample)
    chat = [_hsii_row(n, m) for n, m in enumerate(case.messages, start=1)]
    golden = case.golden
    replies = [
        Reply(
            "subject's pick and statement",
            _statement(
                result.parsed if result is not None else None,
                sample.output.completion if sample.output else "",
            ),
            "right addressee"
            if result is not None and result.target_ok
            else "wrong addressee or unparsed",
            reasons,
        ),
        Reply("golden", f"to {golden.role_to}: {golden.content}", "", ""),
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
    run = result.long_run if result is not None else None
    if run is not None and run.turns:
        extra.append(
            (
                "Long run (r4): the subject with the target",
                [_hsii_row(n, turn) for n, turn in enumerate(run.turns, start=1)],
            )
        )
    background = case.background
    return SampleView(
        f"HSII: {case.case_id}",
        [
            ("scene", background.scene),
            ("characters", ", ".join(background.characters)),
            ("relationships", background.relationships),
            ("subject model", str(log.eval.model)),
            ("stages", counted(stages_of(record)) if record is not None else ""),
        ],
        chat,
        replies,
        extra,
    )


READER = Reader(view=hsii_view, label=sample_label)
