"""Kendall tau-b and Spearman rho of short columns from pair signs (the summary level).

Layout: score matrices ``(..., n, m)`` (n systems, m inputs, as everywhere in
:mod:`geval_repro.stats`); each of the ``m`` columns is one vector of ``n`` values (``n`` up
to :data:`PAIRWISE_MAX_LENGTH`, e.g. 16 systems per SummEval document). For every pair of
rows ``i < j`` the sign ``s_ij = sign(v_j - v_i)`` is taken one offset ``k = j - i`` at a
time (``n - 1`` strided comparisons, no copies of the pairs), as int8, and only the terms
below are accumulated; inputs stay on the contiguous last axis, so every step is vectorized
over them and over any leading batch axes. Pairs with a missing value (NaN in either matrix)
count as neither tied nor untied (sign 0 in both).

- Kendall tau-b: ``sum s^x s^y / sqrt(sum |s^x| * sum |s^y|)`` over the complete pairs.
- Spearman rho: Pearson r of average ranks. Over the ``k`` present values of a column,
  ``rank_i = (k + 1 + S_i) / 2`` with ``S_i = sum_j sign(v_i - v_j)`` (ties share the mean
  rank, as ``scipy.stats.rankdata(method="average")``), and the mean rank is ``(k + 1) / 2``,
  so the centred rank is ``S_i / 2``. Sums of products of these half-integers are exact in
  floating point in any order, so rho is bit-identical to the sort-based ranks of
  :mod:`geval_repro.stats.coefficients`.

Near-ties: the signs are those of the values after
:func:`~geval_repro.stats.coefficients.collapse_near_ties` along each column. The collapse
changes nothing unless two present values of a column differ by more than 0 and less than
``rtol`` times the larger magnitude; it is run only when, after sorting each column, two
neighbours differ by more than 0 and less than ``rtol`` times the largest magnitude of the
whole array (a cheap test that every such pair passes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from geval_repro.stats.coefficients import collapse_near_ties

PAIRWISE_MAX_LENGTH = 32  # longer rows use the sort/offset kernels (pairs grow as n**2)


class RankTerms(NamedTuple):
    """Pair-sign terms per column, batch shape ``(...)`` of the broadcast inputs.

    ``concordance``, ``untied_x``, ``untied_y``: ``(..., m)`` int16, concordant minus
    discordant complete pairs and the complete pairs not tied in x / in y. ``rank_x``,
    ``rank_y``: ``(..., n, m)`` int8, ``S_i`` over the complete pairs (twice the centred
    average rank; 0 for a row not present). ``rank_y`` keeps the human matrix's smaller
    batch shape when nothing is missing.
    """

    concordance: np.ndarray
    untied_x: np.ndarray
    untied_y: np.ndarray
    rank_x: np.ndarray
    rank_y: np.ndarray


def has_near_ties(values: np.ndarray, rtol: float) -> bool:
    """Whether some column of ``(..., n, m)`` values holds two present values that differ by
    more than 0 and less than ``rtol`` times the largest magnitude in ``values``.

    Checked on neighbours of the sorted columns: a pair that close has, between its two
    values, a neighbouring pair that differs by more than 0 and no more.
    """
    ordered = np.sort(np.swapaxes(values, -1, -2), axis=-1)  # NaN sorts last
    gaps = ordered[..., 1:] - ordered[..., :-1]  # NaN where a value is missing
    threshold = rtol * np.fmax.reduce(np.abs(values), axis=None)  # NaN if nothing present
    return bool(((gaps > 0) & (gaps < threshold)).any())


def collapsed_columns(values: np.ndarray, rtol: float) -> np.ndarray:
    """``values`` with near-ties collapsed along each column (``values`` itself when
    :func:`has_near_ties` finds none, so the collapse would change nothing)."""
    if has_near_ties(values, rtol):
        return np.swapaxes(collapse_near_ties(np.swapaxes(values, -1, -2), rtol), -1, -2)
    return values


def _offset_signs(values: np.ndarray, k: int) -> np.ndarray:
    """``sign(v[i + k] - v[i])`` along the rows as int8 (0 when either value is NaN; integer
    codes are compared as they are)."""
    upper = values[..., k:, :]
    lower = values[..., :-k, :]
    if values.dtype.kind in "iu":
        difference = np.subtract(upper, lower)
        return np.sign(difference, out=difference).astype(np.int8, copy=False)
    return (upper > lower).view(np.int8) - (upper < lower).view(np.int8)


def _column_sums(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``sum_i a[..., i, j] * b[..., i, j]`` per column of int8 signs (``|sum| <= n - 1``)."""
    return np.einsum("...ij,...ij->...j", a, b)


