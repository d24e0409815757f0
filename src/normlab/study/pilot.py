"""``study plan --pilot OUT``: the power figures from a pilot run's own rates, not an assumed one.

A pilot is a small study run first (the same file with fewer scenarios, or any study whose
``out`` holds ``SYSTEM/SUBJECT`` cells). Each cell is read through its system's own analysis,
as ``study report`` reads it, and its system says what the plan's estimator needs of it
(``normlab.study.systems.System.measure``): the headline's rate where it is a share, or the
rates of the system's own ``Assumed`` (a score of several rates, events per sampled unit). A
planned cell takes the pilot's rates for the same system and subject; failing
that, the mean of the pilot's subjects on that system; failing that, the assumed ones
(``--assumed-rate``, or the system's own default). The source of every rate is stated beside it.

A pilot rate of 0 or 1 says little about a larger n (p(1−p) = 0 would promise an interval of
no width), so such a rate is replaced by the end of its own 95% interval nearest ½ (the Wilson
interval over its n where the pilot's interval has no width either): the conservative reading
of what the pilot could not rule out (``normlab.study.power.conservative``).
"""

from __future__ import annotations

from pathlib import Path

from normlab.core.errors import InputError
from normlab.core.storage import log_location, pull
from normlab.stats.planning import Assumed
from normlab.study.systems import SYSTEMS

PilotRates = dict[str, dict[str, Assumed]]
"""system → subject → the rates measured there (with their source)."""


def pilot_rates(out: str | Path, systems: list[str]) -> PilotRates:
    """Every pilot cell's measured rates, by system and subject."""
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
            read = system.read(base / subject)
            if read is None:
                continue
            run, analysis = read
            headline = system.headline(run, analysis)
            measured = None if headline is None else system.measure(headline, analysis)
            if headline is not None and measured is not None:
                units = f"{headline.unit}{'' if headline.n == 1 else 's'}"
                source = f"pilot {name}/{subject} ({measured.describe()}; n {headline.n} {units})"
                found.setdefault(name, {})[subject] = measured.model_copy(update={"source": source})
    if not found:
        raise InputError(root, "the pilot has no finished cell of this study's systems")
    return found


def rate_for(rates: PilotRates | None, system: str, subject: str, assumed: float) -> Assumed:
    """The rates a cell's power figures use, as its system's estimator reads them, and their
    source (see the module docstring)."""
    kind = SYSTEMS[system].estimator.assumed
    mine = (rates or {}).get(system, {})
    if subject in mine:
        found = kind.of(mine[subject])
        return found if found.rate is not None else found.model_copy(update={"rate": assumed})
    if mine:
        source = f"pilot {system}, mean of {len(mine)} subject(s)"
        return kind().mean(list(mine.values()), assumed, source)
    return kind(rate=assumed)
