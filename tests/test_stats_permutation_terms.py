"""The permutation test's fast paths against recomputing every swapped matrix.

Reference: ``correlate_batch`` on the stacked swapped matrices ``where(swap, B, A)`` and
``where(swap, A, B)`` (what the test computed before the fast paths: the generic path);
the rank coefficients compare the scores' tie codes, as the test passes them (for the test
itself, of the reference codes of tests/test_stats_permutation_ties.py). Spearman and
Kendall must match bit for bit, Pearson within 1e-12, with the same undefined (NaN)
resamples, on matrices with ties, missing cells, constant vectors, near-ties (tight, and
BLEU-like ones that would chain once standardized) and the real shapes. The pair-sign forms
are also checked against brute-force sums.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from geval_repro.stats import permutation_terms, registry, swapped_sums
from geval_repro.stats.levels import correlate_batch
from geval_repro.stats.permutation import (
    _system_differences,
    paired_permutation_test,
    permuted_differences,
    tie_codes,
)
from geval_repro.stats.swapped_sums import (
    evaluate_form,
    label_counts,
    labels,
    shared_counts,
    shared_labels,
    sign_form,
    spearman_sums,
)
from tests.test_stats_permutation_ties import reference_codes

LEVELS = ("global", "summary", "system")
UNITS = ("items", "inputs", "systems", "both")
COEFFICIENTS = ("pearson", "spearman", "kendall")


def recomputed(a, b, human, level, coefficient, swap):
    """The reference: every swapped matrix through ``correlate_batch``."""
    swap = np.broadcast_to(swap, (swap.shape[0], *a.shape))
    return (
        correlate_batch(np.where(swap, b, a), human, level, coefficient).value
        - correlate_batch(np.where(swap, a, b), human, level, coefficient).value
    )


def standardized(x):
    return (x - np.nanmean(x)) / np.nanstd(x)


def draw_swaps(rng, unit, n_resamples, shape):
    """Swap masks of each unit (rows first, then columns, as the test draws them)."""
    n_systems, n_inputs = shape
    if unit == "items":
        return rng.random((n_resamples, n_systems, n_inputs)) < 0.5
    swap = np.zeros((n_resamples, 1, 1), dtype=bool)
    if unit in ("systems", "both"):
        swap = swap ^ (rng.random((n_resamples, n_systems, 1)) < 0.5)
    if unit in ("inputs", "both"):
        swap = swap ^ (rng.random((n_resamples, 1, n_inputs)) < 0.5)
    return swap


def matrices(kind: str, seed: int, shape=(6, 20)):
    """(A, B, human) raw, of one kind of difficulty."""
    rng = np.random.default_rng(seed)
    human = rng.integers(1, 4, shape) / 1.0
    a = np.round(human + rng.normal(0, 1, shape), 1)  # many ties
    b = np.round(human + rng.normal(0, 1.5, shape))
    if kind == "missing":  # the same cells missing in A and B, more in the human scores
        gone = rng.random(shape) < 0.2
        a[gone] = b[gone] = np.nan
        human[(rng.random(shape) < 0.1) & ~gone] = np.nan
    elif kind == "constant":  # A' or B' constant in some resamples (and inputs)
        a = np.where(rng.random(shape) < 0.5, 0.0, rng.integers(1, 3, shape))
        b = np.where(a == 0, rng.integers(1, 3, shape), 0.0)
        a[:, 0] = 2.0  # an input constant in A only
        human[:, 1] = 2.0  # an input constant in the human scores
    elif kind == "near-ties":  # tight near-ties: equal values reached along two paths
        b = np.where(rng.random(shape) < 0.5, a * (1 + 1e-12), b)
        a = np.where(rng.random(shape) < 0.2, a + 3e-13, a)
    elif kind == "chains":  # BLEU-like: near-zero scores chain as near-ties once standardized
        tiny = 10.0 ** rng.uniform(-17, -8, shape)
        a = np.where(rng.random(shape) < 0.6, tiny, rng.uniform(0, 0.3, shape))
        b = np.where(rng.random(shape) < 0.3, rng.permutation(tiny.ravel()).reshape(shape), b)
    return a, b, human


def swapped_scores(a, b, human, level, coefficient):
    """What the test swaps: the standardized scores, or the tie codes of a rank
    coefficient at the summary and global levels."""
    if registry.coefficient(coefficient).rank_based and level != "system":
        return tie_codes(a, b, human, level)
    return standardized(a), standardized(b)


KINDS = ("ties", "missing", "constant", "near-ties", "chains")


def assert_same(fast, reference, coefficient):
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(reference))
    if coefficient == "pearson":
        np.testing.assert_allclose(fast, reference, rtol=0, atol=1e-12)
    else:
        np.testing.assert_array_equal(fast, reference)  # bit for bit


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("level", "unit"), list(itertools.product(LEVELS, UNITS)))
def test_fast_paths_equal_recomputing(kind, level, unit) -> None:
    raw_a, raw_b, human = matrices(kind, seed=KINDS.index(kind))
    swap = draw_swaps(np.random.default_rng(1), unit, 150, raw_a.shape)
    for coefficient in COEFFICIENTS:
        a, b = swapped_scores(raw_a, raw_b, human, level, coefficient)
        fast = permuted_differences(a, b, human, level, coefficient, swap)
        assert_same(fast, recomputed(a, b, human, level, coefficient, swap), coefficient)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("coefficient", COEFFICIENTS)
@pytest.mark.parametrize("level", ["global", "summary"])
def test_the_term_paths_are_taken(kind, coefficient, level) -> None:
    """No silent fallback: the per-item terms handle every kind."""
    raw_a, raw_b, human = matrices(kind, seed=KINDS.index(kind))
    a, b = swapped_scores(raw_a, raw_b, human, level, coefficient)
    swap = draw_swaps(np.random.default_rng(2), "items", 100, a.shape)
    entry = registry.coefficient(coefficient)
    fast = permutation_terms.swapped_differences(a, b, human, level, entry, swap)
    assert fast is not None
    assert_same(fast, recomputed(a, b, human, level, coefficient, swap), coefficient)


def test_rank_coefficients_refuse_scores_that_are_not_tie_codes() -> None:
    """Swapped cells of raw floats would need the tie rule per resample (a chain can lose
    its bridge): the path takes the test's codes only."""
    a, b, human = matrices("chains", seed=4)
    swap = draw_swaps(np.random.default_rng(3), "items", 10, a.shape)
    with pytest.raises(ValueError, match="tie_codes"):
        permuted_differences(a, b, human, "global", "kendall", swap)


