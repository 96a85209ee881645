"""Pearson r, Spearman rho and Kendall tau-b, row-wise over the last axis of batched arrays.

Every function takes two arrays ``x`` and ``y`` of the same shape ``(..., n)`` and returns
one coefficient per row, shape ``(...)``. Any leading batch shape works, e.g.
``(n_resamples, n_inputs, n_systems)`` correlates every input of every resample at once.

Missing values are NaN. A row uses only its complete pairs (positions where both ``x`` and
``y`` are present), as ``scipy.stats`` would on the filtered vectors. ``+-inf`` is rejected.

Ties follow ``scipy.stats`` exactly: two values are tied only when they are equal.
:func:`collapse_near_ties` turns values closer than a tolerance into exact ties first; the
levels of :mod:`geval_repro.stats.levels` do that for the rank coefficients. A row is NaN
when it has fewer than two complete pairs or when either vector is constant over them
(scipy also returns NaN there).

Formulas, over the complete pairs of a row:

- Pearson: ``r = sum(xc * yc) / sqrt(sum(xc**2) * sum(yc**2))`` with ``xc = x - mean(x)``.
- Spearman: Pearson r of the average ranks (tied values share the mean of their ranks).
- Kendall tau-b: ``sum_{i<j} sx_ij * sy_ij / sqrt(sum sx_ij**2 * sum sy_ij**2)`` with
  ``sx_ij = sign(x_i - x_j)``: the numerator is concordant minus discordant pairs, the
  denominator ``sqrt((n0 - n1) (n0 - n2))`` with ``n1``/``n2`` the pairs tied in x/y.

All three equal ``scipy.stats.pearsonr`` / ``spearmanr`` / ``kendalltau`` (tau-b) to 1e-12.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

COEFFICIENTS = ("pearson", "spearman", "kendall")


def _paired(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate ``x``/``y`` and return them as float arrays with their complete-pair mask."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    if x.shape != y.shape:
        raise ValueError(f"x and y must have the same shape, got {x.shape} and {y.shape}")
    if x.ndim == 0 or x.shape[-1] == 0:
        raise ValueError(f"x and y need a non-empty last axis to correlate over, got {x.shape}")
    if np.isinf(x).any() or np.isinf(y).any():
        raise ValueError("scores must be finite or NaN (missing); found +-inf: fix the scores")
    present = ~(np.isnan(x) | np.isnan(y))
    return x, y, present


def _constant(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Rows whose present values are all equal (exact equality, as scipy tests it)."""
    high = np.where(present, values, -np.inf).max(axis=-1)
    low = np.where(present, values, np.inf).min(axis=-1)
    return high == low


