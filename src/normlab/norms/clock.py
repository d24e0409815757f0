"""The simulated clock: days of active hours cut into ticks.

A tick is ``tick_minutes`` of simulated time (5 by default: the paper's actions come in
5-minute increments). Only active hours are simulated (8:00–16:00 by default: the
authors' agents are "active in the coffee shop from 8 am to 4 pm"); nights cost nothing.
Ticks are numbered globally from 0 across days, so a checkpoint is one integer. The compliance
operations plan a day and an hour against it; a CRSEC run sets it from its society
(``normlab.crsec.sim.clock.clock_of``).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta


def clock_label(minutes: int) -> str:
    """``9:05 am`` for minutes since midnight."""
    hour, minute = divmod(minutes, 60)
    suffix = "am" if hour % 24 < 12 else "pm"
    return f"{(hour % 12) or 12}:{minute:02d} {suffix}"


@dataclass(frozen=True)
class Clock:
    """Simulated days from ``start``, each of ``active_hours`` cut into ticks of
    ``tick_minutes``; a tick's day, hour and label, and where days and hours start and end."""

    start: date
    days: int
    active_hours: tuple[int, int]
    tick_minutes: int

    @property
    def ticks_per_hour(self) -> int:
        return 60 // self.tick_minutes

    @property
    def hours_per_day(self) -> int:
        return self.active_hours[1] - self.active_hours[0]

    @property
    def ticks_per_day(self) -> int:
        return self.hours_per_day * self.ticks_per_hour

    @property
    def total_ticks(self) -> int:
        return self.days * self.ticks_per_day

    @property
    def total_hours(self) -> int:
        return self.days * self.hours_per_day

    def day(self, tick: int) -> int:
        """1-based day of ``tick``."""
        return tick // self.ticks_per_day + 1

    def minute(self, tick: int) -> int:
        """Minutes since midnight at the start of ``tick``."""
        return self.active_hours[0] * 60 + (tick % self.ticks_per_day) * self.tick_minutes

    def hour(self, tick: int) -> int:
        return self.minute(tick) // 60

    def hour_index(self, tick: int) -> int:
        """0-based index of the simulated hour ``tick`` falls in, across days."""
        return tick // self.ticks_per_hour

    def label(self, tick: int) -> str:
        minute = self.minute(tick)
        return f"day {self.day(tick)} {minute // 60:02d}:{minute % 60:02d}"

    def hour_label(self, hour_index: int) -> str:
        """``day 1 09:00–10:00`` for a 0-based simulated hour."""
        day = hour_index // self.hours_per_day + 1
        hour = self.active_hours[0] + hour_index % self.hours_per_day
        return f"day {day} {hour:02d}:00–{hour + 1:02d}:00"

    def date_label(self, day: int) -> str:
        when = self.start + timedelta(days=day - 1)
        return f"{when:%A} {when:%B} {when.day}, {when.year}"

    def starts_day(self, tick: int) -> bool:
        return tick % self.ticks_per_day == 0

    def starts_hour(self, tick: int) -> bool:
        return tick % self.ticks_per_hour == 0

    def ends_hour(self, tick: int) -> bool:
        return tick % self.ticks_per_hour == self.ticks_per_hour - 1
