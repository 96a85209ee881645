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

The replies-per-item sweep reads many score vectors of the same items instead of many
resamples of one: :func:`roc_auc_rows` and :func:`balanced_accuracy_rows` take ``scores`` of
shape ``(rows, n)``, NaN where a row leaves an item unscored, and give one value per row;
:func:`pair_counts` gives each row's (positive, negative) pairs, tied pairs among them. All
three rest on one sort per row (:func:`tie_groups`), O(rows x n log n), as :func:`roc_auc`
does for one vector.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats.results import FittedThreshold

#: The fewest scored tested items a value rests on (fewer: no value).
MIN_ITEMS = 3


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


def _rows_checked(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``scores`` as a 2-d float array (NaN: unscored) and ``labels`` as booleans of its
    width; raise on a shape mismatch, an infinite score or a label other than 0 and 1."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    labels = np.asarray(labels)
    if scores.ndim != 2 or labels.shape != scores.shape[1:]:
        raise ValueError(f"scores {scores.shape} and labels {labels.shape} must be (rows, n), (n,)")
    if np.isinf(scores).any():
        raise ValueError("binary-label statistics need finite scores (NaN: unscored)")
    if not np.isin(labels, (0, 1)).all():
        raise ValueError(f"labels must be 0 or 1, got {sorted(set(labels.tolist()) - {0, 1})}")
    return scores, labels.astype(bool)


class TieGroups(NamedTuple):
    """Each row of scores ``(rows, n)`` sorted ascending (NaN, unscored, last), in groups of
    equal scores: per sorted position, whether it is a scored positive (``positive``),
    whether it starts a group (``starts``), the scored positives and negatives strictly
    below its group (``positive_below``,
    ``negative_below``), its group's number counted over all rows (``group``), and per group
    its scored positives and negatives (``positive_in``, ``negative_in``); per row its
    scored positives and negatives (``n_positive``, ``n_negative``). ``ordered``: the sorted
    scores."""

    ordered: np.ndarray
    positive: np.ndarray
    starts: np.ndarray
    positive_below: np.ndarray
    negative_below: np.ndarray
    group: np.ndarray
    positive_in: np.ndarray
    negative_in: np.ndarray
    n_positive: np.ndarray
    n_negative: np.ndarray


def tie_groups(scores: np.ndarray, labels: np.ndarray) -> TieGroups:
    """The :class:`TieGroups` of ``scores`` ``(rows, n)`` (NaN: unscored) with ``labels``:
    one sort per row, then cumulative counts, O(rows x n log n)."""
    scores, labels = _rows_checked(scores, labels)
    rows, width = scores.shape
    order = np.argsort(scores, axis=1, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=1)
    scored = ~np.isnan(ordered)
    positive = labels[order] & scored
    negative = ~labels[order] & scored
    starts = np.ones(ordered.shape, dtype=bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]  # NaN != NaN: each unscored apart
    group = np.cumsum(starts, axis=1) - 1 + (np.arange(rows) * width)[:, None]
    positive_before = np.cumsum(positive, axis=1) - positive  # strictly before, in order
    negative_before = np.cumsum(negative, axis=1) - negative
    first = np.zeros((2, rows * width), dtype=np.int64)  # at each group's first position
    first[0, group[starts]] = positive_before[starts]
    first[1, group[starts]] = negative_before[starts]
    flat = group.ravel()
    return TieGroups(
        ordered=ordered,
        positive=positive,
        starts=starts,
        positive_below=first[0][group],
        negative_below=first[1][group],
        group=group,
        positive_in=np.bincount(flat, weights=positive.ravel(), minlength=rows * width),
        negative_in=np.bincount(flat, weights=negative.ravel(), minlength=rows * width),
        n_positive=positive.sum(axis=1),
        n_negative=negative.sum(axis=1),
    )


def pair_counts(scores: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per row of ``scores`` ``(rows, n)`` (NaN: unscored), over the pairs of a scored
    positive item i and a scored negative item j: (wins, ties, pairs), wins the pairs with
    s_i > s_j, ties those with s_i = s_j. From :func:`tie_groups`: each positive wins over
    the negatives below its group; a group ties its positives x its negatives."""
    groups = tie_groups(scores, labels)
    rows, width = groups.ordered.shape
    wins = (groups.negative_below * groups.positive).sum(axis=1)
    ties = (groups.positive_in * groups.negative_in).reshape(rows, width).sum(axis=1)
    pairs = groups.n_positive * groups.n_negative
    return wins.astype(np.int64), ties.astype(np.int64), pairs.astype(np.int64)


def roc_auc_rows(
    scores: np.ndarray,
    labels: np.ndarray,
    fit_scores: np.ndarray | None = None,
    fit_labels: np.ndarray | None = None,
) -> np.ndarray:
    """ROC AUC of each row of ``scores`` ``(rows, n)`` over its scored items: (wins + ties /
    2) / pairs of :func:`pair_counts` (each item weighing 1, as :func:`roc_auc` with weights
    1). ``fit_scores``, ``fit_labels`` are unused (it reads no threshold). NaN for a row
    without a scored positive or negative."""
    wins, ties, pairs = pair_counts(scores, labels)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pairs > 0, (wins + ties / 2) / pairs, np.nan)


def fitted_thresholds(fit_scores: np.ndarray, fit_labels: np.ndarray) -> np.ndarray:
    """:func:`fit_threshold` of each row of ``fit_scores`` ``(rows, m)`` over its scored
    items: of the candidates (the row's distinct scores and +inf), the lowest that maximises
    the balanced accuracy (TP / P + TN / N) / 2 on the row, each candidate's from the
    positives at or above it (P minus those below its group) and the negatives below it
    (:func:`tie_groups`); NaN for a row without a scored positive or negative."""
    groups = tie_groups(fit_scores, fit_labels)
    n_positive = groups.n_positive[:, None].astype(float)
    n_negative = groups.n_negative[:, None].astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        accuracy = (
            (n_positive - groups.positive_below) / n_positive + groups.negative_below / n_negative
        ) / 2
        nothing = (0.0 / n_positive + n_negative / n_negative) / 2  # +inf: none predicted
    candidate = groups.starts & ~np.isnan(groups.ordered)
    accuracy = np.where(candidate, accuracy, -np.inf)
    accuracy = np.concatenate([accuracy, nothing], axis=1)  # ascending, +inf last
    best = np.argmax(accuracy, axis=1)  # the first maximum: the lowest threshold
    values = np.concatenate([groups.ordered, np.full((len(best), 1), np.inf)], axis=1)
    thresholds = values[np.arange(len(best)), best]
    missing = (groups.n_positive == 0) | (groups.n_negative == 0)
    return np.where(missing, np.nan, thresholds)


def balanced_accuracy_rows(
    scores: np.ndarray,
    labels: np.ndarray,
    fit_scores: np.ndarray,
    fit_labels: np.ndarray,
) -> np.ndarray:
    """Balanced accuracy of each row of ``scores`` ``(rows, n)`` over its scored items at the
    threshold :func:`fitted_thresholds` fits on the same row of ``fit_scores`` ``(rows, m)``
    (predicted positive: score >= it): (TPR + TNR) / 2. NaN for a row without a scored
    positive or negative on either side."""
    scores, labels = _rows_checked(scores, labels)
    thresholds = fitted_thresholds(fit_scores, fit_labels)
    scored = ~np.isnan(scores)
    n_positive = (scored & labels).sum(axis=1)
    n_negative = (scored & ~labels).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        predicted = scores >= thresholds[:, None]
        true_positive = (predicted & labels).sum(axis=1)
        true_negative = (~predicted & scored & ~labels).sum(axis=1)
        value = (true_positive / n_positive + true_negative / n_negative) / 2
    missing = np.isnan(thresholds) | (n_positive == 0) | (n_negative == 0)
    return np.where(missing, np.nan, value)