@pytest.mark.parametrize("coefficient", COEFFICIENTS)
@pytest.mark.parametrize(
    ("level", "shape", "unit"),
    [
        ("global", (1, 360), "items"),
        ("summary", (16, 100), "inputs"),
        ("summary", (16, 100), "items"),
        ("system", (16, 100), "systems"),
    ],
)
def test_real_shapes(coefficient, level, shape, unit) -> None:
    """Topical-Chat's (one row of 360 items, 1-3 human means) and SummEval's shapes."""
    rng = np.random.default_rng(5)
    human = rng.integers(3, 10, shape) / 3.0
    replies = np.clip(np.rint(human[..., None] + rng.normal(0, 1, (*shape, 20))), 1, 3)
    judge = replies.mean(axis=-1)  # G-Eval-like: many ties
    other = np.where(
        rng.random(shape) < 0.5, 10.0 ** rng.uniform(-17, -9, shape), rng.uniform(0, 0.4, shape)
    )  # BLEU-like
    a, b = swapped_scores(judge, other, human, level, coefficient)
    swap = draw_swaps(np.random.default_rng(6), unit, 100, shape)
    fast = permuted_differences(a, b, human, level, coefficient, swap)
    assert_same(fast, recomputed(a, b, human, level, coefficient, swap), coefficient)


