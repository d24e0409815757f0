"""HSII's scoring rules: the pairwise win rule (r3, r4) and the HSII score (Eq. 1, Table 1).

The win rule is the ToolBench win rate the paper cites (``OpenBMB/ToolBench``
ToolEval): the judge runs in both orders, one vote per order from the subject's
side; the subject wins iff it has more votes than the other side, and equal votes
are a tie (worth ``tie_weight``, 0 in ToolEval). A verdict that could not be used
leaves the comparison unresolved: not a win.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from normlab.core.errors import InputError
from normlab.hsii.schemas import Verdict


def subject_side(better: str, subject_is_a: bool) -> Verdict:
    if better == "equal":
        return "tie"
    return "win" if (better == "A") == subject_is_a else "loss"


def combine(verdicts: Sequence[Verdict | None]) -> Verdict | None:
    """ToolEval: one vote per order; win iff the subject has more votes; None if unresolved."""
    if not verdicts or any(verdict is None for verdict in verdicts):
        return None
    wins, losses = verdicts.count("win"), verdicts.count("loss")
    return "win" if wins > losses else "loss" if losses > wins else "tie"


def win_value(verdicts: Sequence[Verdict | None], tie_weight: float = 0.0) -> float:
    """A comparison's contribution to r3 or r4: 1 win, ``tie_weight`` tie, 0 loss or unresolved."""
    outcome = combine(verdicts)
    return 1.0 if outcome == "win" else tie_weight if outcome == "tie" else 0.0


Formula = Literal["table", "printed"]
FORMULAS: tuple[Formula, ...] = ("table", "printed")


def hsii_score(
    r1: float,
    r2: float,
    r3: float,
    r4: float,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    gamma: float = 1.0,
    formula: Formula = "table",
) -> float:
    """The HSII score ι.

    ``table``:   ι = r1 · (1 + α · β · r2 · (r3 + γ · r4))   — every row of Table 1;
    ``printed``: ι = r1 · (1 + α · r2 · (1 + β · (r3 + γ · r4))) — Eq. (1) as printed.
    """
    if formula == "table":
        return r1 * (1 + alpha * beta * r2 * (r3 + gamma * r4))
    if formula == "printed":
        return r1 * (1 + alpha * r2 * (1 + beta * (r3 + gamma * r4)))
    raise InputError("--formula", f"choose one of {', '.join(FORMULAS)}", field="formula")
