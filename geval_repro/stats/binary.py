"""Statistics of a metric's scores against binary human labels (SummEdits), vectorized over
bootstrap resamples given as item weights.

A resample of documents is a weight per item: how many times its document was drawn (the
original sample: every weight 1). Every statistic takes ``scores`` and ``labels`` of shape
``(n,)`` (label 1: the positive class, e.g. consistent) and ``weights`` of shape
``(resamples, n)`` and returns one value per resample, without a Python loop over items or
pairs.

- ROC AUC (:func:`roc_auc`): the probability that a positive item outscores a negative one,
  a tie counting one half (the Mann-Whitney U over the positive x negative pairs, divided by
  their number), each pair weighted by the product of its items' weights. It reads the
  scores' order only; a constant metric scores 0.5.
- Balanced accuracy at a threshold (:func:`balanced_accuracy`): an item is predicted
  positive when its score is at least the threshold ``t``; the value is the mean of the
  true-positive rate and the true-negative rate, (TPR + TNR) / 2 (SummEdits' metric). A
  constant metric, or one predicting every item into one class, scores 0.5.
- The threshold (:func:`fit_threshold`): of the candidates, every distinct score of the
  fitting split and +inf (nothing positive), the one that maximises the balanced accuracy on
  that split, ties to the lowest (docs/protocol.md).
"""

from __future__ import annotations

import numpy as np

from geval_repro.stats.results import FittedThreshold


def _checked(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray) -> tuple:
    """The three arrays as float scores, boolean labels and 2-d float weights; raise on a
    shape mismatch, a missing score or a label other than 0 and 1."""
    scores = np.asarray(scores, dtype=float)
    labels = np.asarray(labels)
    weights = np.atleast_2d(np.asarray(weights, dtype=float))
    if scores.ndim != 1 or labels.shape != scores.shape or weights.shape[1:] != scores.shape:
        raise ValueError(
            f"scores {scores.shape}, labels {labels.shape} and weights {weights.shape} must be "
            "(n,), (n,) and (resamples, n)"
        )
    if not np.isfinite(scores).all():
        raise ValueError("binary-label statistics need a finite score for every item")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError(f"labels must be 0 or 1, got {sorted(set(labels.tolist()) - {0, 1})}")
    return scores, labels.astype(bool), weights


def _class_weights(labels: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Total weight of the positives and of the negatives, per resample (NaN where 0)."""
    positives = weights[:, labels].sum(axis=1)
    negatives = weights[:, ~labels].sum(axis=1)
    return np.where(positives > 0, positives, np.nan), np.where(negatives > 0, negatives, np.nan)


def roc_auc(
    scores: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    threshold: float | None = None,
) -> np.ndarray:
    """ROC AUC per resample: sum over positive i, negative j of w_i w_j ([s_i > s_j] +
    [s_i = s_j] / 2), divided by (sum of positive w)(sum of negative w). From the sorted
    scores' cumulative negative weight: each positive item's weight times the negative
    weight below its tie group plus half the negative weight in it, O(resamples x n).
    ``threshold`` is unused (it reads no threshold). NaN for a resample without a positive
    or a negative."""
    scores, labels, weights = _checked(scores, labels, weights)
    order = np.argsort(scores, kind="stable")
    ordered = scores[order]
    negative = weights[:, order] * ~labels[order]  # (resamples, n), scores ascending
    # cumulative negative weight before each item's tie group and to its end
    through = np.concatenate([np.zeros((len(weights), 1)), np.cumsum(negative, axis=1)], axis=1)
    first = np.searchsorted(ordered, ordered, side="left")
    last = np.searchsorted(ordered, ordered, side="right")
    below = through[:, first]
    tied = through[:, last] - below
    positive = weights[:, order] * labels[order]
    pairs = (positive * (below + tied / 2)).sum(axis=1)
    total_positive, total_negative = _class_weights(labels, weights)
    return pairs / (total_positive * total_negative)


def balanced_accuracy(
    scores: np.ndarray,
    labels: np.ndarray,
    weights: np.ndarray,
    threshold: float | None = None,
) -> np.ndarray:
    """Balanced accuracy per resample at ``threshold`` (predicted positive: score >= it):
    (weighted TPR + weighted TNR) / 2. NaN for a resample without a positive or a negative."""
    if threshold is None:
        raise ValueError("balanced accuracy needs a threshold (fit_threshold on its split)")
    scores, labels, weights = _checked(scores, labels, weights)
    predicted = scores >= threshold
    total_positive, total_negative = _class_weights(labels, weights)
    true_positive = weights[:, labels & predicted].sum(axis=1)
    true_negative = weights[:, ~labels & ~predicted].sum(axis=1)
    return (true_positive / total_positive + true_negative / total_negative) / 2


def fit_threshold(scores: np.ndarray, labels: np.ndarray) -> FittedThreshold:
    """The threshold that maximises the balanced accuracy on these items (each weighing 1),
    ties to the lowest; the candidates are every distinct score and +inf. Every candidate's
    balanced accuracy comes from cumulative class counts over the sorted distinct scores:
    with threshold v_k, the positives predicted are those scoring v_k or more."""
    scores, labels, _ = _checked(scores, labels, np.ones((1, len(scores))))
    n_positive, n_negative = int(labels.sum()), int((~labels).sum())
    if n_positive == 0 or n_negative == 0:
        raise ValueError(
            f"a threshold needs both classes on its split, got {n_positive} positive and "
            f"{n_negative} negative items"
        )
    values, groups = np.unique(scores, return_inverse=True)
    positive = np.bincount(groups, weights=labels, minlength=len(values))
    negative = np.bincount(groups, weights=~labels, minlength=len(values))
    # candidate k < len(values): threshold values[k]; candidate len(values): +inf
    positive_at_or_above = np.append(positive[::-1].cumsum()[::-1], 0.0)
    negative_below = np.concatenate([[0.0], negative.cumsum()])
    accuracy = (positive_at_or_above / n_positive + negative_below / n_negative) / 2
    best = int(np.argmax(accuracy))  # the first maximum: the lowest threshold
    threshold = float(values[best]) if best < len(values) else float("inf")
    return FittedThreshold(
        threshold=threshold,
        balanced_accuracy=float(accuracy[best]),
        n_items=len(scores),
        n_positive=n_positive,
    )


def document_weights(
    documents: np.ndarray, n_resamples: int, rng: np.random.Generator
) -> np.ndarray:
    """Item weights of ``n_resamples`` bootstrap resamples of the distinct ``documents``
    (drawn with replacement, as many as there are; documents numbered in sorted order):
    each item weighs the number of times its document was drawn. Shape (n_resamples, n)."""
    names, codes = np.unique(np.asarray(documents), return_inverse=True)
    draws = rng.integers(0, len(names), size=(n_resamples, len(names)))
    counts = np.zeros((n_resamples, len(names)))
    np.add.at(counts, (np.arange(n_resamples)[:, None], draws), 1.0)
    return counts[:, codes]
