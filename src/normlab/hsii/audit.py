"""Human grading of HSII's pairwise comparisons: export pairs to grade, import the grades.

The paper scores r3 and r4 with "both GPT4 and human-eval" (§6.1, B.5) and describes no
protocol; ours is the judge's, given to people. ``export`` writes, for comparisons the
judge made (the subject's first statement against the golden, and, where the run had
one, its decision-round statement against the reference model's), each pair twice, once
in each order, as rows of a CSV that shows what the judge saw (scene, characters,
relationships, the history with who speaks to whom, statements A and B) and nothing of
the verdict or of which statement is the subject's. The key file beside it maps each row
to its case, subject model, stage, pair, the subject's side and the judge's verdict for
that order. ``import`` reads the grades with the key and reports the human win rate by
the scorer's own rule (ToolEval's, ``normlab.hsii.rules.combine``: the subject wins
iff it gets more of the two orders' preferences), the judge's win rate on the same pairs,
and how often person and judge agree order by order.

Rows are shuffled, so a rater rarely sees the two orders of one pair back to back.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel

from normlab.core.csvio import AnswerColumn, KeyRow, key_path_for, read_answers, write_blind
from normlab.core.errors import InputError
from normlab.core.logs import LogSample, expand_paths, is_log, read_samples, role_model
from normlab.hsii.meta import SampleMeta
from normlab.hsii.parse import resolve_target
from normlab.hsii.prompts import history_text, statement_line
from normlab.hsii.rules import combine, subject_side
from normlab.hsii.schemas import (
    Case,
    ComparisonRecord,
    Message,
    Statement,
    Verdict,
    parse_better,
)
from normlab.hsii.scorer import golden_statement
from normlab.stats import Agreement, Rate

Stage = Literal["first", "long"]
STAGES: tuple[Stage, ...] = ("first", "long")
"""``first``: the subject's statement vs the golden (r3); ``long``: the decision-round
statement after the long run vs the reference model's (r4)."""
Side = Literal["A", "B"]

VERDICT = AnswerColumn("human_verdict", parse_better, "A, B or equal (or tie)")
GRADING_COLUMNS = [
    "item_id",
    "topic",
    "scene",
    "characters",
    "relationships",
    "history",
    "statement_a",
    "statement_b",
    VERDICT.name,
    "human_notes",
]
VERDICTS = ("A", "B", "equal")
"""What a rater writes in ``human_verdict`` (any case; ``tie`` reads as ``equal``)."""
QUESTION = "Which is the more proper next statement of the assistant: A, B or equal?"

__all__ = [
    "GRADING_COLUMNS",
    "QUESTION",
    "STAGES",
    "VERDICTS",
    "GradingKeyRow",
    "GradingResult",
    "export_grading",
    "import_grading",
    "key_path_for",
]


class GradingKeyRow(KeyRow):
    """What the raters must not see about one row."""

    pair_id: str
    """Shared by the two rows (orders) of one comparison."""
    case_id: str
    subject_model: str
    judge_model: str = ""
    stage: Stage
    other: Literal["golden", "reference"]
    subject_side: Side
    """Which statement, A or B, is the subject's in this row."""
    judge_verdict: Verdict | None = None
    """The judge's verdict in this order, from the subject's side as the scorer records it;
    None when the log holds none (not judged, or the reply was unusable)."""


@dataclass
class _Pair:
    """One comparison the judge made (or would make): both statements and their context."""

    case: Case
    history: list[Message]
    stage: Stage
    subject: str
    other: str
    subject_model: str
    judge_model: str
    judge_verdicts: list[Verdict | None]
    """Per order, subject as A then as B (the scorer's order); ``[None, None]`` if unjudged."""


def _comparison(details: dict[str, object], stage: Stage) -> list[Verdict | None]:
    recorded = details.get(stage)
    if not isinstance(recorded, dict):
        return [None, None]
    return ComparisonRecord.model_validate(recorded).verdicts


