"""HSII's scorer: the four stages of Definition 1 and the pairwise judge (r3, r4).

Stage values per case (``normlab.hsii.rules.stage_values``, which the analysis uses
too), keyed by the paper's names: ``r1`` (parsed), ``r2`` (target right, only if parsed),
``r3`` (only if the target is right: the subject's statement against the golden) and ``r4``
(likewise: the decision-round statement against the reference model's; no win when the
long run has no verdicts). Logs written before issue 42 keyed them ``parsed``, ``target_ok``,
``first_win`` and ``long_win``; the metric reads either (``normlab.hsii.rules.stage_of``).
NaN marks a stage the case is not counted in, so each rate has its own denominator, as
Definition 1 defines them (r3 = n3/n2, r4 = n4/n2).

The judge compares two statements "on reverse sides to avoid positional bias":
two calls, A/B and B/A (asked at once, as are r3 and r4), each verdict read from the
subject's side. The win rule is the ToolBench win rate the paper cites
(``OpenBMB/ToolBench`` ToolEval): the subject wins iff it gets more preferences than the
other side; equal votes are a tie, worth ``tie_weight`` (default 0, as in ToolEval). A
verdict that cannot be used after its repair retry leaves the comparison unresolved: not a
win, counted apart. Both orders' verdicts are kept, so a run can be re-scored with another rule.
"""

from __future__ import annotations

import asyncio
from typing import Literal

from inspect_ai.model import ChatMessageUser, Model, get_model
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState

from normlab.hsii.meta import SampleMeta
from normlab.hsii.prompts import judge_prompt, statement_dict
from normlab.hsii.rules import (
    STAGES,
    score_of_rates,
    stage_of,
    stage_rates,
    stage_values,
    subject_side,
)
from normlab.hsii.schemas import (
    Case,
    CaseResult,
    ComparisonRecord,
    Message,
    PairwiseJudgement,
    Statement,
    Verdict,
)
from normlab.models import DEFAULT_MODEL, DETERMINISTIC_CACHE, RoleSettings, generate_structured

JUDGE_MAX_TOKENS = 300
JUDGE_TEMPERATURE = 0.0


async def compare(
    judge: Model,
    case: Case,
    history: list[Message],
    subject: tuple[Statement | None, str],
    other: tuple[Statement | None, str],
    other_name: Literal["golden", "reference"],
    settings: RoleSettings,
) -> ComparisonRecord:
    """The judge in both orders (subject as A, then as B); verdicts from the subject's side."""
    mine, theirs = statement_dict(*subject), statement_dict(*other)

    async def judged(subject_is_a: bool) -> tuple[Verdict | None, str]:
        a, b = (mine, theirs) if subject_is_a else (theirs, mine)
        result = await generate_structured(
            judge,
            [ChatMessageUser(content=judge_prompt(case, history, a, b))],
            PairwiseJudgement,
            settings.config("judge", JUDGE_MAX_TOKENS, JUDGE_TEMPERATURE),
            cache=DETERMINISTIC_CACHE,
        )
        judgement = result.value
        if judgement is None:
            return None, f"unusable: {result.error}"
        return subject_side(judgement.better, subject_is_a), judgement.reasoning

    # The two orders are independent: asked at once, they cost one latency, not two.
    both = await asyncio.gather(judged(True), judged(False))
    verdicts = [verdict for verdict, _ in both]
    reasons = [reason for _, reason in both]
    return ComparisonRecord(
        subject_statement=mine,
        other_statement=theirs,
        other=other_name,
        verdicts=verdicts,
        reasons=reasons,
    )


@metric
def hsii_rates() -> Metric:
    """r1–r4 on their own denominators and the HSII score (Table 1's form and Eq. 1's)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        values = [s.score.value for s in scores if isinstance(s.score.value, dict)]
        measured = stage_rates([[stage_of(v, stage) for stage in STAGES] for v in values])
        return {
            **{f"r{i}": rate for i, rate in enumerate(measured, start=1)},
            "hsii": score_of_rates(measured, formula="table"),
            "hsii_printed": score_of_rates(measured, formula="printed"),
        }

    return compute


@scorer(metrics=[hsii_rates()])
def hsii_stages(
    tie_weight: float = 0.0,
    max_tokens: dict[str, int] | None = None,
    reasoning_effort: dict[str, str] | None = None,
) -> Scorer:
    """Definition 1's stages for one case; the judge runs only for correct targets."""
    settings = RoleSettings.of(max_tokens, reasoning_effort)

    async def score(state: TaskState, target: Target) -> Score:
        meta = state.metadata_as(SampleMeta)
        case, result = meta.case, meta.recorded()
        metadata: dict[str, object] = {"tie_weight": tie_weight, "rule": "toolbench"}
        first: ComparisonRecord | None = None
        long: ComparisonRecord | None = None
        if result.target_ok:
            judge = get_model(role="judge", default=DEFAULT_MODEL)
            comparisons = [
                compare(
                    judge,
                    case,
                    case.messages,
                    (result.parsed, state.output.completion),
                    (golden_statement(case), case.golden.content),
                    "golden",
                    settings,
                )
            ]
            run = result.long_run
            if run is not None:
                comparisons.append(
                    compare(
                        judge,
                        case,
                        run.history,
                        (run.subject, run.subject_raw),
                        (run.reference, run.reference_raw),
                        "reference",
                        settings,
                    )
                )
            # r3 and r4 are independent: asked at once, they cost one latency (issue 23).
            records = await asyncio.gather(*comparisons)
            first = records[0]
            metadata["first"] = first.model_dump()
            if run is not None:
                long = records[1]
                metadata["long"] = long.model_dump()
        stages = stage_values(
            result.parsed is not None,
            bool(result.target_ok),
            first.verdicts if first else None,
            long.verdicts if long else None,
            tie_weight,
        )
        value = dict(zip(STAGES, stages, strict=True))
        return Score(
            value=value,
            answer=state.output.completion,
            explanation=_explain(result, first),
            metadata=metadata,
        )

    return score


def golden_statement(case: Case) -> Statement:
    """The dataset's next assistant message as a statement, the other side of r3."""
    return Statement(targets=[case.golden.role_to], content=case.golden.content, rule="golden")


def _explain(result: CaseResult, first: ComparisonRecord | None) -> str:
    if result.parsed is None:
        return "r1: the reply held no target and statement"
    if not result.target_ok:
        return f"r2: addressed {', '.join(result.parsed.targets)}"
    reasons = first.reasons if first is not None else []
    return "r3: " + " | ".join(str(reason) for reason in reasons)
