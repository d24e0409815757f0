"""Planning: the interval half-width a planned n buys, the n a target half-width needs, and
the smallest paired difference detectable at a given power."""

from __future__ import annotations

import math
from statistics import NormalDist

from normlab.stats.intervals import _z

# --- planning: the interval and the power a planned n buys ------------------------------


def wilson_halfwidth(rate: float, n: int, confidence: float = 0.95) -> float:
    """Wilson half-width at an assumed rate p over n units, z·√(p(1−p)/n + z²/4n²)/(1 + z²/n)."""
    z = _z(confidence)
    return z * math.sqrt(rate * (1 - rate) / n + z * z / 4 / n / n) / (1 + z * z / n)


def n_for_halfwidth(target: float, rate: float = 0.5, confidence: float = 0.95) -> int:
    """The smallest n whose Wilson half-width at rate p is at most t: the larger root of
    t²n² + (2t²z² − z²p(1−p))·n + t²z⁴ − z⁴/4 = 0 (the width's equation, squared), rounded up."""
    z2, t2 = _z(confidence) ** 2, target * target
    b, c = 2 * t2 * z2 - z2 * rate * (1 - rate), t2 * z2 * z2 - z2 * z2 / 4
    return max(1, math.ceil((-b + math.sqrt(b * b - 4 * t2 * c)) / (2 * t2) - 1e-9))


def paired_mde(n: int, rate: float = 0.5, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest paired difference in rate a two-sided level-α test detects with this power on n
    shared units: δ = (z₁₋α/₂ + z_power)·√(2p(1−p)/n), the two subjects taken as independent
    within a unit (conservative: paired outcomes correlate)."""
    return (_z(1 - alpha) + NormalDist().inv_cdf(power)) * math.sqrt(2 * rate * (1 - rate) / n)