@pytest.mark.parametrize("unit", UNITS)
@pytest.mark.parametrize("level", LEVELS)
def test_the_test_draws_the_documented_masks(level, unit) -> None:
    """paired_permutation_test: the statistic from the raw scores, the distribution from
    the documented draws of ``default_rng(seed).random(...) < 0.5`` (systems before inputs),
    recomputed on the standardized scores (Pearson, and every coefficient at the system
    level) or on the reference codes of the rank coefficients' ties."""
    rng = np.random.default_rng(7)
    human = rng.integers(1, 6, (5, 12)) / 1.0
    metric_a = np.round(human + rng.normal(0, 1, human.shape), 1)
    metric_b = np.round(human + rng.normal(0, 2, human.shape), 1)
    metric_b[0, :4] = 10.0 ** -np.arange(12, 16)  # raw-distinct, near-ties once standardized
    for coefficient in COEFFICIENTS:
        result = paired_permutation_test(
            metric_a, metric_b, human, level, coefficient, n_resamples=80, seed=11, unit=unit
        )
        swap = draw_swaps(np.random.default_rng(11), unit, 80, metric_a.shape)
        observed = (
            correlate_batch(metric_a, human, level, coefficient).value
            - correlate_batch(metric_b, human, level, coefficient).value
        )
        assert result.statistic == float(observed)  # the same float
        if coefficient == "pearson" or level == "system":
            a, b = standardized(metric_a), standardized(metric_b)
        else:
            a, b = reference_codes(metric_a, metric_b, level)
        assert_same(
            result.distribution, recomputed(a, b, human, level, coefficient, swap), coefficient
        )


def test_groups_too_large_for_kendalls_forms_are_recomputed(monkeypatch) -> None:
    raw_a, raw_b, human = matrices("ties", seed=8, shape=(1, 40))
    a, b = tie_codes(raw_a, raw_b, human, "global")
    swap = draw_swaps(np.random.default_rng(9), "items", 50, a.shape)
    monkeypatch.setattr(swapped_sums, "FORM_MAX_ITEMS", 30)
    kendall, spearman = registry.coefficient("kendall"), registry.coefficient("spearman")
    assert permutation_terms.swapped_differences(a, b, human, "global", kendall, swap) is None
    assert permutation_terms.swapped_differences(a, b, human, "global", spearman, swap) is not None
    for coefficient in ("spearman", "kendall"):
        fast = permuted_differences(a, b, human, "global", coefficient, swap)
        assert_same(fast, recomputed(a, b, human, "global", coefficient, swap), coefficient)


def test_system_sums_only_for_the_coefficients_whose_entry_allows_them() -> None:
    a, b, human = matrices("ties", seed=10)
    swap = draw_swaps(np.random.default_rng(10), "inputs", 50, a.shape)
    assert _system_differences(a, b, human, registry.coefficient("spearman"), swap) is None
    assert _system_differences(a, b, human, registry.coefficient("pearson"), swap) is not None


def test_wide_integers_where_narrow_ones_could_overflow(monkeypatch) -> None:
    """Kendall's forms in float64 and Spearman's sums in int64 give the same values."""
    raw_a, raw_b, human = matrices("missing", seed=12)
    a, b = tie_codes(raw_a, raw_b, human, "global")
    swap = draw_swaps(np.random.default_rng(12), "items", 60, a.shape)
    monkeypatch.setattr(swapped_sums, "FLOAT32_EXACT", 8)
    monkeypatch.setattr(swapped_sums, "INT32_LIMIT", 8)
    for coefficient in ("spearman", "kendall"):
        entry = registry.coefficient(coefficient)
        fast = permutation_terms.swapped_differences(a, b, human, "global", entry, swap)
        assert_same(fast, recomputed(a, b, human, "global", coefficient, swap), coefficient)


def brute_force_form(labels_a, labels_b, weights, swaps):
    """sum_{i != j} W_ij sign(x'_i - x'_j) for every group and resample, by loops."""
    n_groups, n_resamples, _ = swaps.shape
    out = np.zeros((n_groups, n_resamples))
    for g, r in itertools.product(range(n_groups), range(n_resamples)):
        x = np.where(swaps[g, r], labels_b[g], labels_a[g])
        out[g, r] = (weights[g] * np.sign(x[:, None] - x[None, :])).sum()
    return out


