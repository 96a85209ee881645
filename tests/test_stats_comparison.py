"""Known answers for geval_repro.stats.comparison: pairwise accuracy with ties of binary
comparisons against hand counts and a brute force over every threshold, its bootstrap over
clusters against each written-out resample, the preferences and the ceiling by hand."""

from __future__ import annotations

import numpy as np
import pytest

from geval_repro.stats.clustered import Clusters, cluster_draws, member_indices
from geval_repro.stats.comparison import (
    accuracy_ceiling,
    bootstrap_comparisons,
    comparison_accuracy,
    metric_preferences,
)

# Five comparisons (first, second, human preference: +1 second better, -1 first, 0 tie):
FIRST = np.array([1.0, 2.0, 4.0, 1.0, 3.0])
SECOND = np.array([3.0, 2.0, 1.0, 2.0, 3.5])
PREFERENCE = np.array([1, 0, -1, -1, 0])


def brute_force(first, second, preference, calibrate: bool) -> tuple[float, float]:
    """(accuracy, threshold) from the definition: every threshold 0 and every |d|, the
    largest accuracy at the smallest threshold reaching it."""
    scored = ~(np.isnan(first) | np.isnan(second))
    d = (second - first)[scored]
    h = preference[scored]
    thresholds = sorted({0.0, *np.abs(d).tolist()}) if calibrate else [0.0]
    best = (-1.0, 0.0)
    for epsilon in thresholds:
        tied = np.abs(d) <= epsilon + 1e-12 if epsilon > 0 else np.abs(d) < 1e-9
        correct = np.where(h == 0, tied, ~tied & (np.sign(d) == h))
        if correct.mean() > best[0] + 1e-12:
            best = (float(correct.mean()), epsilon)
    return best


def test_accuracy_of_five_comparisons_by_hand() -> None:
    # threshold 0: comparisons 0, 1 and 2 right (3 disagrees; 4 is a human tie the metric
    # does not tie): 3/5. Threshold 0.5 ties comparison 4 too: 4/5, and no larger threshold
    # does better (1 ties comparison 3, still wrong; 2 ties comparison 0, wrong).
    plain = comparison_accuracy(FIRST, SECOND, PREFERENCE, calibrate=False)
    assert (plain.value, plain.epsilon, plain.n_pairs, plain.n_groups) == (0.6, 0.0, 5, 5)
    assert plain.human_tie_share == pytest.approx(0.4)
    fitted = comparison_accuracy(FIRST, SECOND, PREFERENCE, calibrate=True)
    assert (fitted.value, fitted.epsilon) == (pytest.approx(0.8), pytest.approx(0.5))


def test_accuracy_against_the_brute_force_on_random_comparisons() -> None:
    rng = np.random.default_rng(0)
    for _ in range(30):
        n = int(rng.integers(2, 40))
        first = rng.integers(1, 6, n) + rng.choice([0.0, 0.25, 0.5], n)
        second = rng.integers(1, 6, n) + rng.choice([0.0, 0.25, 0.5], n)
        first[rng.random(n) < 0.1] = np.nan  # unscored comparisons are left out
        preference = rng.integers(-1, 2, n)
        if np.isnan(first).all():
            continue
        for calibrate in (False, True):
            value, epsilon = brute_force(first, second, preference, calibrate)
            result = comparison_accuracy(first, second, preference, calibrate=calibrate)
            assert result.value == pytest.approx(value, abs=1e-12)
            assert result.epsilon == pytest.approx(epsilon, abs=1e-9)
            assert result.n_pairs == int((~np.isnan(first)).sum())


def test_bootstrap_over_clusters_equals_each_written_out_resample() -> None:
    rng = np.random.default_rng(4)
    n = 30
    first = rng.integers(1, 6, n).astype(float)
    second = rng.integers(1, 6, n).astype(float)
    second[3] = np.nan
    preference = rng.integers(-1, 2, n)
    clusters = Clusters.of(rng.integers(0, 7, n))
    draws = cluster_draws(clusters.n_clusters, 120, seed=9)
    for calibrate in (False, True):
        result = bootstrap_comparisons(
            first, second, preference, member_indices(clusters, draws), calibrate=calibrate
        )
        expected = []
        for counts in draws:
            chosen = np.concatenate(
                [
                    np.flatnonzero(clusters.index == c)
                    for c in range(clusters.n_clusters)
                    for _ in range(counts[c])
                ]
            )
            expected.append(
                brute_force(first[chosen], second[chosen], preference[chosen], calibrate)[0]
            )
        np.testing.assert_allclose(result.distribution, expected, atol=1e-12)
        low, high = np.percentile(expected, [2.5, 97.5])
        assert (result.low, result.high) == (pytest.approx(low), pytest.approx(high))
        assert result.unit == "clusters" and result.n_invalid == 0


def test_metric_preferences_tie_below_the_tolerance() -> None:
    first = np.array([1.0, 2.0, 0.3, 1.0, np.nan])
    second = np.array([2.0, 1.0, 0.1 + 0.2, 1.0 + 2e-9, 1.0])  # 0.1 + 0.2 != 0.3 in floats
    assert metric_preferences(first, second).tolist()[:4] == [1.0, -1.0, 0.0, 1.0]
    assert np.isnan(metric_preferences(first, second)[4])


def test_ceiling_by_hand() -> None:
    # pair A judged 3 times (llm, llm, tie): 2 can agree; pair B twice (writer, llm): 1;
    # pair C once: 1. Best any metric can do: 4 of 6.
    keys = np.array(["A", "A", "A", "B", "B", "C"])
    preference = np.array([1, 1, 0, -1, 1, 0])
    assert accuracy_ceiling(keys, preference) == pytest.approx(4 / 6)
    assert np.isnan(accuracy_ceiling(np.array([]), np.array([])))


def test_bad_comparisons_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\+1 \(second better\)"):
        comparison_accuracy(FIRST, SECOND, np.array([2, 0, 0, 0, 0]), calibrate=False)
    with pytest.raises(ValueError, match="one length"):
        comparison_accuracy(FIRST, SECOND[:4], PREFERENCE, calibrate=False)


def test_bootstrap_refuses_members_beyond_the_comparisons() -> None:
    members = np.array([[0, 1, 6]])  # five comparisons: 5 is the padding, 6 is out of range
    with pytest.raises(ValueError, match="members index comparison 6, but there are 5"):
        bootstrap_comparisons(FIRST, SECOND, PREFERENCE, members, calibrate=False)
