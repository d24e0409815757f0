"""HSII's scoring rules: the pairwise win rule (r3, r4) and the HSII score (Eq. 1, Table 1).

The win rule is the ToolBench win rate the paper cites (``OpenBMB/ToolBench``
ToolEval): the judge runs in both orders, one vote per order from the subject's
side; the subject wins iff it has more votes than the other side, and equal votes
are a tie (worth ``tie_weight``, 0 in ToolEval). A verdict that could not be used
leaves the comparison unresolved: not a win.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Literal

from normlab.core.errors import InputError
from normlab.hsii.schemas import Verdict

if TYPE_CHECKING:
    from numpy.typing import ArrayLike


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


Outcome = Literal["win", "loss", "tie", "unresolved", "missing"]
OUTCOMES: tuple[Outcome, ...] = ("win", "loss", "tie", "unresolved", "missing")


def outcome_of(verdicts: Sequence[Verdict | None] | None) -> Outcome:
    """A comparison's outcome: ``missing`` when it has no verdicts at all (a long run that
    never ran, a record imported without them), ``unresolved`` when a verdict was unusable."""
    if not verdicts:
        return "missing"
    return combine(verdicts) or "unresolved"


STAGES = ("r1", "r2", "r3", "r4")
"""Definition 1's stages, in order, by the paper's names: r1 the reply parsed (format), r2 its
target right (among r1's), r3 its first statement beat the golden, r4 its decision-round
statement beat the reference's (both among r2's). A case's score value is keyed by them."""

LEGACY_STAGES = dict(zip(STAGES, ("parsed", "target_ok", "first_win", "long_win"), strict=True))
"""The keys a case's score value had before it took the paper's names (logs written before
issue 42): read back as the stage they name."""


def stage_of(value: Mapping[str, object], stage: str) -> float:
    """A case's value for ``stage`` in a score value as a log holds it (the paper's key, or
    the key a log written before issue 42 used); NaN where the case is not counted."""
    found = value.get(stage, value.get(LEGACY_STAGES[stage], math.nan))
    return float(found) if isinstance(found, int | float) else math.nan


def stage_values(
    parsed: bool,
    target_ok: bool,
    first: Sequence[Verdict | None] | None,
    long: Sequence[Verdict | None] | None,
    tie_weight: float = 0.0,
) -> tuple[float, float, float, float]:
    """One case's contributions to r1–r4 (Definition 1); NaN where the case is not in a
    stage's denominator: r2 counts among parsed replies (n1), r3 and r4 among right targets
    (n2: r3 = n3/n2, r4 = n4/n2). A comparison that is missing or unresolved is no win, in
    r3 and in r4 alike; the scorer's metrics and the analysis both count with this."""
    if not parsed:
        return (0.0, math.nan, math.nan, math.nan)
    if not target_ok:
        return (1.0, 0.0, math.nan, math.nan)
    return (1.0, 1.0, win_value(first or [], tie_weight), win_value(long or [], tie_weight))


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


def stage_rates(rows: ArrayLike) -> list[float]:
    """r1–r4 of stage rows (``stage_values``, one row per case): each stage's mean over the
    cases in its denominator (the rows not NaN there), NaN for a stage no case reached. The
    analysis, the pairing statistic and the Inspect metric all count with this. NumPy is
    loaded here, not with the module: ``normlab hsii --help`` reads this module and no rates."""
    import numpy as np

    table = np.asarray(rows, dtype=np.float64).reshape(-1, len(STAGES))
    rates = []
    for column in table.T:
        reached = column[~np.isnan(column)]
        rates.append(float(reached.mean()) if reached.size else math.nan)
    return rates


def score_of_rates(
    rates: Sequence[float],
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    gamma: float = 1.0,
    formula: Formula = "table",
) -> float:
    """ι of r1–r4 as measured, where a rate no case reached (NaN: no parsed reply, no right
    target) counts as 0: the score of a model that never got that far. The analysis, its
    intervals and the Inspect metric all score this way."""
    r1, r2, r3, r4 = (0.0 if math.isnan(rate) else rate for rate in rates)
    return hsii_score(r1, r2, r3, r4, alpha=alpha, beta=beta, gamma=gamma, formula=formula)


def case_weights(
    *, alpha: float = 1.0, beta: float = 1.0, gamma: float = 1.0, formula: Formula = "table"
) -> tuple[float, float, float, float]:
    """ι's weights on one case's products s1, s1·s2, s1·s2·s3 and s1·s2·s4, read off
    ``hsii_score`` at its corners: ι is linear in those products (r1 = n1/n, r1·r2 = n2/n,
    r1·r2·r3 = n3/n, r1·r2·r4 = n4/n), so ι̂ is the mean over cases of their weighted sum,
    and its most, ι(1, 1, 1, 1), the weights' sum. A sequential study pools cases with these
    and a simulated one draws them, so the score is written once, here."""

    def at(*stages: float) -> float:
        return hsii_score(*stages, alpha=alpha, beta=beta, gamma=gamma, formula=formula)

    first, second = at(1, 0, 0, 0), at(1, 1, 0, 0)
    return first, second - first, at(1, 1, 1, 0) - second, at(1, 1, 0, 1) - second
