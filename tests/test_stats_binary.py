"""Binary-label statistics (ROC AUC, balanced accuracy, the fitted threshold, the document
bootstrap's weights) against independent values: scipy's Mann-Whitney U, a brute-force
count over every positive x negative pair, brute-force thresholds, and a hand-computed
example. scikit-learn is not installed here (not in requirements.lock), so its
roc_auc_score and balanced_accuracy_score are not used."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from geval_repro.stats.binary import (
    balanced_accuracy,
    document_weights,
    fit_threshold,
    roc_auc,
)
from geval_repro.stats.registry import BINARY_STATISTICS, binary_statistic

# Hand example: scores and labels (1 = consistent).
SCORES = np.array([0.1, 0.4, 0.4, 0.35, 0.8, 0.9])
LABELS = np.array([0, 0, 1, 1, 0, 1])


def test_hand_computed_example() -> None:
    # Positives 0.4, 0.35, 0.9; negatives 0.1, 0.4, 0.8. Pairs (pos, neg) won:
    # 0.4: beats 0.1, ties 0.4, loses 0.8 -> 1.5; 0.35: beats 0.1 -> 1; 0.9: beats all -> 3.
    # AUC = 5.5 / 9.
    assert roc_auc(SCORES, LABELS, np.ones((1, 6)))[0] == pytest.approx(5.5 / 9)
    # Threshold 0.35: predicted positive 0.4, 0.4, 0.35, 0.8, 0.9; TPR 3/3, TNR 1/3 -> 2/3.
    assert balanced_accuracy(SCORES, LABELS, np.ones((1, 6)), 0.35)[0] == pytest.approx(2 / 3)
    # Threshold 0.85: TPR 1/3, TNR 3/3 -> 2/3; threshold 0.9 too. Candidates 0.1 .. 0.9, inf:
    # 0.1: 1/2; 0.35: 2/3; 0.4: (2/3 + 1/3)/2 = 1/2; 0.8: (1/3 + 2/3)/2 = 1/2; 0.9: 2/3;
    # inf: 1/2. The best 2/3, first reached at the lowest threshold, 0.35.
    fitted = fit_threshold(SCORES, LABELS)
    assert fitted.threshold == 0.35 and fitted.balanced_accuracy == pytest.approx(2 / 3)
    assert (fitted.n_items, fitted.n_positive) == (6, 3)


def _brute_auc(scores: np.ndarray, labels: np.ndarray) -> float:
    positives, negatives = scores[labels == 1], scores[labels == 0]
    won = sum((p > n) + 0.5 * (p == n) for p, n in itertools.product(positives, negatives))
    return won / (len(positives) * len(negatives))


@pytest.mark.parametrize("seed", range(5))
def test_auc_equals_brute_force_and_mann_whitney(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.integers(1, 6, size=60).astype(float)  # many ties, as a 1-5 judge gives
    labels = rng.integers(0, 2, size=60)
    value = roc_auc(scores, labels, np.ones((1, 60)))[0]
    assert value == pytest.approx(_brute_auc(scores, labels), abs=1e-12)
    u = stats.mannwhitneyu(scores[labels == 1], scores[labels == 0]).statistic
    assert value == pytest.approx(u / ((labels == 1).sum() * (labels == 0).sum()), abs=1e-12)


def _brute_balanced(scores: np.ndarray, labels: np.ndarray, threshold: float) -> float:
    predicted = scores >= threshold
    tpr = np.mean(predicted[labels == 1])
    tnr = np.mean(~predicted[labels == 0])
    return (tpr + tnr) / 2


@pytest.mark.parametrize("seed", range(5))
def test_threshold_is_the_lowest_best_of_every_candidate(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scores = np.round(rng.normal(size=80), 1)
    labels = (scores + rng.normal(size=80) > 0).astype(int)
    candidates = [*sorted(set(scores.tolist())), float("inf")]
    accuracies = [_brute_balanced(scores, labels, t) for t in candidates]
    best = max(accuracies)
    fitted = fit_threshold(scores, labels)
    assert fitted.balanced_accuracy == pytest.approx(best, abs=1e-12)
    assert fitted.threshold == next(
        t for t, a in zip(candidates, accuracies, strict=True) if a >= best - 1e-12
    )
    value = balanced_accuracy(scores, labels, np.ones((1, 80)), fitted.threshold)[0]
    assert value == pytest.approx(best, abs=1e-12)


def test_weights_equal_the_replicated_sample() -> None:
    # A bootstrap resample as item weights equals the statistic on the items repeated.
    rng = np.random.default_rng(3)
    documents = np.repeat(np.arange(12), 5)
    scores = rng.integers(1, 6, size=60).astype(float)
    labels = rng.integers(0, 2, size=60)
    weights = document_weights(documents, 50, np.random.default_rng(11))
    assert weights.shape == (50, 60)
    # each resample draws 12 documents of 5 items
    assert (weights.sum(axis=1) == 60).all()
    auc = roc_auc(scores, labels, weights)
    accuracy = balanced_accuracy(scores, labels, weights, 3.0)
    for row, w in enumerate(weights.astype(int)):
        s, y = np.repeat(scores, w), np.repeat(labels, w)
        if 0 < y.sum() < len(y):
            assert auc[row] == pytest.approx(_brute_auc(s, y), abs=1e-12)
            assert accuracy[row] == pytest.approx(_brute_balanced(s, y, 3.0), abs=1e-12)
    # a document's items share its weight
    assert (weights.reshape(50, 12, 5).std(axis=2) == 0).all()


def test_reference_judges() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, size=2000)
    constant = np.full(2000, 3.0)
    ones = np.ones((1, 2000))
    assert roc_auc(constant, labels, ones)[0] == 0.5
    fitted = fit_threshold(constant, labels)
    assert fitted.threshold == 3.0  # every item predicted positive
    assert balanced_accuracy(constant, labels, ones, fitted.threshold)[0] == 0.5
    random = rng.random(2000)
    assert abs(roc_auc(random, labels, ones)[0] - 0.5) < 0.05


def test_bad_input_is_refused() -> None:
    ones = np.ones((1, 6))
    with pytest.raises(ValueError, match="labels must be 0 or 1"):
        roc_auc(SCORES, np.array([0, 2, 1, 1, 0, 1]), ones)
    with pytest.raises(ValueError, match="finite score"):
        roc_auc(np.array([0.1, np.nan, 0.4, 0.35, 0.8, 0.9]), LABELS, ones)
    with pytest.raises(ValueError, match="both classes"):
        fit_threshold(SCORES, np.ones(6, dtype=int))
    with pytest.raises(ValueError, match="needs a threshold"):
        balanced_accuracy(SCORES, LABELS, ones)


def test_registry_entries() -> None:
    assert tuple(BINARY_STATISTICS) == ("roc_auc", "balanced_accuracy")
    assert binary_statistic("roc_auc").compute() is roc_auc
    assert binary_statistic("balanced_accuracy").thresholded
    with pytest.raises(ValueError, match="unknown binary-label statistic"):
        binary_statistic("f1")
