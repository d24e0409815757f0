"""Did the norm-learning subject infer the hidden norm, and from which reply on?

The benchmarks hide one norm; the agent writes down what it believes the group's norms
are. Whether one of its qualified norms expresses the hidden norm is asked of the
benchmark's ``judge`` role with CRSEC's strict matching prompt
([`match_prompt`][normlab.norms.match_prompt], ``judge_match.txt``), once per distinct
qualified norm, at temperature 0 through Inspect's cache. From the verdicts follow
whether it held the norm when it last replied, and the first reply (and chat turn) at
which it held it. A verdict that never parses counts as no match, and is counted.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from inspect_ai.model import ChatMessageUser, Model
from pydantic import BaseModel, Field

from normlab.agents.norm_memory import MemoryLog
from normlab.models import DETERMINISTIC_CACHE, RoleSettings, generate_structured
from normlab.norms import NormMatches, match_prompt, target_line
from normlab.stats import Estimate, Rate

HIDDEN_ID = "hidden_norm"
INFERENCE_KEY = "norm_inference"
"""Where a benchmark's score metadata keeps the [`NormInference`][normlab.agents.NormInference] of
an agent's sample."""
JUDGE_ROLE = "judge"
JUDGE_MAX_TOKENS = 400


class NormInference(BaseModel):
    """The judge's view of one episode's (one trial's) norm database."""

    held: bool
    """A norm qualified at the subject's last reply expresses the hidden norm."""
    first_held_reply: int | None = None
    first_held_turn: int | None = None
    """The chat turn the agent had read when it first held the norm."""
    replies: int = 0
    matching: list[str] = Field(default_factory=list)
    qualified: int = 0
    """Qualified personal norms at the end."""
    rejected: int = 0
    """Items the immediate evaluation rejected."""
    judged: int = 0
    parse_failures: int = 0


async def _expresses(
    judge: Model, norm: str, hidden_norm: str, settings: RoleSettings
) -> bool | None:
    result = await generate_structured(
        judge,
        [ChatMessageUser(content=match_prompt(norm, target_line(HIDDEN_ID, hidden_norm)))],
        NormMatches,
        settings.config(JUDGE_ROLE, JUDGE_MAX_TOKENS, 0.0),
        cache=DETERMINISTIC_CACHE,
    )
    return None if result.value is None else HIDDEN_ID in result.value.matches


async def judge_inference(
    judge: Model, log: MemoryLog, hidden_norm: str, settings: RoleSettings | None = None
) -> NormInference:
    """Match every norm the agent held against ``hidden_norm``; when it first held it."""
    norms = log.held_norms()
    verdicts = await asyncio.gather(
        *(_expresses(judge, norm, hidden_norm, settings or RoleSettings()) for norm in norms)
    )
    matching = [norm for norm, verdict in zip(norms, verdicts, strict=True) if verdict]
    first = next((r for r in log.readings if set(r.qualified) & set(matching)), None)
    last = log.readings[-1] if log.readings else None
    return NormInference(
        held=last is not None and bool(set(last.qualified) & set(matching)),
        first_held_reply=first.reply if first else None,
        first_held_turn=first.turn if first else None,
        replies=len(log.readings),
        matching=matching,
        qualified=len(log.database.qualified()),
        rejected=sum(norm.rejection is not None for norm in log.database.norms),
        judged=len(norms),
        parse_failures=sum(verdict is None for verdict in verdicts),
    )


class InferenceSummary(BaseModel):
    """Over a run's trials or episodes: how often the agent held the hidden norm, and when."""

    held: Rate
    """Units whose qualified norms at the last reply expressed the hidden norm (k/n)."""
    first_held_reply: Estimate
    """Mean reply index at which the norm was first held, over the units that held it."""
    first_held_turn: Estimate
    qualified: Estimate
    """Mean qualified personal norms per unit at the end."""
    rejected: Estimate
    """Mean items rejected by the immediate evaluation per unit."""
    unjudged: int = 0
    """Units with an agent log but no inference verdict (older logs, a judge failure)."""
    parse_failures: int = 0

    @classmethod
    def of(cls, verdicts: Sequence[NormInference | None]) -> InferenceSummary:
        known = [verdict for verdict in verdicts if verdict is not None]
        held = [v for v in known if v.first_held_reply is not None]
        return cls(
            held=Rate.where([verdict.held for verdict in known]),
            first_held_reply=Estimate.mean_of([float(v.first_held_reply or 0) for v in held]),
            first_held_turn=Estimate.mean_of(
                [float(v.first_held_turn) for v in held if v.first_held_turn is not None]
            ),
            qualified=Estimate.mean_of([float(v.qualified) for v in known]),
            rejected=Estimate.mean_of([float(v.rejected) for v in known]),
            unjudged=len(verdicts) - len(known),
            parse_failures=sum(verdict.parse_failures for verdict in known),
        )