def rank_terms(metric: np.ndarray, human: np.ndarray, rtol: float) -> RankTerms:
    """The :class:`RankTerms` of ``(..., n, m)`` matrices (``human`` broadcastable, e.g. one
    ``(n, m)`` matrix for a batch) after collapsing near-ties within each column.

    ``metric`` may instead hold integer *codes*: values that order exactly like the scores
    they stand for (equal codes are tied scores, and no two different scores are near-ties),
    with a negative code for a missing score. They are compared as they are (no near-tie
    check), which is cheaper than comparing floats.
    """
    if metric.dtype.kind in "iu":
        x = metric.astype(np.int16, copy=False)  # callers' codes: a few hundred levels
        missing_x = x < 0
    else:
        x = collapsed_columns(metric, rtol)
        missing_x = np.isnan(x)
    y = collapsed_columns(human, rtol)
    n = x.shape[-2]
    present = ~(missing_x | np.isnan(y))
    masked = not present.all()
    shape = np.broadcast_shapes(x.shape, y.shape)
    concordance = np.zeros(shape[:-2] + shape[-1:], dtype=np.int16)  # |sums| <= 496 (n <= 32)
    untied_x = np.zeros_like(concordance)
    untied_y = np.zeros_like(concordance)
    rank_x = np.zeros(shape, dtype=np.int8)  # |S_i| <= n - 1 <= 31
    rank_y = np.zeros(shape if masked else y.shape, dtype=np.int8)
    for k in range(1, n):
        signs_x = _offset_signs(x, k)
        signs_y = _offset_signs(y, k)
        if masked:
            complete = (present[..., k:, :] & present[..., :-k, :]).view(np.int8)
            signs_x = signs_x * complete
            signs_y = signs_y * complete
        concordance += _column_sums(signs_x, signs_y)
        untied_x += _column_sums(signs_x, signs_x)
        untied_y += _column_sums(signs_y, signs_y)
        for ranks, signs in ((rank_x, signs_x), (rank_y, signs_y)):
            ranks[..., k:, :] += signs  # v[i + k] above v[i]: +1 for the upper row
            ranks[..., :-k, :] -= signs  # and -1 for the lower one
    return RankTerms(concordance, untied_x, untied_y, rank_x, rank_y)


def spearman_from_ranks(rank_x: np.ndarray, rank_y: np.ndarray) -> np.ndarray:
    """Spearman rho per column from the ``S`` sums of :class:`RankTerms` (NaN where either
    is constant).

    The centred ranks ``S / 2`` are half-integers below ``n``, exact in float32, and the sums
    of their products are multiples of 1/4 below ``n**3``, exact in float32 for ``n <= 32``;
    the square roots and the division are in float64.
    """
    xc = rank_x.astype(np.float32) * np.float32(0.5)
    yc = rank_y.astype(np.float32) * np.float32(0.5)
    sxy = (xc * yc).sum(axis=-2, dtype=np.float64)
    sxx = (xc * xc).sum(axis=-2, dtype=np.float64)
    syy = (yc * yc).sum(axis=-2, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / (np.sqrt(sxx) * np.sqrt(syy))
    return np.clip(r, -1.0, 1.0)