def _pearson_masked(x: np.ndarray, y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Pearson r per row over the ``present`` positions (no validation)."""
    n = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.where(present, x, 0.0).sum(axis=-1, keepdims=True) / n[..., None]
        mean_y = np.where(present, y, 0.0).sum(axis=-1, keepdims=True) / n[..., None]
        xc = np.where(present, x - mean_x, 0.0)
        yc = np.where(present, y - mean_y, 0.0)
        r = (xc * yc).sum(axis=-1) / (
            np.sqrt((xc * xc).sum(axis=-1)) * np.sqrt((yc * yc).sum(axis=-1))
        )
    undefined = (n < 2) | _constant(x, present) | _constant(y, present)
    return np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))


def average_ranks(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """1-based average ranks along the last axis among the ``present`` positions.

    Tied values share the mean of the ranks they span (``scipy.stats.rankdata``'s
    ``method="average"``); positions not present get NaN. ``values`` must be finite where
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


def collapse_near_ties(values: np.ndarray, rtol: float) -> np.ndarray:
    """Merge values that differ by less than ``rtol`` relative to their size into exact ties.

    Sorted values are split into clusters wherever consecutive values ``a <= b`` satisfy
    ``b - a >= rtol * max(|a|, |b|)``; every value takes its cluster's smallest value. NaN
    stays NaN. The tolerance is relative so that scores on a tiny scale (sentence BLEU of
    1e-17 to 1e-6 carries a real ranking) keep their order, while values that are equal in
    exact arithmetic but reached along different floating-point paths (a few ulps apart)
    tie. Values already exactly tied or far apart are returned unchanged.
    """
    order = np.argsort(values, axis=-1, kind="stable")  # NaN sorts last
    ordered = np.take_along_axis(values, order, axis=-1)
    starts = np.ones(ordered.shape, dtype=bool)
    gap = ordered[..., 1:] - ordered[..., :-1]
    scale = np.maximum(np.abs(ordered[..., 1:]), np.abs(ordered[..., :-1]))
    starts[..., 1:] = ~(gap < rtol * scale)
    position = np.broadcast_to(np.arange(ordered.shape[-1]), ordered.shape)
    first = np.maximum.accumulate(np.where(starts, position, 0), axis=-1)
    collapsed = np.empty(ordered.shape)
    np.put_along_axis(collapsed, order, np.take_along_axis(ordered, first, axis=-1), axis=-1)
    return collapsed


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of ``x`` and ``y`` per row (last axis); see the module docstring."""
    x, y, present = _paired(x, y)
    return _pearson_masked(x, y, present)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman rho (Pearson r of average ranks) per row (last axis)."""
    x, y, present = _paired(x, y)
    return _pearson_masked(average_ranks(x, present), average_ranks(y, present), present)


def _kendall_terms_by_offsets(
    x: np.ndarray, y: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concordant - discordant, untied-in-x, untied-in-y) pair counts per row.

    Pair signs are accumulated one offset ``k = j - i`` at a time, vectorized over all rows
    and all ``i``: ``n - 1`` numpy steps of ``O(rows * n)`` work each.
    """
    complete = bool(present.all())
    concordance = np.zeros(x.shape[:-1])
    untied_x = np.zeros(x.shape[:-1])
    untied_y = np.zeros(x.shape[:-1])
    for k in range(1, x.shape[-1]):
        sign_x = np.sign(x[..., k:] - x[..., :-k])
        sign_y = np.sign(y[..., k:] - y[..., :-k])
        if not complete:
            both = present[..., k:] & present[..., :-k]
            sign_x = np.where(both, sign_x, 0.0)
            sign_y = np.where(both, sign_y, 0.0)
        concordance += (sign_x * sign_y).sum(axis=-1)
        untied_x += np.abs(sign_x).sum(axis=-1)
        untied_y += np.abs(sign_y).sum(axis=-1)
    return concordance, untied_x, untied_y


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


def _kendall_terms_from_table(
    rank_x: np.ndarray, rank_y: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The pair counts of :func:`_kendall_terms_by_offsets` from contingency tables.

    For 2-D inputs ``(rows, n)`` of dense ranks: ``C[r, a, b]`` counts the complete pairs of
    row ``r`` with x-rank ``a`` and y-rank ``b``. Concordant minus discordant pairs is
    ``sum C[a, b] * (#{a' > a, b' > b} - #{a' > a, b' < b})``; the pairs tied in x are
    ``sum_a C[a, :].sum() choose 2``. Work ``O(rows * distinct_x * distinct_y)``, exact
    integer arithmetic.
    """
    rows = rank_x.shape[0]
    size_x = int(rank_x.max()) + 1
    size_y = int(rank_y.max()) + 1
    cell = (np.arange(rows)[:, None] * size_x + rank_x) * size_y + rank_y
    table = np.bincount(cell[present], minlength=rows * size_x * size_y)
    table = table.reshape(rows, size_x, size_y)
    above_x = np.cumsum(table[:, ::-1], axis=1)[:, ::-1] - table  # items with a' > a
    above_both = np.cumsum(above_x[:, :, ::-1], axis=2)[:, :, ::-1] - above_x  # b' > b
    above_x_below_y = np.cumsum(above_x, axis=2) - above_x  # a' > a, b' < b
    concordance = (table * (above_both - above_x_below_y)).sum(axis=(1, 2))
    n = table.sum(axis=(1, 2))
    count_x = table.sum(axis=2)
    count_y = table.sum(axis=1)
    all_pairs = n * (n - 1) // 2
    untied_x = all_pairs - (count_x * (count_x - 1) // 2).sum(axis=1)
    untied_y = all_pairs - (count_y * (count_y - 1) // 2).sum(axis=1)
    return concordance.astype(float), untied_x.astype(float), untied_y.astype(float)


TABLE_MIN_LENGTH = 64  # rows at least this long may use contingency tables for Kendall
#: Contingency-table cells per numpy batch: cache-sized (512 KB of int64), so the cumulative
#: sums over a batch stay in the core's cache (1.5-2x faster than 2**22 cells on the run's
#: shapes: perf/time_batches.py).
TABLE_CELLS_PER_BLOCK = 2**16


def _kendall_terms_by_table(
    x: np.ndarray, y: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Kendall pair counts via contingency tables when that is cheaper, else None.

    Tables cost ``rows * distinct_x * distinct_y`` against ``rows * n**2 / 2`` for pair
    offsets, so they win when either vector has few distinct values (human ratings on a
    1-5 scale, binary judgements), as at the global level of every benchmark here.
    """
    n = x.shape[-1]
    rank_x = dense_ranks(x, present).reshape(-1, n)
    rank_y = dense_ranks(y, present).reshape(-1, n)
    if 2 * (int(rank_x.max()) + 1) * (int(rank_y.max()) + 1) > n * n:
        return None
    terms = kendall_terms_from_ranks(rank_x, rank_y, present.reshape(-1, n))
    return tuple(term.reshape(x.shape[:-1]) for term in terms)


def kendall_terms_from_ranks(
    rank_x: np.ndarray, rank_y: np.ndarray, present: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concordant - discordant, untied-in-x, untied-in-y) complete pairs per row of
    ``(rows, n)`` integer ranks, as floats, from contingency tables in blocks of rows.

    Ranks are any non-negative labels that order like the values (equal values, equal
    labels; gaps allowed) wherever ``present``; elsewhere they are ignored. Exact.
    """
    cells_per_row = (int(rank_x.max()) + 1) * (int(rank_y.max()) + 1)
    block = max(1, TABLE_CELLS_PER_BLOCK // cells_per_row)
    parts = [
        _kendall_terms_from_table(
            rank_x[start : start + block],
            rank_y[start : start + block],
            present[start : start + block],
        )
        for start in range(0, rank_x.shape[0], block)
    ]
    return tuple(np.concatenate(part) for part in zip(*parts, strict=True))


def _tau_b(concordance: np.ndarray, untied_x: np.ndarray, untied_y: np.ndarray) -> np.ndarray:
    """``concordance / sqrt(untied_x * untied_y)``, NaN when either vector is all ties."""
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = concordance / (np.sqrt(untied_x, dtype=float) * np.sqrt(untied_y, dtype=float))
    undefined = (untied_x == 0) | (untied_y == 0)
    return np.where(undefined, np.nan, np.minimum(np.maximum(tau, -1.0), 1.0))


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall tau-b per row (last axis).

    ``tau_b = (concordant - discordant) / sqrt(untied_x * untied_y)`` over the complete
    pairs. Short rows accumulate pair signs by offset; rows of length >= 64 use contingency
    tables of dense ranks when either vector has few distinct values. Both are exact.
    """
    x, y, present = _paired(x, y)
    terms = None
    if x.shape[-1] >= TABLE_MIN_LENGTH:
        terms = _kendall_terms_by_table(x, y, present)
    if terms is None:
        terms = _kendall_terms_by_offsets(x, y, present)
    return _tau_b(*terms)


_ROW_FUNCTIONS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "pearson": pearson_rows,
    "spearman": spearman_rows,
    "kendall": kendall_rows,
}


def row_function(coefficient: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    """The row-wise function for ``coefficient`` (one of :data:`COEFFICIENTS`)."""
    if coefficient not in _ROW_FUNCTIONS:
        raise ValueError(f"unknown coefficient {coefficient!r}: use one of {COEFFICIENTS}")
    return _ROW_FUNCTIONS[coefficient]
