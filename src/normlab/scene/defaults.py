"""What a SCENE run takes when an option is not given (paper §6), and the roles it binds.

Light on purpose: the command line reads these for ``--help`` without importing Inspect.
"""

from __future__ import annotations

from typing import Literal

DEFAULT_REPS = 5
"""Episodes per scenario (§6: five repetitions)."""
DEFAULT_MAX_TURNS = 8
"""Rounds per episode (§5: eight)."""
MAX_REPS = 1000
MAX_TURNS = 64
"""Upper bounds of ``--reps`` and ``--max-turns``: a mistyped value (1,000,000) would plan
millions of samples or an episode whose transcript never stops growing."""

Sampler = Literal["coverage", "uniform"]
SAMPLERS: tuple[Sampler, ...] = ("coverage", "uniform")
"""How scenarios are drawn over their tuples: A.7's coverage-greedy draw, or §6's uniform."""

ROLES = ("persona", "orchestrator", "judge", "auditor")
"""The models of a SCENE run besides the subject."""

SANCTIONS_PER_EPISODE = 0.547
"""SCENE §6: Claude Opus 4.7's repair rate is over 547 sanctions in 1,000 episodes (461 of 547,
the project's reading notes); the paper's other rows print no n. What a study plan assumes
where no pilot measured a subject's sanctions per episode."""
