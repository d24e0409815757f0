"""Prompt sensitivity's statistics (``normlab.stats.sensitivity``), as properties: τ-b is
scipy's where scipy's is defined, and what a report says does not depend on the order the
subjects, the units or the non-paper variants come in."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from normlab import stats

# Headlines are shares or HSII scores: a few distinct values make ties common, which is where
# τ-b differs from τ-a.
values = st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 2.5])


@settings(max_examples=300, deadline=None)
@given(st.integers(2, 8).flatmap(lambda k: st.tuples(*[st.tuples(values, values)] * k)))
def test_tau_b_is_scipys_where_defined(pairs: tuple[tuple[float, float], ...]) -> None:
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    ours = float(stats.kendall_tau_b_rows(x, y)[0])
    theirs = kendalltau(x, y, variant="b").statistic
    if math.isnan(theirs):
        assert math.isnan(ours)  # a constant ranking: undefined, never a number
    else:
        assert ours == theirs or abs(ours - theirs) < 1e-12


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda n: st.lists(
            st.lists(st.lists(st.integers(0, 1), min_size=3, max_size=3), min_size=3, max_size=3),
            min_size=n,
            max_size=n,
        )
    ),
    st.randoms(use_true_random=False),
)
def test_order_of_subjects_units_and_variants_changes_nothing(
    rows: list[list[list[int]]], shuffle: object
) -> None:
    """Subjects named in another order, the units listed in another order, the non-paper
    variants in another order: every subject's spread and each variant's τ are the same
    (the units' order moves which unit a resample draws, not what it can draw: the points
    agree exactly and the intervals within the bootstrap's own noise)."""
    import random

    assert isinstance(shuffle, random.Random)
    data = np.array(rows, dtype=np.float64)  # units × subjects × variants
    headlines, resampled = stats.variant_headlines(data, n_resamples=2000)
    spread = stats.headline_range(headlines, resampled)
    taus = stats.ranking_taus(headlines, resampled)

    subjects = [2, 0, 1]
    moved, moved_resampled = stats.variant_headlines(data[:, subjects, :], n_resamples=2000)
    assert stats.headline_range(moved, moved_resampled) == [spread[s] for s in subjects]
    assert _same(stats.ranking_taus(moved, moved_resampled), taus)

    later = [0, 2, 1]  # the paper's stays first
    swapped, swapped_resampled = stats.variant_headlines(data[:, :, later], n_resamples=2000)
    assert stats.headline_range(swapped, swapped_resampled) == spread
    assert _same(stats.ranking_taus(swapped, swapped_resampled), taus[::-1])

    order = list(range(data.shape[0]))
    shuffle.shuffle(order)
    again, _ = stats.variant_headlines(data[order], n_resamples=10)
    assert np.allclose(again, headlines, equal_nan=True)


def _same(
    a: list[tuple[float, tuple[float, float]]], b: list[tuple[float, tuple[float, float]]]
) -> bool:
    """Equal, NaN equal to NaN."""
    return bool(np.allclose(_flat(a), _flat(b), equal_nan=True))


def _flat(found: list[tuple[float, tuple[float, float]]]) -> list[float]:
    return [number for tau, (low, high) in found for number in (tau, low, high)]
