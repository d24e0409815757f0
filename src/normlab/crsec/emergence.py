"""When a CRSEC norm has emerged: one definition, used by the report's emergence table,
``crsec export`` and the newcomer's converged society (issue 41, item 11).

The paper draws two curves in Figure 2(b): "(i) the proportion of agents that have accepted
a standard of behavior as their personal norms in their databases, and (ii) the proportion of
agents that have adhered to a standard of behavior in their plans and actions". Each is a
curve, not emergence; read apart they called a norm "emerged" that 33% of agents held. The
paper's emergence takes both: "The emergence of a social norm is typically measured by whether
the standard of behavior defined by that norm has been widely accepted and adhered to by a
significant majority" (§3.2), "most agents not only adopting these standards of behavior as
their qualified personal norms but also adhering to these standards in their planning and
actions". Its majority is 70%: "adopted as their qualified personal norms by over 70% agents
within a quarter of a day" (§3.2).

So a norm **has emerged at the end of an hour** when over ``EMERGENCE_SHARE`` of the agents
each both hold it and adhere to it in that hour (``over``); its emergence hour is the first
such hour. Light (no pydantic, no Inspect): the export command's option default reads it.
"""

from __future__ import annotations

EMERGENCE_SHARE = 0.7
"""The paper's threshold: "over 70% agents": a share must exceed it (7 of 10 agents is 70%,
not over it)."""


def over(share: float, threshold: float = EMERGENCE_SHARE) -> bool:
    """Whether ``share`` of the agents is over ``threshold``: the paper's "over 70%". A
    threshold of 1 asks for every agent (a share of 1), the one threshold nothing is over."""
    return share > threshold or threshold >= 1.0 <= share


def emergence_hour(shares: list[float], threshold: float = EMERGENCE_SHARE) -> int | None:
    """The first hour (1-based) whose share is ``over`` the threshold; None: never (a later
    dip does not undo it)."""
    return next(
        (hour for hour, share in enumerate(shares, start=1) if over(share, threshold)), None
    )
