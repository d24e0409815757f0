"""The share of agents at which ``crsec export`` counts a norm as emerged, and its check.

Its own light module (pydantic-free, Inspect-free) because both the command's option default
(``export_cli.py``, imported by ``normlab crsec --help``) and the selection (``export.py``,
which loads the judge) read it: one constant, not a number written in two places.
"""

from __future__ import annotations

from normlab.core.errors import InputError

DEFAULT_MIN_SHARE = 0.7
"""The paper's 70%, as a share of agents that hold the norm *and* adhere to it, reached *at or
above* it here (``--min-share 1.0`` must be reachable), where the emergence table asks for
more than 70% (7 of 10 agents is an emerged norm to export, not yet one the table counts)."""


def check_threshold(min_share: float) -> None:
    """A share above 0 and at most 1, else a one-line error naming the option."""
    if not 0.0 < min_share <= 1.0:
        raise InputError(
            "--min-share",
            f"must be a share above 0 and at most 1, got {min_share}",
            field="min_share",
        )
