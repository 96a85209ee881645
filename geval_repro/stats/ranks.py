"""Ranks along the last axis among the present positions: average ranks (Spearman's,
``scipy.stats.rankdata(method="average")``) and dense ranks (integer codes that order and
tie like the values, for contingency tables).

Both compare values exactly: merge ties by the tie rule first
(:func:`geval_repro.stats.tie_rule.collapse_near_ties`) where the rule applies.
"""

from __future__ import annotations

import numpy as np


def average_ranks(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """1-based average ranks along the last axis among the ``present`` positions.

    Tied values share the mean of the ranks they span, ``(first + last) / 2 + 1`` of their
    run of sorted positions; positions not present get NaN. ``values`` must be finite where
    present.
    """
    n = values.shape[-1]
    keyed = np.where(present, values, np.inf)  # missing positions sort last
    order = np.argsort(keyed, axis=-1, kind="stable")
    ordered = np.take_along_axis(keyed, order, axis=-1)
    position = np.broadcast_to(np.arange(n), ordered.shape)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ends = np.ones(ordered.shape, dtype=bool)
    ends[..., :-1] = starts[..., 1:]
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    last = np.minimum.accumulate(np.where(ends, position, n - 1)[..., ::-1], axis=-1)[..., ::-1]
    ranks = np.empty(ordered.shape)
    np.put_along_axis(ranks, order, (first + last) / 2.0 + 1.0, axis=-1)
    return np.where(present, ranks, np.nan)


def average_ranks_of_codes(codes: np.ndarray, present: np.ndarray) -> np.ndarray:
    """:func:`average_ranks` of non-negative integer ``codes`` ``(rows, n)`` (equal codes,
    tied values) from each row's count per code, without sorting: a code held by ``k``
    present positions after ``s`` positions of smaller codes spans sorted positions ``s ..
    s + k - 1`` and gets ``(s + (s + k - 1)) / 2 + 1``, the same float."""
    rows = codes.shape[0]
    size = int(codes.max(initial=0)) + 1
    cell = np.where(present, codes, size) + (np.arange(rows) * (size + 1))[:, None]
    counts = np.bincount(cell.ravel(), minlength=rows * (size + 1)).reshape(rows, size + 1)
    before = np.cumsum(counts, axis=-1) - counts
    by_code = (before + (before + counts - 1)) / 2.0 + 1.0
    ranks = np.take_along_axis(by_code, np.where(present, codes, size), axis=-1)
    return np.where(present, ranks, np.nan)


def dense_ranks(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """0-based dense ranks along the last axis (missing positions share the top rank)."""
    keyed = np.where(present, values, np.inf)
    order = np.argsort(keyed, axis=-1, kind="stable")
    ordered = np.take_along_axis(keyed, order, axis=-1)
    starts = np.zeros(ordered.shape, dtype=np.int64)
    starts[..., 1:] = ordered[..., 1:] != ordered[..., :-1]
    ranks = np.empty(ordered.shape, dtype=np.int64)
    np.put_along_axis(ranks, order, np.cumsum(starts, axis=-1), axis=-1)
    return ranks
