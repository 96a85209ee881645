"""The one tie rule: when two scores count as equal, for every statistic of the package.

A level compares vectors of scores: each input's systems (summary level), the systems'
means (system level), every complete cell pooled (global level). Within one such vector,
over the values of its complete pairs (metric and human both present), two values tie when
they fall in one *cluster*: sorted, neighbours ``a <= b`` join one cluster when ``a == b``
or ``b - a < RTOL * max(|a|, |b|)`` (``RTOL`` = 1e-9), and the joins chain.

Why relative, and why 1e-9: mathematically equal scores reached along different
floating-point paths (the means of averaged ratings, summed in another order) differ by a
few units in the last place and must tie, as they do in exact arithmetic, instead of being
ordered by rounding error; scores on a tiny scale carry a real order and must not tie
(Topical-Chat's sentence BLEU-4 runs from 1e-17 to 0.4: half of its 300 scores lie below
1e-9, and an absolute tolerance ``|a - b| < 1e-9`` would tie them all). On exactly
represented scores the rule is plain equality, as ``scipy.stats`` has it.

Who reads it: Spearman's and Kendall's ranks (:func:`collapse_near_ties` merges each
cluster into one value first), the constant-vector rule of every coefficient (a vector is
constant when its values form one cluster: :func:`constant`), tie rates, and the pairwise
accuracies (the humans tie a pair, and the metric ties it at threshold 0, when its two
values tie). A metric's tie threshold ``epsilon`` of ``acc*_eq`` widens the metric's ties
to differences up to ``epsilon`` (:mod:`geval_repro.stats.accuracy`).

A cluster can chain values that are not near each other (each near the next); such a
*loose* cluster may split in a subset of the vector (a bootstrap resample that drops the
value bridging it). Paths that merge ties once for many subsets check
:func:`stable_clusters` first and otherwise merge every subset on its own.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

RTOL = 1e-9


def _neighbours_tie(low: np.ndarray, high: np.ndarray, rtol: float = RTOL) -> np.ndarray:
    """Whether sorted neighbours ``low <= high`` join one cluster (NaN never does)."""
    scale = np.maximum(np.abs(low), np.abs(high))
    return (high == low) | (high - low < rtol * scale)


def collapse_near_ties(values: np.ndarray, rtol: float = RTOL) -> np.ndarray:
    """``values`` with each cluster along the last axis merged into its smallest value.

    Every value takes the smallest value of its cluster (module docstring); NaN stays NaN.
    Values already exactly tied or far apart are returned unchanged.
    """
    order = np.argsort(values, axis=-1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(values, order, axis=-1)
    starts = np.ones(ordered.shape, dtype=bool)
    starts[..., 1:] = ~_neighbours_tie(ordered[..., :-1], ordered[..., 1:], rtol)
    position = np.broadcast_to(np.arange(ordered.shape[-1]), ordered.shape)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    collapsed = np.empty(ordered.shape)
    np.put_along_axis(collapsed, order, np.take_along_axis(ordered, first, axis=-1), axis=-1)
    return collapsed


def has_near_ties(values: np.ndarray) -> bool:
    """Whether some column of ``(..., n, m)`` values holds two present values that differ by
    more than 0 and less than ``RTOL`` times the largest magnitude in ``values`` (only then
    can merging change a column: a pair that close has, between its two values, a pair of
    sorted neighbours that differ by more than 0 and no more)."""
    ordered = np.sort(np.swapaxes(values, -1, -2), axis=-1)  # NaN sorts last
    gaps = ordered[..., 1:] - ordered[..., :-1]  # NaN where a value is missing
    threshold = RTOL * np.fmax.reduce(np.abs(values), axis=None)  # NaN if nothing present
    return bool(((gaps > 0) & (gaps < threshold)).any())


def merged_columns(values: np.ndarray) -> np.ndarray:
    """``values`` ``(..., n, m)`` with the clusters of each column merged (``values`` itself
    when :func:`has_near_ties` finds nothing to merge)."""
    if has_near_ties(values):
        return np.swapaxes(collapse_near_ties(np.swapaxes(values, -1, -2)), -1, -2)
    return values


def constant(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Rows (last axis) whose ``present`` values form at most one cluster.

    Cheap bounds decide most rows: a span of 0 is one cluster; a span of at least ``n - 1``
    times ``RTOL`` times the larger magnitude of the ends leaves some gap untied. The rows
    in between are sorted and their gaps tested.
    """
    high = np.max(values, axis=-1, where=present, initial=-np.inf)
    low = np.min(values, axis=-1, where=present, initial=np.inf)
    span = high - low  # -inf for a row with no value
    varies = span > 0
    out = np.array(~varies)  # an array also for one row (0-d)
    if values.shape[-1] < 2:
        return out
    far = np.maximum(-low, high)  # max(|low|, |high|), as low <= high
    unsure = varies & (span < (values.shape[-1] - 1) * (1 + 1e-6) * RTOL * far)
    if unsure.any():
        rows = np.sort(np.where(present, values, np.nan)[unsure], axis=-1)
        joined = _neighbours_tie(rows[..., :-1], rows[..., 1:]) | np.isnan(rows[..., 1:])
        out[unsure] = joined.all(axis=-1)
    return out


class StableCodes(NamedTuple):
    """A vector's values coded by their clusters, valid for every subset of it.

    ``distinct``: the sorted distinct values; ``codes``: each value's index among them;
    ``groups``: each value's cluster number (0, 1, ... ascending).
    """

    distinct: np.ndarray
    codes: np.ndarray
    groups: np.ndarray


def stable_clusters(values: np.ndarray) -> StableCodes | None:
    """The :class:`StableCodes` of a 1-D vector of finite values, or None when a subset of
    it could cluster otherwise than the whole.

    Every subset clusters as the whole when each cluster is tight (``max - min < RTOL
    min(|min|, |max|) / 2``: any two of its values are near-tied, no chain needed) and
    neighbouring clusters are far apart (a gap of at least twice the tolerance: two of
    their values drawn next to each other do not tie); the factors 2 absorb rounding.
    """
    distinct = np.unique(values)
    gap = distinct[1:] - distinct[:-1]
    scale = np.maximum(np.abs(distinct[1:]), np.abs(distinct[:-1]))
    near = gap < RTOL * scale  # the test of collapse_near_ties
    if (~near & (gap < 2 * RTOL * scale)).any():
        return None
    starts = np.concatenate([[True], ~near])
    group = np.cumsum(starts) - 1
    low = distinct[starts]
    high = distinct[np.concatenate([starts[1:], [True]])]
    if (high - low >= RTOL * np.minimum(np.abs(low), np.abs(high)) / 2)[high > low].any():
        return None
    codes = np.searchsorted(distinct, values)
    return StableCodes(distinct, codes, group[codes])
