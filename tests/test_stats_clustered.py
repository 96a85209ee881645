"""Known answers for geval_repro.stats.clustered: the bootstrap over clusters against
materialized resamples, the sign-flip test against a direct enumeration of every swap."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from geval_repro.stats.clustered import (
    Clusters,
    cluster_draws,
    flipped_means,
    member_indices,
    resampled_ratios,
    sign_flip_test,
)

LABELS = np.array(["c", "a", "b", "a", "c", "c", "d", "b"])


def materialized(clusters: Clusters, counts: np.ndarray) -> np.ndarray:
    """A resample's observations, written out: each cluster's members, as often as drawn."""
    return np.concatenate(
        [
            np.flatnonzero(clusters.index == c)
            for c in range(clusters.n_clusters)
            for _ in range(counts[c])
        ]
        or [np.empty(0, dtype=int)]
    )


def test_clusters_number_the_labels_in_sorted_order() -> None:
    clusters = Clusters.of(LABELS)
    assert clusters.n_clusters == 4
    assert clusters.index.tolist() == [2, 0, 1, 0, 2, 2, 3, 1]
    assert clusters.sizes.tolist() == [2, 2, 3, 1]
    with pytest.raises(ValueError, match="non-empty 1-D"):
        Clusters.of([])


def test_cluster_draws_count_the_drawn_indices() -> None:
    draws = cluster_draws(4, 50, seed=7)
    indices = np.random.default_rng(7).integers(0, 4, size=(50, 4))
    assert draws.shape == (50, 4)
    for row, drawn in zip(draws, indices, strict=True):
        assert row.tolist() == np.bincount(drawn, minlength=4).tolist()
    with pytest.raises(ValueError, match="n_resamples"):
        cluster_draws(4, 0, seed=7)


def test_resampled_ratios_equal_the_ratio_on_each_written_out_resample() -> None:
    clusters = Clusters.of(LABELS)
    rng = np.random.default_rng(3)
    values = rng.normal(size=(8, 2))
    weights = np.column_stack([np.ones(8), (np.arange(8) % 3 == 0).astype(float)])
    numerators = values * weights
    draws = cluster_draws(clusters.n_clusters, 200, seed=11)
    ratios = resampled_ratios(numerators, weights, clusters, draws)
    for r in range(200):
        chosen = materialized(clusters, draws[r])
        for k in range(2):
            total = weights[chosen, k].sum()
            expected = numerators[chosen, k].sum() / total if total else np.nan
            np.testing.assert_allclose(ratios[r, k], expected, rtol=1e-12, equal_nan=True)
    assert np.isnan(ratios[:, 1]).any()  # resamples without a weighted observation: NaN
    with pytest.raises(ValueError, match="finite"):
        resampled_ratios(np.full((8, 1), np.nan), np.ones((8, 1)), clusters, draws)


def test_member_indices_list_each_resample_padded() -> None:
    clusters = Clusters.of(LABELS)
    draws = cluster_draws(clusters.n_clusters, 100, seed=5)
    indices = member_indices(clusters, draws)
    assert indices.shape[1] == max(len(materialized(clusters, d)) for d in draws)
    for row, counts in zip(indices, draws, strict=True):
        expected = materialized(clusters, counts)
        assert row[: expected.size].tolist() == expected.tolist()
        assert (row[expected.size :] == 8).all()  # padding: one past the last observation


def test_flipped_means_equal_swapping_the_pairs_in_the_flipped_clusters() -> None:
    """Every one of the 2^4 swaps of a tiny case, recomputed from the swapped pairs."""
    clusters = Clusters.of(LABELS)
    a = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0])
    b = np.array([0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    masks = np.array(list(itertools.product([False, True], repeat=4)))
    means = flipped_means(a - b, clusters, masks)
    for mask, mean in zip(masks, means, strict=True):
        swapped = mask[clusters.index]
        a_swapped, b_swapped = np.where(swapped, b, a), np.where(swapped, a, b)
        assert mean == pytest.approx(a_swapped.mean() - b_swapped.mean(), abs=1e-15)


def test_sign_flip_p_value_matches_the_enumeration() -> None:
    clusters = Clusters.of(LABELS)
    differences = np.array([1.0, 1.0, 0.0, 1.0, -1.0, 1.0, 1.0, -1.0])
    observed = differences.mean()
    masks = np.array(list(itertools.product([False, True], repeat=4)))
    every = flipped_means(differences, clusters, masks)
    exact = {
        "two-sided": np.mean(np.abs(every) >= abs(observed) - 1e-12),
        "greater": np.mean(every >= observed - 1e-12),
        "less": np.mean(every <= observed + 1e-12),
    }
    for alternative, p in exact.items():
        test = sign_flip_test(
            differences, clusters, n_resamples=40_000, seed=1, alternative=alternative
        )
        assert test.statistic == observed
        assert test.unit == "clusters" and test.n_resamples == 40_000
        assert abs(test.pvalue - p) < 4 * np.sqrt(p * (1 - p) / 40_000) + 1e-4, alternative


def test_sign_flip_of_three_agreeing_clusters_by_hand() -> None:
    """Three clusters all favouring a: only the identity and the full swap are as extreme,
    2 of the 8 swaps, p = 1/4 two-sided and 1/8 one-sided."""
    clusters = Clusters.of(["x", "y", "z"])
    test = sign_flip_test(np.array([0.5, 1.0, 0.25]), clusters, n_resamples=80_000, seed=2)
    assert test.pvalue == pytest.approx(0.25, abs=0.006)
    greater = sign_flip_test(
        np.array([0.5, 1.0, 0.25]), clusters, n_resamples=80_000, seed=2, alternative="greater"
    )
    assert greater.pvalue == pytest.approx(0.125, abs=0.005)
    with pytest.raises(ValueError, match="alternative"):
        sign_flip_test(np.ones(3), clusters, n_resamples=10, seed=2, alternative="both")
    with pytest.raises(ValueError, match="finite"):
        sign_flip_test(np.array([1.0, np.nan, 0.0]), clusters, n_resamples=10, seed=2)
