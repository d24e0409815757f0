"""Creation & Representation (§2.1, Figure 7): norm entrepreneurs create their personal norms."""

from __future__ import annotations

from normlab.norms.calls import Caller
from normlab.norms.prompts import render
from normlab.norms.replies import CreatedNorm, CreatedNorms
from normlab.norms.schemas import Actor


async def create_norms(caller: Caller, agent: Actor, count: int) -> list[CreatedNorm]:
    """P ← CreateNorm(G): up to ``count`` norms from the agent description (none if it failed)."""
    prompt = render(
        "create_norm",
        {"agent description": agent.description, "count": str(count)},
        "create_norm_ours",
    )
    reply = await caller.ask("create_norm", prompt, CreatedNorms, max_tokens=60 + 70 * count)
    return [] if reply is None else reply.norms[:count]
