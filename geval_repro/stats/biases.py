"""What a judge favours and how it agrees with itself: the partial Spearman correlation of a
judge with the humans once a third variable (the text's length) is partialled out, and the
split-half reliability of a judge's replies with the Spearman-Brown correction.

- ``partial_spearman(x, y, z)``: from the three Spearman correlations of the complete items,
  ``(r_xy - r_xz r_yz) / sqrt((1 - r_xz**2) (1 - r_yz**2))`` (the Pearson correlation of the
  residuals of the ranks of ``x`` and ``y`` regressed on the ranks of ``z``); NaN when ``z``
  or either of ``x``, ``y`` is constant;
- ``split_half(scores)``: ``scores`` ``(n_items, n_replies)`` of one judge (each item's
  replies in their order); the halves are the even and the odd replies, each item's mean over
  its half; ``r`` = the Spearman correlation of the two halves' means over the items, and
  ``2 r / (1 + r)`` its Spearman-Brown correction to the reliability of the mean of all the
  replies.

Matrix in, numbers out; imports nothing of the package.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats as scipy_stats

#: The fewest items a value is given on.
MIN_ITEMS = 3


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return math.nan
    return float(scipy_stats.spearmanr(x, y).statistic)


def partial_spearman(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> float:
    """The Spearman correlation of ``x`` and ``y`` with ``z`` partialled out, on the items
    where all three are present (module docstring); NaN on fewer than 3 items."""
    x, y, z = (np.asarray(v, dtype=float) for v in (x, y, z))
    keep = ~(np.isnan(x) | np.isnan(y) | np.isnan(z))
    x, y, z = x[keep], y[keep], z[keep]
    if keep.sum() < MIN_ITEMS:
        return math.nan
    r_xy, r_xz, r_yz = _spearman(x, y), _spearman(x, z), _spearman(y, z)
    denominator = math.sqrt((1 - r_xz**2) * (1 - r_yz**2)) if not math.isnan(r_xz + r_yz) else 0.0
    if denominator == 0 or math.isnan(r_xy):
        return math.nan
    return (r_xy - r_xz * r_yz) / denominator


def spearman_brown(r: float) -> float:
    """The Spearman-Brown correction of a split-half correlation to the full length."""
    return 2 * r / (1 + r) if r != -1 else math.nan


def _half_mean(part: np.ndarray) -> np.ndarray:
    """Each row's mean over its present values, NaN for a row with none."""
    present = ~np.isnan(part)
    counts = present.sum(axis=1)
    sums = np.where(present, part, 0.0).sum(axis=1)
    return np.divide(sums, counts, out=np.full(len(part), np.nan), where=counts > 0)


def split_half(scores: np.ndarray) -> tuple[float, float, int]:
    """``(r, spearman_brown(r), n_items)`` of the even against the odd replies (module
    docstring), over the items with a reply in each half; NaN on fewer than 3 items."""
    scores = np.asarray(scores, dtype=float)
    even, odd = _half_mean(scores[:, 0::2]), _half_mean(scores[:, 1::2])
    keep = ~(np.isnan(even) | np.isnan(odd))
    if keep.sum() < MIN_ITEMS:
        return math.nan, math.nan, int(keep.sum())
    r = _spearman(even[keep], odd[keep])
    return r, (spearman_brown(r) if not math.isnan(r) else math.nan), int(keep.sum())
