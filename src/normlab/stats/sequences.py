"""Confidence sequences: intervals valid at every stopping time, for a study that looks at its
results after each batch of units and stops when they are precise (or decided) enough.

A fixed-n interval (Wilson, a bootstrap) covers 95% of the time at the n fixed in advance;
looked at after every batch and stopped on what it shows, it covers less (optional stopping:
``python -m benchmarks.sequential_coverage``). A confidence sequence (C_t) covers the mean at
all times at once, P(∀t: μ ∈ C_t) ≥ 1 − α, so it covers at any stopping time, however chosen.

The sequence here is the **hedged capital** confidence sequence of Waudby-Smith, I. and Ramdas,
A. (2024), "Estimating means of bounded random variables by betting", J. R. Stat. Soc. B 86(1),
1–27 (arXiv:2010.09686), Theorem 3, with its predictable plug-in bets (§4.2, eq. 26–27). For
data X_i in [0, 1] and a candidate mean m, two gamblers bet that the mean is above and below m:

    K⁺_t(m) = Π_{i≤t} (1 + λ⁺_i(m)·(X_i − m)),   K⁻_t(m) = Π_{i≤t} (1 − λ⁻_i(m)·(X_i − m)),
    λ⁺_i(m) = min(λ̇_i, c/m),   λ⁻_i(m) = min(λ̇_i, c/(1 − m)),   c = 1/2,
    λ̇_i = √(2·log(2/α) / (σ̂²_{i−1}·i·log(1 + i))),
    μ̂_t = (1/2 + Σ_{i≤t} X_i)/(t + 1),   σ̂²_t = (1/4 + Σ_{i≤t} (X_i − μ̂_i)²)/(t + 1),

and the hedged capital K±_t(m) = max(θ·K⁺_t(m), (1 − θ)·K⁻_t(m)), θ = 1/2. Under E[X_i | past]
= m it is a non-negative supermartingale starting at most 1, so by Ville's inequality it ever
reaches 1/α with probability at most α: C_t = {m : K±_t(m) < 1/α} is a (1 − α) confidence
sequence. It is computed on a grid of candidate means (1,000 steps, each end widened by one
step, as the authors' ``confseq`` package does) and intersected over time (the running
intersection is a confidence sequence too: it misses only where some C_s missed).

**A ratio** (SCENE's repaired sanctions over sanctions; HSII's score over cases, where a unit is
a dialogue of several cases) is R = E[A]/E[B] for per-unit pairs 0 ≤ A_i ≤ B_i ≤ M, M a bound
known before the study. R = r exactly when E[A_i − r·B_i] = 0, and X_i(r) = (A_i − r·B_i)/M + r
lies in [0, 1] with mean r under that null; so the candidate r is tested by the same bets on
X_i(r), and C_t = {r : K±_t(r) < 1/α} covers the pooled ratio. A mean of units in [0, 1] is
the case B_i = M = 1. The bound costs width where units hold far fewer than M: the price of
assuming nothing else of the data.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

GRID = 1000
"""Steps of the grid of candidate means over [0, 1]."""
TRUNCATION = 0.5
"""c: no bet stakes more than c/m (c/(1 − m)) of the wealth, which stays above 1 − c."""
THETA = 0.5
"""The hedge: the weight of the bet on a larger mean."""

Floats = NDArray[np.float64]


def _series(values: ArrayLike) -> Floats:
    """Values as a (series, time) matrix."""
    array = np.asarray(values, dtype=np.float64)
    return array.reshape(1, -1) if array.ndim == 1 else array


def _checked(
    numerators: ArrayLike, denominators: ArrayLike | None, bound: float
) -> tuple[Floats, Floats]:
    a = _series(numerators)
    b = np.ones_like(a) if denominators is None else _series(denominators)
    if a.shape != b.shape:
        raise ValueError(f"numerators {a.shape} and denominators {b.shape} differ in shape")
    if not bound > 0:
        raise ValueError(f"the denominators' bound must be positive, got {bound}")
    if np.any(a < -1e-12) or np.any(a > b + 1e-12) or np.any(b > bound + 1e-12):
        raise ValueError("each unit needs 0 ≤ numerator ≤ denominator ≤ the bound")
    return a, b


def _hedged_steps(
    a: Floats, b: Floats, bound: float, candidates: Floats, alpha: float
) -> list[Floats]:
    """log K±_t(m) for t = 1…T: one (series, candidates) matrix per step."""
    series, steps = a.shape
    shape = (series, candidates.size)
    m = np.broadcast_to(candidates, shape)
    with np.errstate(divide="ignore"):
        cap_up = np.where(m > 0, TRUNCATION / m, np.inf)
        cap_down = np.where(m < 1, TRUNCATION / (1 - m), np.inf)
    total = np.zeros(shape)
    squares = np.zeros(shape)
    log_up = np.zeros(shape)
    log_down = np.zeros(shape)
    spread = 2.0 * math.log(2.0 / alpha)
    found = []
    for index in range(steps):
        t = index + 1
        x = (a[:, index : index + 1] - m * b[:, index : index + 1]) / bound + m
        variance = (0.25 + squares) / t  # σ̂²_{t−1}
        bet = np.sqrt(spread / (variance * t * math.log(1.0 + t)))
        log_up += np.log1p(np.minimum(bet, cap_up) * (x - m))
        log_down += np.log1p(-np.minimum(bet, cap_down) * (x - m))
        total += x
        squares += (x - (0.5 + total) / (t + 1)) ** 2
        found.append(np.maximum(math.log(THETA) + log_up, math.log(1 - THETA) + log_down))
    return found


def hedged_log_capital(
    values: ArrayLike,
    candidate: float,
    alpha: float = 0.05,
    denominators: ArrayLike | None = None,
    bound: float = 1.0,
) -> Floats:
    """log K±_t(m) at one candidate m for t = 1…T (the module's formula): what
    [`confidence_sequence`][normlab.stats.confidence_sequence] compares with log(1/α)."""
    a, b = _checked(values, denominators, bound)
    steps = _hedged_steps(a, b, bound, np.array([candidate], dtype=np.float64), alpha)
    return np.array([step[0, 0] for step in steps])


def confidence_sequence(
    values: ArrayLike,
    alpha: float = 0.05,
    denominators: ArrayLike | None = None,
    bound: float = 1.0,
    grid: int = GRID,
) -> tuple[Floats, Floats]:
    """Lower and upper ends of the hedged capital confidence sequence after each unit.

    ``values`` are the units in the order they were run, in [0, 1] (a vector), or several
    series of the same length (a matrix, one row each: a simulation's studies at once). With
    ``denominators`` (each at most ``bound``), ``values`` are the numerators of a pooled ratio
    ΣA/ΣB and the sequence covers E[A]/E[B]. Ends are on [0, 1]; a time whose set is empty
    (the sequence has already missed) is given [0, 1] before the running intersection.
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    a, b = _checked(values, denominators, bound)
    candidates = np.linspace(0.0, 1.0, grid + 1)
    threshold = math.log(1.0 / alpha)
    lower = np.zeros(a.shape)
    upper = np.ones(a.shape)
    for index, log_capital in enumerate(_hedged_steps(a, b, bound, candidates, alpha)):
        inside = log_capital < threshold
        any_inside = inside.any(axis=1)
        first = np.argmax(inside, axis=1)
        last = candidates.size - 1 - np.argmax(inside[:, ::-1], axis=1)
        lower[:, index] = np.where(any_inside, candidates[first] - 1.0 / grid, 0.0)
        upper[:, index] = np.where(any_inside, candidates[last] + 1.0 / grid, 1.0)
    lower = np.maximum.accumulate(np.clip(lower, 0.0, 1.0), axis=1)
    upper = np.minimum.accumulate(np.clip(upper, 0.0, 1.0), axis=1)
    crossed = lower > upper  # missed already: show the last set before it emptied
    lower = np.where(crossed, upper, lower)
    if np.asarray(values).ndim == 1:
        return lower[0], upper[0]
    return lower, upper