def _pairs(item: LogSample) -> list[_Pair]:
    """The comparisons of one HSII sample: only a right target reaches r3 and r4 (Definition 1;
    "incorrect selections result in no score"), so only those are graded."""
    meta = SampleMeta.of(item.sample)
    if meta is None or meta.hsii is None:
        return []
    case, result = meta.case, meta.hsii
    if not result.target_ok or result.parsed is None:
        return []
    score = (item.sample.scores or {}).get("hsii_stages")
    details = dict(score.metadata or {}) if score is not None else {}
    judge = role_model(item.log, "judge", details.get("judge_model"))

    def line(statement: Statement | None, raw: str) -> str:
        """The statement with each target spelled as the case spells the character, so the
        golden's exact spelling never tells a grader which side is the dataset's."""
        if statement is not None:
            targets = [
                resolve_target(t, case.characters, case.aliases) or t for t in statement.targets
            ]
            statement = statement.model_copy(update={"targets": targets})
        return statement_line(statement, raw)

    def pair(stage: Stage, history: list[Message], mine: str, theirs: str) -> _Pair:
        return _Pair(
            case=case,
            history=history,
            stage=stage,
            subject=mine,
            other=theirs,
            subject_model=item.log.eval.model,
            judge_model=judge,
            judge_verdicts=_comparison(details, stage),
        )

    golden = line(golden_statement(case), "")
    pairs = [pair("first", case.messages, line(result.parsed, ""), golden)]
    run = result.long_run
    if run is not None:
        pairs.append(
            pair(
                "long",
                run.history,
                line(run.subject, run.subject_raw),
                line(run.reference, run.reference_raw),
            )
        )
    return pairs


def export_grading(
    paths: list[Path],
    out_csv: Path,
    n: int | None = None,
    seed: int = 0,
    *,
    stages: Sequence[str] = STAGES,
) -> int:
    """Write ``n`` random comparisons (all when None) from HSII logs, each in both orders, as a
    shuffled CSV for blind grading and its key beside it; returns the rows written (2 per pair).

    ``stages`` picks the comparisons: ``first`` (the subject's statement vs the golden, r3)
    and ``long`` (the decision round vs the reference, r4, in runs with a long run); both
    by default, as the paper has people grade both. The same ``seed`` gives the same rows,
    so an export can be rebuilt exactly.
    """
    if n is not None and n < 1:
        raise InputError("--n", "must be at least 1", field="n")
    unknown = sorted(set(stages) - set(STAGES))
    if unknown or not stages:
        raise InputError(
            "--stage",
            f"{', '.join(unknown) or 'none'} given; choose from {', '.join(STAGES)}",
            field="stage",
        )
    logs = [path for path in expand_paths(paths) if is_log(path)]
    if not logs:
        raise InputError(", ".join(str(p) for p in paths), "no HSII .eval logs found")
    pairs = [
        pair for item in read_samples(logs).samples for pair in _pairs(item) if pair.stage in stages
    ]
    if not pairs:
        raise InputError(
            ", ".join(str(p) for p in paths),
            "nothing to grade: no case with a right target (only those reach r3 and r4)",
        )
    rng = random.Random(seed)
    chosen = pairs if n is None or n >= len(pairs) else rng.sample(pairs, n)
    orders = [(index, side) for index in range(len(chosen)) for side in ("A", "B")]
    rng.shuffle(orders)
    items: list[tuple[dict[str, str], KeyRow]] = []
    for number, (index, side) in enumerate(orders, start=1):
        pair = chosen[index]
        subject_is_a = side == "A"
        background = pair.case.background
        row = {
            "topic": pair.case.topic,
            "scene": background.scene,
            "characters": ", ".join(background.characters),
            "relationships": background.relationships,
            "history": history_text(pair.history),
            "statement_a": pair.subject if subject_is_a else pair.other,
            "statement_b": pair.other if subject_is_a else pair.subject,
        }
        key = GradingKeyRow(
            item_id=f"G{number:04d}",
            pair_id=f"P{index + 1:04d}",
            case_id=pair.case.case_id,
            subject_model=pair.subject_model,
            judge_model=pair.judge_model,
            stage=pair.stage,
            other="golden" if pair.stage == "first" else "reference",
            subject_side="A" if subject_is_a else "B",
            judge_verdict=pair.judge_verdicts[0 if subject_is_a else 1],
        )
        items.append((row, key))
    return write_blind(out_csv, GRADING_COLUMNS, items)


