"""``study plan --pilot OUT``: the power figures from a pilot run's own rates, not an assumed one.

A pilot is a small study run first (the same file with fewer scenarios, or any study whose
``out`` holds ``SYSTEM/SUBJECT`` cells). Each cell's headline rate is read from the pilot's
logs through its system's own analysis, as ``study report`` reads it. A planned cell takes the
pilot's rate for the same system and subject; failing that, the mean of the pilot's subjects
on that system; failing that, the assumed rate (``--assumed-rate``). The source of every rate
is stated beside it.

A pilot rate of 0 or 1 says little about a larger n (p(1−p) = 0 would promise an interval of
no width), so such a rate is replaced by the end of its own 95% interval nearest ½ (the Wilson
interval over its n where the pilot's interval has no width either): the conservative reading
of what the pilot could not rule out.
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.storage import log_location, pull
from normlab.stats import wilson_interval
from normlab.study.location import local_logs
from normlab.study.systems import SYSTEMS, Headline

PilotRates = dict[str, dict[str, tuple[float, str]]]
"""system → subject → (rate, where it came from)."""


def _usable(headline: Headline) -> float | None:
    value = headline.estimate.value
    if value is None:
        return None
    if 0.0 < value < 1.0:
        return value
    low, high = headline.estimate.ci
    ends = [end for end in (low, high) if end is not None and 0.0 < end < 1.0]
    if not ends and headline.n:  # a bootstrap over units that all agree has no width either
        ends = [end for end in wilson_interval(round(value * headline.n), headline.n)
                if 0.0 < end < 1.0]  # fmt: skip
    return min(ends, key=lambda end: abs(end - 0.5)) if ends else None


def pilot_rates(out: str | Path, systems: list[str]) -> PilotRates:
    """Every pilot cell's headline rate, by system and subject."""
    given = log_location(out)
    root = given if isinstance(given, Path) else pull(given)  # a remote pilot: its mirror
    if not root.is_dir():
        raise InputError(root, "no pilot here: give the out folder of a study that ran")
    found: PilotRates = {}
    for name in systems:
        system = SYSTEMS[name]
        base = root / name
        subjects = sorted(p.name for p in base.iterdir() if p.is_dir()) if base.is_dir() else []
        for subject in subjects:
            logs = local_logs(base / subject, system.logs)
            if logs is None:
                continue
            headline = system.headline(system.analyze([logs]))
            rate = None if headline is None else _usable(headline)
            if headline is not None and rate is not None:
                source = f"pilot {name}/{subject} ({headline.metric} {rate:.3f}, n {headline.n})"
                found.setdefault(name, {})[subject] = (rate, source)
    if not found:
        raise InputError(root, "the pilot has no finished cell of this study's systems")
    return found


def rate_for(
    rates: PilotRates | None, system: str, subject: str, assumed: float
) -> tuple[float, str]:
    """The rate a cell's power figures use, and its source (see the module docstring)."""
    mine = (rates or {}).get(system, {})
    if subject in mine:
        return mine[subject]
    if mine:
        mean = sum(rate for rate, _ in mine.values()) / len(mine)
        return mean, f"pilot {system}, mean of {len(mine)} subject(s)"
    return assumed, "assumed"
