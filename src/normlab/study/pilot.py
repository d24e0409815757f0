"""``study plan --pilot OUT``: the power figures from a pilot run's own rates, not an assumed one.

A pilot is a small study run first (the same file with fewer scenarios, or any study whose
``out`` holds ``SYSTEM/SUBJECT`` cells). Each cell is read through its system's own analysis,
as ``study report`` reads it, and its system says what the plan's estimator needs of it
(``normlab.study.systems.System.measure``): LoSoNA's accuracy, SCENE's repair rate and its
sanctions per episode, HSII's four stage rates r1–r4 (its score, on 0–3, is no rate), CRSEC's
adhering share. A planned cell takes the pilot's rates for the same system and subject; failing
that, the mean of the pilot's subjects on that system; failing that, the assumed ones
(``--assumed-rate``, HSII's paper row). The source of every rate is stated beside it.

A pilot rate of 0 or 1 says little about a larger n (p(1−p) = 0 would promise an interval of
no width), so such a rate is replaced by the end of its own 95% interval nearest ½ (the Wilson
interval over its n where the pilot's interval has no width either): the conservative reading
of what the pilot could not rule out (``normlab.study.power.conservative``).
"""

from __future__ import annotations

from pathlib import Path
from statistics import fmean

from normlab.core.errors import InputError
from normlab.core.storage import log_location, pull
from normlab.stats.planning import Assumed
from normlab.study.systems import SYSTEMS

PilotRates = dict[str, dict[str, Assumed]]
"""system → subject → the rates measured there (with their source)."""


def _describe(assumed: Assumed) -> str:
    parts = []
    if assumed.rate is not None:
        parts.append(f"rate {assumed.rate:.3f}")
    if assumed.stages is not None:
        parts.append("r1–r4 " + ", ".join(f"{rate:.3f}" for rate in assumed.stages))
    if assumed.sanctions_per_episode is not None:
        parts.append(f"{assumed.sanctions_per_episode:.2f} sanctions per episode")
    return "; ".join(parts)


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
                source = f"pilot {name}/{subject} ({_describe(measured)}; n {headline.n} {units})"
                found.setdefault(name, {})[subject] = measured.model_copy(update={"source": source})
    if not found:
        raise InputError(root, "the pilot has no finished cell of this study's systems")
    return found


def _mean(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return fmean(known) if known else None


def rate_for(rates: PilotRates | None, system: str, subject: str, assumed: float) -> Assumed:
    """The rates a cell's power figures use, and their source (see the module docstring)."""
    mine = (rates or {}).get(system, {})
    if subject in mine:
        found = mine[subject]
        return found if found.rate is not None else found.model_copy(update={"rate": assumed})
    if mine:
        measured = list(mine.values())
        stages = [m.stages for m in measured if m.stages is not None]
        rate = _mean([m.rate for m in measured])
        return Assumed(
            rate=assumed if rate is None else rate,
            stages=(
                (
                    fmean(s[0] for s in stages),
                    fmean(s[1] for s in stages),
                    fmean(s[2] for s in stages),
                    fmean(s[3] for s in stages),
                )
                if stages
                else None
            ),
            sanctions_per_episode=_mean([m.sanctions_per_episode for m in measured]),
            source=f"pilot {system}, mean of {len(mine)} subject(s)",
        )
    return Assumed(rate=assumed)
