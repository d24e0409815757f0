"""A run's simulated clock (``normlab.norms.clock``), as its config sets it."""

from __future__ import annotations

from datetime import date

from normlab.crsec.sim.schemas import RunConfig
from normlab.norms.clock import Clock


def clock_of(config: RunConfig) -> Clock:
    """The clock a run's config sets (its society's start, days, active hours and tick)."""
    society = config.society
    return Clock(
        date.fromisoformat(society.start),
        society.days,
        society.active_hours,
        society.tick_minutes,
    )
