"""Prompt sensitivity's statistics (``normlab.stats.sensitivity``), as properties: τ-b is
scipy's where scipy's is defined, and what a report says does not depend on the order the
subjects, the units or the non-paper variants come in; and the report's reading of each
system's units (``normlab.study.variants``): pooled counts, rows in clusters, the units every
cell shares."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import kendalltau

from normlab import stats
from normlab.runs.headline import Headline, UnitRows, UnitValues
from normlab.stats import Estimate
from normlab.study.variants import sensitivity

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


def _headline(value: float, n: int, unit: str) -> Headline:
    return Headline("metric", Estimate(value=value, ci=(None, None), n=n), n, unit)


def test_a_pooled_rate_study_pairs_only_the_units_every_cell_measured() -> None:
    """SCENE's units are (repaired, sanctions) per scenario, pooled: the spread reads them
    with the pooled rate, on the scenarios every subject × variant has (s3 only in one cell
    is left out). a: paper (1/2 + 1/1) = 2/3, rename (0/2 + 1/2) = 1/4: range 5/12."""
    cells: dict[tuple[str, str], tuple[Headline | None, UnitValues | None]] = {
        ("a", "paper"): (_headline(2 / 3, 3, "sanction"), {"s1": (1, 2), "s2": (1, 1)}),
        ("a", "rename:1"): (
            _headline(0.25, 4, "sanction"),
            {"s1": (0, 2), "s2": (1, 2), "s3": (1, 1)},
        ),
        ("b", "paper"): (_headline(0.0, 3, "sanction"), {"s1": (0, 2), "s2": (0, 1)}),
        ("b", "rename:1"): (None, None),  # not run yet
    }
    found = sensitivity("scene", ["paper", "rename:1"], ["a", "b"], cells)
    a, b = found.subjects
    assert a.spread is not None and a.spread.value == pytest.approx(5 / 12)
    assert a.spread.n == 2 and found.unit == "scenario"
    assert [h.value for h in a.headlines] == [2 / 3, 0.25]  # each cell's own headline
    assert b.spread is None and b.headlines[1].n == 0  # no spread without every variant
    assert found.ranking == []  # τ needs two subjects measured under every variant


def test_rows_resampled_by_cluster_count_the_clusters() -> None:
    """HSII's units are rows (here one value each, the statistic their mean) in dialogues,
    resampled whole: two dialogues of two cases, so n 4 cases in 2 dialogues."""

    def rows(values: list[float]) -> UnitRows:
        ids = ["c1", "c2", "c3", "c4"]
        return UnitRows(
            rows={i: (v,) for i, v in zip(ids, values, strict=True)},
            clusters={"c1": "d1", "c2": "d1", "c3": "d2", "c4": "d2"},
            statistic=lambda matrix: float(np.mean(matrix[:, 0])),
        )

    head = Headline("ι", Estimate(value=0.5, ci=(None, None), n=4), 4, "case", 2, "dialogue")
    cells: dict[tuple[str, str], tuple[Headline | None, UnitValues | None]] = {
        ("a", "paper"): (head, rows([1, 1, 0, 0])),
        ("a", "format:json"): (head, rows([1, 0, 0, 0])),
        ("b", "paper"): (head, rows([0, 0, 0, 0])),
        ("b", "format:json"): (head, rows([1, 1, 1, 0])),
    }
    found = sensitivity("hsii", ["paper", "format:json"], ["a", "b"], cells)
    assert (found.unit, found.clusters, found.cluster_unit) == ("case", 2, "dialogue")
    a, b = found.subjects
    assert a.spread is not None and a.spread.value == pytest.approx(0.25)
    assert b.spread is not None and b.spread.value == pytest.approx(0.75)
    # Paper: a .5 > b 0; format:json: a .25 < b .75: the order flips, τ = −1.
    assert [r.tau.value for r in found.ranking] == [-1.0]
