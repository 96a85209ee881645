"""Partial Spearman and split-half reliability (geval_repro.stats.biases) against
independent computations: the residuals of ranks regressed on the third variable, scipy's
Spearman on the halves by hand, and the Spearman-Brown formula by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from geval_repro.stats.biases import partial_spearman, spearman_brown, split_half


def test_partial_spearman_equals_the_residuals_correlation() -> None:
    rng = np.random.default_rng(0)
    z = rng.normal(size=200)
    x = z + rng.normal(size=200)
    y = 0.5 * z + x + rng.normal(size=200)
    ranks = [scipy_stats.rankdata(v) for v in (x, y, z)]
    design = np.column_stack([np.ones(200), ranks[2]])
    residuals = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in ranks[:2]]
    expected = np.corrcoef(*residuals)[0, 1]
    assert partial_spearman(x, y, z) == pytest.approx(expected)


def test_partial_spearman_edge_cases() -> None:
    assert math.isnan(partial_spearman([1, 2], [1, 2], [1, 2]))
    assert math.isnan(partial_spearman([1, 2, 3, 4], [4, 1, 3, 2], [5, 5, 5, 5]))


def test_split_half_by_hand() -> None:
    scores = np.array(
        [[1, 2, 1, 2], [3, 3, 4, 4], [5, 4, 5, 5], [2, 2, 2, np.nan], [4, np.nan, np.nan, np.nan]],
        dtype=float,
    )
    r, corrected, n = split_half(scores)
    even = [1, 3.5, 5, 2]
    odd = [2, 3.5, 4.5, 2]
    expected = scipy_stats.spearmanr(even, odd).statistic
    assert n == 4 and r == pytest.approx(expected)
    assert corrected == pytest.approx(2 * expected / (1 + expected))
    assert spearman_brown(0.5) == pytest.approx(2 / 3)
