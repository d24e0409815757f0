"""COT complexity (Definition 2, Eq. 2, Table 2): how many rounds of guided reflection a model
needs before it addresses the right character.

For case i and COT j, λ_ij is the number k of "iterations of reflection and
guidance" until the model's target matches the golden; λ = ∞ if it never does
within the cap N∞ = 128 (§6.4). The task here is target selection: Table 2's
"without COT" column equals r2.

One sample per (case, COT). Round 0 is the plain Testing Prompt-1 answer (Table
2's "without COT"); round 1 walks the COT's steps, one user turn each, the last
asking for the statement ("with COT"); each later round adds a blind reflection
prompt (the model is never told it was wrong) and asks again. Only the COT walk
and the latest answer stay in the context, so a long run does not outgrow it.

Reported per model: the success rate without COT (round 0), with COT (round 1),
the share solved within the cap, COT complexity (the mean of λ with unsolved
cases counted at the cap; the cap is printed beside every result), and the
rounds needed for the cumulative selection accuracy to reach 0.70.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from pydantic import BaseModel, Field

from normlab.core.logs import SampleSet
from normlab.hsii.defaults import PAPER_CAP
from normlab.hsii.meta import SampleMeta
from normlab.hsii.parse import cast_of, parse_statement, target_correct
from normlab.hsii.prompts import PROMPTS, testing_prompt
from normlab.hsii.schemas import Case, CotTrace
from normlab.hsii.solver import STATEMENT_MAX_TOKENS
from normlab.models import RoleSettings, StructuredResult, generate_structured
from normlab.stats import Estimate

TARGET_ACCURACY = 0.70
STEP_MAX_TOKENS = 400


def _answer(case: Case, text: str) -> tuple[str | None, bool]:
    statement = parse_statement(text, cast_of(case))
    if statement is None:
        return None, False
    ok = target_correct(statement, case.golden.role_to, case.characters, case.aliases)
    return ", ".join(statement.targets), ok


@solver
def cot_reflection(cap: int = PAPER_CAP, settings: RoleSettings | None = None) -> Solver:
    """Round 0 plain, round 1 through the COT steps, then reflection rounds up to ``cap``."""
    roles = settings or RoleSettings()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        meta = state.metadata_as(SampleMeta)
        case, cot = meta.case, meta.cot
        if cot is None:
            raise ValueError(f"sample {state.sample_id} names no COT: not a COT task's sample")
        model = get_model()
        trace = CotTrace()

        async def ask(messages: list[ChatMessage], cap_tokens: int) -> str:
            result: StructuredResult[BaseModel] = await generate_structured(
                model, messages, None, roles.config("subject", cap_tokens), repair_retries=0
            )
            return result.text

        def record(text: str) -> bool:
            target, ok = _answer(case, text)
            trace.targets.append(target)
            trace.correct.append(ok)
            return ok

        prompt = testing_prompt(case)
        record(await ask([ChatMessageUser(content=prompt)], STATEMENT_MAX_TOKENS))
        walk: list[ChatMessage] = []
        reply = ""
        for index, step in enumerate(cot.steps):
            walk.append(ChatMessageUser(content=f"{prompt}\n\n{step}" if index == 0 else step))
            reply = await ask(walk, STEP_MAX_TOKENS)
            walk.append(ChatMessageAssistant(content=reply))
        last = reply
        solved = record(last)
        for _ in range(2, cap + 1):
            if solved:
                break
            reflection = [
                *walk[:-1],
                ChatMessageAssistant(content=last),
                ChatMessageUser(content=PROMPTS.load("reflection")),
            ]
            last = await ask(reflection, STATEMENT_MAX_TOKENS)
            solved = record(last)
        meta.traced(trace).write(state.metadata)
        state.output = ModelOutput.from_content(model=str(model), content=last)
        state.messages = [*walk[:-1], ChatMessageAssistant(content=last)]
        return state

    return solve


@metric
def cot_complexity() -> Metric:
    """Mean λ with unsolved samples counted at the cap."""

    def compute(scores: list[SampleScore]) -> float:
        values = [float(s.score.value) for s in scores if isinstance(s.score.value, int | float)]
        return sum(values) / len(values) if values else math.nan

    return compute


@scorer(metrics=[cot_complexity()])
def cot_rounds(cap: int = PAPER_CAP) -> Scorer:
    """λ for the sample (the cap when unsolved), with the round-by-round trace."""

    async def score(state: TaskState, target: Target) -> Score:
        trace = state.metadata_as(SampleMeta).cot_trace
        if trace is None:
            raise ValueError(f"sample {state.sample_id} has no COT rounds: its solver did not run")
        solved = trace.solved_at
        return Score(
            value=float(solved if solved is not None else cap),
            answer=state.output.completion,
            explanation=f"solved at round {solved}" if solved else f"unsolved within {cap}",
            metadata={"cap": cap, "solved_at": solved, **trace.model_dump()},
        )

    return score


# --- analysis (Table 2) ------------------------------------------------------------------


class CotResult(BaseModel):
    cap: int
    n: int
    """(case, COT) pairs."""
    without_cot: Estimate
    """Round 0: the plain answer's target accuracy over the answers that named a target (Table
    2's "success rate without COT", which equals Table 1's r2 = n2/n1)."""
    with_cot: Estimate
    """Round 1: after the COT walk, no reflection ("success rate with COT"), over the answers
    that named a target, as without COT."""
    unparsed: tuple[int, int] = (0, 0)
    """Answers that named no target (r1 failures), left out of the two rates: round 0, round 1."""
    solved: Estimate
    """Solved within the cap."""
    complexity: Estimate
    """Mean λ, unsolved counted at the cap (Eq. 2 with N∞)."""
    rounds_to_target: int | None
    """Fewest rounds after which the cumulative accuracy reaches 0.70 (None: not within the cap)."""
    accuracy_by_round: list[float]
    by_cot: dict[str, Estimate] = Field(default_factory=dict)
    """Mean λ per COT."""


def cot_result(traces: Sequence[tuple[str, CotTrace]], cap: int) -> CotResult:
    solved_at = [trace.solved_at for _, trace in traces]
    lam = [float(k if k is not None else cap) for k in solved_at]
    curve = [
        sum(1 for k in solved_at if k is not None and k <= rounds) / len(traces)
        for rounds in range(1, cap + 1)
    ]
    reached = next((i + 1 for i, share in enumerate(curve) if share >= TARGET_ACCURACY), None)
    by_cot: dict[str, list[float]] = defaultdict(list)
    for (cot_id, _), value in zip(traces, lam, strict=True):
        by_cot[cot_id].append(value)

    def success(round_index: int) -> list[float]:
        """Target accuracy of a round over the answers that named a target (r2's n2/n1)."""
        return [
            float(trace.correct[round_index])
            for _, trace in traces
            if len(trace.correct) > round_index and trace.targets[round_index] is not None
        ]

    def unparsed(round_index: int) -> int:
        return sum(
            len(trace.targets) > round_index and trace.targets[round_index] is None
            for _, trace in traces
        )

    return CotResult(
        cap=cap,
        n=len(traces),
        without_cot=Estimate.mean_of(success(0)),
        with_cot=Estimate.mean_of(success(1)),
        unparsed=(unparsed(0), unparsed(1)),
        solved=Estimate.mean_of([float(k is not None) for k in solved_at]),
        complexity=Estimate.mean_of(lam),
        rounds_to_target=reached,
        accuracy_by_round=curve,
        by_cot={cot: Estimate.mean_of(values) for cot, values in sorted(by_cot.items())},
    )


def cot_results(samples: SampleSet) -> dict[str, CotResult]:
    """Table 2 per model (and per cap, when runs used different caps) from COT samples."""
    grouped: dict[tuple[str, int], list[tuple[str, CotTrace]]] = defaultdict(list)
    for item in samples.samples:
        score = (item.sample.scores or {}).get("cot_rounds")
        if score is None or not score.metadata:
            continue
        trace = CotTrace.model_validate(score.metadata)
        meta = SampleMeta.of(item.sample)
        cot_id = (meta.cot_id if meta is not None else None) or "?"
        grouped[(item.log.eval.model, int(score.metadata["cap"]))].append((cot_id, trace))
    return {
        (model if cap == PAPER_CAP else f"{model} (cap {cap})"): cot_result(traces, cap)
        for (model, cap), traces in sorted(grouped.items())
    }
