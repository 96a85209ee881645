"""The paired bootstrap of a difference of correlations and its power
(geval_repro.stats.power) against a brute-force bootstrap (every resampled matrix
recomputed with the same draws) and the normal-approximation formulas by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as scipy_stats

from geval_repro.stats.level import Level
from geval_repro.stats.levels import correlate
from geval_repro.stats.power import paired_difference


def _data(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    human = rng.normal(size=(6, 30))
    a = human + rng.normal(0, 0.8, size=human.shape)
    b = human + rng.normal(0, 1.5, size=human.shape)
    a[0, :4] = np.nan  # unscored cells: dropped from every matrix
    return a, b, human


def test_summary_level_matches_brute_force() -> None:
    a, b, human = _data()
    result = paired_difference(a, b, human, Level.SUMMARY, "spearman", 300, seed=5)
    kept = ~np.isnan(a)
    b, human = np.where(kept, b, np.nan), np.where(kept, human, np.nan)
    draws = np.random.default_rng(5).integers(0, 30, size=(300, 30))
    brute = np.array(
        [
            correlate(a[:, d], human[:, d], Level.SUMMARY, "spearman").value
            - correlate(b[:, d], human[:, d], Level.SUMMARY, "spearman").value
            for d in draws
        ]
    )
    assert result.ci_low == pytest.approx(np.percentile(brute, 2.5))
    assert result.ci_high == pytest.approx(np.percentile(brute, 97.5))
    assert result.se == pytest.approx(brute.std(ddof=1))
    z = scipy_stats.norm.ppf(0.975) + scipy_stats.norm.ppf(0.8)
    assert result.detectable == pytest.approx(z * brute.std(ddof=1))
    assert result.units_needed == math.ceil(30 * (z * result.se / abs(result.value)) ** 2)
    observed = (
        correlate(a, human, Level.SUMMARY, "spearman").value
        - correlate(b, human, Level.SUMMARY, "spearman").value
    )
    assert result.value == pytest.approx(observed) and result.n_units == 30


def test_global_level_matches_brute_force() -> None:
    a, b, human = _data(1)
    a, b, human = (m.reshape(1, -1) for m in (a, b, human))
    result = paired_difference(a, b, human, Level.GLOBAL, "pearson", 200, seed=2)
    keep = ~np.isnan(a[0])
    x, y, h = a[0, keep], b[0, keep], human[0, keep]
    draws = np.random.default_rng(2).integers(0, keep.sum(), size=(200, keep.sum()))
    brute = np.array([np.corrcoef(x[d], h[d])[0, 1] - np.corrcoef(y[d], h[d])[0, 1] for d in draws])
    assert result.n_units == keep.sum()
    assert result.ci_low == pytest.approx(np.percentile(brute, 2.5))
    assert result.se == pytest.approx(brute.std(ddof=1))


def test_references_are_averaged_and_equal_metrics_differ_by_nothing() -> None:
    a, b, human = _data(2)
    same = paired_difference(a, a.copy(), human, Level.SUMMARY, "kendall", 100, seed=1)
    assert same.value == 0 and same.ci_low == 0 and same.ci_high == 0
    assert same.units_needed is None
    # one reference pair (b, human) is b itself
    one = paired_difference(a, [(b, human)], human, Level.SUMMARY, "kendall", 100, seed=1)
    direct = paired_difference(a, b, human, Level.SUMMARY, "kendall", 100, seed=1)
    assert one == direct


def test_too_few_units_give_nothing() -> None:
    a, b, human = _data()
    assert paired_difference(a[:, :9], b[:, :9], human[:, :9], "summary", "spearman", 50, 0) is None