class GradingResult(BaseModel):
    """People's grades of the judge's comparisons, beside the judge's verdicts on the same pairs.

    Win rates count pairs graded in both orders, by the scorer's rule (a tie is no win, as
    in ToolEval); agreement counts rows (one order each) that both person and judge graded.
    """

    r3_rate: Rate
    """Human r3: of the pairs (first statement vs golden) graded in both orders, those the
    subject wins."""
    judge_r3_rate: Rate
    """The judge's r3 on the same pairs (those whose two verdicts the log holds)."""
    ties: int
    """Human r3 pairs that are a tie (equal votes): neither a win nor a loss."""
    r4_rate: Rate
    """Human r4: decision-round statement vs the reference's (n = 0 when none were exported)."""
    judge_r4_rate: Rate
    r3_rate_by_model: dict[str, Rate]
    """Human r3 per subject model."""
    agreement: Agreement
    """Per row (one order), judge first, person second: is the subject's statement preferred?"""
    verdict_agreement: Rate
    """Per row: the same verdict of the three, A, B or equal."""
    n_rows: int
    n_unlabelled: int
    incomplete_pairs: int
    """Pairs graded in one order only: they count in agreement, not in a win rate."""
    subject_models: list[str]
    judge_models: list[str]


def _win_rates(
    by_pair: dict[str, dict[Side, Verdict]], keys: dict[str, list[GradingKeyRow]]
) -> tuple[Rate, Rate, int]:
    """Human and judge win rates over the pairs graded in both orders, and the human ties."""
    human: list[Verdict | None] = []
    judge: list[Verdict | None] = []
    for pair_id, sides in by_pair.items():
        if len(sides) < 2:
            continue
        human.append(combine([sides["A"], sides["B"]]))
        judge.append(combine([key.judge_verdict for key in keys[pair_id]]))
    return (
        Rate.where([outcome == "win" for outcome in human]),
        Rate.where([None if outcome is None else outcome == "win" for outcome in judge]),
        human.count("tie"),
    )


def import_grading(csv_path: Path, key_path: Path | None = None) -> GradingResult:
    """Read the grades (``human_verdict``: A, B or equal) with the key written beside the CSV."""
    answers = read_answers(csv_path, key_path, GradingKeyRow, VERDICT)
    keys_by_pair: dict[str, list[GradingKeyRow]] = defaultdict(list)
    for key in answers.keys:
        keys_by_pair[key.pair_id].append(key)
    # pair id → the subject's side in that row → the person's verdict, from the subject's side
    graded: dict[Stage, dict[str, dict[Side, Verdict]]] = {stage: {} for stage in STAGES}
    by_model: dict[str, dict[str, dict[Side, Verdict]]] = defaultdict(dict)
    judge_said: list[Verdict] = []
    human_said: list[Verdict] = []
    for key, better in answers.answered:
        verdict = subject_side(better, key.subject_side == "A")
        graded[key.stage].setdefault(key.pair_id, {})[key.subject_side] = verdict
        if key.stage == "first":
            by_model[key.subject_model].setdefault(key.pair_id, {})[key.subject_side] = verdict
        if key.judge_verdict is not None:
            judge_said.append(key.judge_verdict)
            human_said.append(verdict)
    first, judge_first, ties = _win_rates(graded["first"], keys_by_pair)
    long, judge_long, _ = _win_rates(graded["long"], keys_by_pair)
    return GradingResult(
        r3_rate=first,
        judge_r3_rate=judge_first,
        ties=ties,
        r4_rate=long,
        judge_r4_rate=judge_long,
        r3_rate_by_model={
            model: _win_rates(pairs, keys_by_pair)[0] for model, pairs in sorted(by_model.items())
        },
        agreement=Agreement.of(
            [said == "win" for said in judge_said], [said == "win" for said in human_said]
        ),
        verdict_agreement=Rate.where([a == b for a, b in zip(judge_said, human_said, strict=True)]),
        n_rows=len(answers.keys),
        n_unlabelled=len(answers.unanswered),
        incomplete_pairs=sum(
            len(sides) == 1 for pairs in graded.values() for sides in pairs.values()
        ),
        subject_models=sorted({key.subject_model for key in answers.keys}),
        judge_models=sorted({key.judge_model for key in answers.keys if key.judge_model}),
    )