def test_sign_forms_equal_brute_force_sums() -> None:
    rng = np.random.default_rng(13)
    labels_a = rng.integers(0, 6, (3, 9))
    labels_b = np.where(rng.random((3, 9)) < 0.3, labels_a, rng.integers(0, 6, (3, 9)))
    upper = np.triu(rng.integers(-5, 6, (3, 9, 9)), 1)
    weights = upper - upper.transpose(0, 2, 1)
    swaps = rng.random((3, 40, 9)) < 0.5
    form = sign_form(labels_a, labels_b, weights)
    for_a, for_b = evaluate_form(form, swaps)
    np.testing.assert_array_equal(for_a, brute_force_form(labels_a, labels_b, weights, swaps))
    np.testing.assert_array_equal(for_b, brute_force_form(labels_a, labels_b, weights, ~swaps))


def test_spearman_sums_equal_brute_force_ranks() -> None:
    """8 Sxy and the ties' sum (t^3 - t) of every group and resample, from sorted ranks."""
    rng = np.random.default_rng(16)
    labels_a = rng.integers(0, 6, (3, 10))
    labels_b = np.where(rng.random((3, 10)) < 0.3, labels_a, rng.integers(0, 6, (3, 10)))
    complete = rng.random((3, 10)) < 0.85
    human = rng.integers(0, 4, (3, 10))
    centred = np.zeros((3, 10), dtype=int)
    for g in range(3):
        y = human[g, complete[g]]
        centred[g, complete[g]] = np.sign(y[:, None] - y[None, :]).sum(axis=1)
    swaps = rng.random((3, 25, 10)) < 0.5
    sums = spearman_sums(label_counts(labels_a, labels_b, complete, centred), swaps)
    for (pairs, ties), picked in zip(sums, (swaps, ~swaps), strict=True):
        for g, r in itertools.product(range(3), range(25)):
            x = np.where(picked[g, r], labels_b[g], labels_a[g])[complete[g]]
            ranks = stats.rankdata(x)  # average ranks
            xc = ranks - ranks.mean()
            assert pairs[g, r] == 8 * (xc * centred[g, complete[g]] / 2).sum()
            counts = np.unique(x, return_counts=True)[1]
            assert ties[g, r] == (counts**3 - counts).sum()


def test_shared_counts_equal_brute_force_counts() -> None:
    rng = np.random.default_rng(14)
    labels_a = rng.integers(0, 5, (2, 8))
    labels_b = rng.integers(0, 5, (2, 8))
    complete = rng.random((2, 8)) < 0.8
    swaps = rng.random((2, 30, 8)) < 0.5
    for_a, for_b = shared_counts(shared_labels(labels_a, labels_b, complete), swaps)
    for picked, counts in ((swaps, for_a), (~swaps, for_b)):
        for g, r in itertools.product(range(2), range(30)):
            x = np.where(picked[g, r], labels_b[g], labels_a[g])[complete[g]]
            want = np.bincount(x, minlength=5)
            shared = sorted(set(np.unique(x)) & set(np.flatnonzero(want >= 2)))
            got = counts[g, r]
            assert sorted(got[got >= 2].astype(int)) == sorted(want[shared])  # tied groups
            assert (got * (got - 1)).sum() == (want * (want - 1)).sum()


def test_labels_order_and_tie_like_the_pooled_scores() -> None:
    rng = np.random.default_rng(15)
    a = rng.integers(0, 8, (3, 12)).astype(float)
    b = rng.integers(0, 8, (3, 12)).astype(float)
    a[0, 0] = b[0, 0] = np.nan
    labels_a, labels_b = labels(a, b)
    for g in range(3):
        pooled = np.concatenate([a[g], b[g]])
        pooled_labels = np.concatenate([labels_a[g], labels_b[g]])
        present = ~np.isnan(pooled)
        x, lab = pooled[present], pooled_labels[present]
        np.testing.assert_array_equal(
            np.sign(x[:, None] - x[None, :]), np.sign(lab[:, None] - lab[None, :])
        )
