"""The share of agents at which ``crsec export`` counts a norm as emerged, and its check.

Its own light module (pydantic-free, Inspect-free) because both the command's option default
(``export_cli.py``, imported by ``normlab crsec --help``) and the selection (``export.py``,
which loads the judge) read it: one constant, not a number written in two places.
"""

from __future__ import annotations

from normlab.core.errors import InputError
from normlab.crsec.emergence import EMERGENCE_SHARE

DEFAULT_MIN_SHARE = EMERGENCE_SHARE
"""The paper's 70% (``normlab.crsec.emergence``): a norm is exported when the share of agents
that hold it *and* adhere to it is ``over`` it at an hour's end, as the emergence table counts
(7 of 10 agents is not over 70%; ``--min-share 1`` asks for every agent)."""


def check_threshold(min_share: float) -> None:
    """A share above 0 and at most 1, else a one-line error naming the option."""
    if not 0.0 < min_share <= 1.0:
        raise InputError(
            "--min-share",
            f"must be a share above 0 and at most 1, got {min_share}",
            field="min_share",
        )
