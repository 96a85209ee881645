"""Paired permutation test: nlpstats' permuted differences, power, determinism."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from nlpstats.correlations import permutation_test as nlpstats_permutation_test
from scipy import stats

from geval_repro.stats.levels import correlate
from geval_repro.stats.permutation import (
    paired_permutation_test,
    permuted_differences,
    swap_masks,
    tie_codes,
)

NLPSTATS_LEVEL = {"summary": "input", "system": "system", "global": "global"}


def three_matrices(seed: int, n_systems: int = 8, n_inputs: int = 30):
    rng = np.random.default_rng(seed)
    human = rng.integers(3, 16, size=(n_systems, n_inputs)) / 3.0
    good = np.round(human + rng.normal(0, 0.8, human.shape), 1)
    noisy = np.round(10 * (human + rng.normal(0, 3.0, human.shape)))  # another scale
    return good, noisy, human


def standardize(scores: np.ndarray) -> np.ndarray:
    return (scores - np.nanmean(scores)) / np.nanstd(scores)


def nlpstats_swaps(seed: int, unit: str, n_resamples: int, n_systems: int, n_inputs: int):
    """The swap masks nlpstats draws after ``np.random.seed(seed)``, in its order."""
    state = np.random.RandomState(seed)
    masks = np.zeros((n_resamples, n_systems, n_inputs), dtype=bool)
    for r in range(n_resamples):
        if unit in ("systems", "both"):
            masks[r] ^= (state.rand(n_systems, 1) > 0.5).reshape(n_systems, 1)
        if unit in ("inputs", "both"):
            masks[r] ^= (state.rand(1, n_inputs) > 0.5).reshape(1, n_inputs)
    return masks


@pytest.mark.parametrize(
    ("level", "unit", "coefficient"),
    [
        ("summary", "inputs", "kendall"),
        ("summary", "both", "spearman"),
        ("system", "systems", "pearson"),
        ("global", "inputs", "spearman"),
    ],
)
@pytest.mark.slow
def test_same_swaps_give_nlpstats_samples(level: str, unit: str, coefficient: str) -> None:
    good, noisy, human = three_matrices(1)
    swaps = nlpstats_swaps(21, unit, 120, *good.shape)
    a, b = standardize(good), standardize(noisy)
    if coefficient != "pearson" and level != "system":  # the test's codes: same order, ties
        a, b = tie_codes(good, noisy, human, level)
    ours = permuted_differences(a, b, human, level, coefficient, swaps)
    np.random.seed(21)  # noqa: NPY002 - nlpstats only reads the legacy global state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = nlpstats_permutation_test(
            good, noisy, human, NLPSTATS_LEVEL[level], coefficient, unit, n_resamples=120
        )
    np.testing.assert_allclose(ours, theirs.samples, rtol=0, atol=1e-12)


def test_item_swaps_against_an_explicit_scipy_loop() -> None:
    good, noisy, human = three_matrices(2, n_systems=4, n_inputs=10)
    a, b = standardize(good), standardize(noisy)
    swaps = np.random.default_rng(0).random((5, 4, 10)) < 0.5
    ours = permuted_differences(
        *tie_codes(good, noisy, human, "global"), human, "global", "kendall", swaps
    )
    for mask, got in zip(swaps, ours, strict=True):
        a_p, b_p = np.where(mask, b, a), np.where(mask, a, b)
        want = (
            stats.kendalltau(a_p.ravel(), human.ravel()).statistic
            - stats.kendalltau(b_p.ravel(), human.ravel()).statistic
        )
        assert got == pytest.approx(want, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("level", ["summary", "global"])
def test_clearly_different_metrics_give_a_small_pvalue(level: str) -> None:
    good, noisy, human = three_matrices(3, n_systems=16, n_inputs=100)
    result = paired_permutation_test(good, noisy, human, level, "spearman", seed=4)
    assert result.statistic > 0.3
    assert result.pvalue == pytest.approx(1 / 1001)  # no permuted difference as extreme
    greater = paired_permutation_test(
        good, noisy, human, level, "spearman", seed=4, alternative="greater"
    )
    less = paired_permutation_test(
        good, noisy, human, level, "spearman", seed=4, alternative="less"
    )
    assert greater.pvalue < 0.01 < 0.99 < less.pvalue


def test_identical_metrics_give_pvalue_one() -> None:
    good, _, human = three_matrices(5)
    result = paired_permutation_test(good, good.copy(), human, "summary", "kendall", seed=0)
    assert result.statistic == 0.0
    assert result.pvalue == 1.0


def test_statistic_is_the_difference_of_correlations() -> None:
    good, noisy, human = three_matrices(6)
    result = paired_permutation_test(
        good, noisy, human, "summary", "pearson", n_resamples=10, seed=0
    )
    want = (
        correlate(good, human, "summary", "pearson").value
        - correlate(noisy, human, "summary", "pearson").value
    )
    assert result.statistic == pytest.approx(want, abs=1e-12)


def test_deterministic_from_seed() -> None:
    good, noisy, human = three_matrices(7)
    first = paired_permutation_test(good, noisy, human, "system", "kendall", seed=3)
    second = paired_permutation_test(good, noisy, human, "system", "kendall", seed=3)
    np.testing.assert_array_equal(first.distribution, second.distribution)
    assert first.pvalue == second.pvalue
    assert first.unit == "systems"


def test_bad_arguments_raise() -> None:
    good, noisy, human = three_matrices(8)
    holed = good.copy()
    holed[0, 0] = np.nan
    with pytest.raises(ValueError, match="missing cells differ"):
        paired_permutation_test(holed, noisy, human, "summary", "pearson", seed=0)
    with pytest.raises(ValueError, match="unknown alternative"):
        paired_permutation_test(good, noisy, human, "summary", "pearson", seed=0, alternative="up")
    with pytest.raises(ValueError, match="constant"):
        paired_permutation_test(np.ones_like(good), noisy, human, "summary", "pearson", seed=0)
    empty = np.full_like(good, np.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # said in the error, not in a numpy warning
        with pytest.raises(ValueError, match="metric_a has no present cell"):
            paired_permutation_test(empty, empty, human, "global", "pearson", seed=0)


@pytest.mark.parametrize("coefficient", ["pearson", "spearman", "kendall"])
@pytest.mark.parametrize("seed", [0, 1])
def test_document_swaps_equal_recomputing_each_swapped_matrix(coefficient, seed) -> None:
    """Summary level, whole inputs swapped: reusing each input's two correlations equals
    recomputing both swapped matrices (a plain loop over swap masks)."""
    rng = np.random.default_rng(seed)
    human = rng.integers(3, 16, (12, 30)) / 3.0
    metric_a = np.round(human + rng.normal(0, 1, human.shape), 1)
    metric_b = np.round(human + rng.normal(0, 1.5, human.shape), 1)
    missing = rng.random(human.shape) < 0.15
    metric_a[missing] = np.nan
    metric_b[missing] = np.nan
    human[:, 0] = 2.0  # constant human input: skipped for both
    metric_a[:, 1] = 4.0  # constant in A only: kept or skipped as it moves between A and B
    swap = rng.random((150, 1, 30)) < 0.5
    fast = permuted_differences(metric_a, metric_b, human, "summary", coefficient, swap)
    loop = np.array(
        [
            correlate(np.where(s, metric_b, metric_a), human, "summary", coefficient).value
            - correlate(np.where(s, metric_a, metric_b), human, "summary", coefficient).value
            for s in swap
        ]
    )
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(loop))
    np.testing.assert_allclose(fast, loop, rtol=0, atol=1e-12)


def test_one_human_ranked_once_gives_the_same_spearman_as_ranking_it_every_time() -> None:
    """correlate_batch ranks a shared human matrix once at the global level; the values
    equal scipy's Spearman on each batch entry (a near-tie, a missing cell, a constant entry)."""
    from geval_repro.stats.levels import correlate_batch

    rng = np.random.default_rng(4)
    human = rng.integers(1, 4, size=(1, 40)) / 3.0
    batch = np.round(rng.normal(size=(6, 1, 40)), 2)
    batch[:, 0, 7] = np.nan  # the same cell missing in every entry
    batch[2, 0, :7] = batch[2, 0, 8:] = 0.25  # a constant entry: undefined
    batch[3, 0, 3] = batch[3, 0, 4] + 1e-15  # a near-tie: ranked as a tie
    values = correlate_batch(batch, human, "global", "spearman").value
    keep = np.arange(40) != 7
    assert np.isnan(values[2])
    for k in (0, 1, 3, 4, 5):
        x = batch[k, 0].copy()
        x[3] = x[4] if k == 3 else x[3]  # the tie the near-tie stands for
        expected = stats.spearmanr(x[keep], human[0][keep])[0]
        assert values[k] == pytest.approx(expected, abs=1e-12)


def test_swap_masks_are_the_seeds_draws_shared_and_read_only() -> None:
    """A table's tests share one seed's masks: the same draws as a fresh generator's, one
    read-only array per seed and shape (a test that wrote into it would change the next)."""
    items = swap_masks(7, "items", 50, 1, 360)
    np.testing.assert_array_equal(items, np.random.default_rng(7).random((50, 1, 360)) < 0.5)
    inputs = swap_masks(7, "inputs", 50, 16, 100)
    np.testing.assert_array_equal(inputs, np.random.default_rng(7).random((50, 1, 100)) < 0.5)
    assert swap_masks(7, "items", 50, 1, 360) is items
    assert not np.array_equal(swap_masks(8, "items", 50, 1, 360), items)
    with pytest.raises(ValueError, match="read-only"):
        items[0, 0, 0] = not items[0, 0, 0]
