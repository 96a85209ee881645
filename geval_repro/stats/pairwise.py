"""Kendall tau-b and Spearman rho of short columns from pairwise signs (the summary level).

Layout: score matrices ``(..., n, m)`` (n systems, m inputs, as everywhere in
:mod:`geval_repro.stats`); each of the ``m`` columns is one vector of ``n`` values (``n`` up
to :data:`PAIRWISE_MAX_LENGTH`, e.g. 16 systems per SummEval document). All
``n (n - 1) / 2`` pairs of rows ``i < j`` are formed at once, ``d_ij = v_j - v_i`` and
``s_ij = sign(d_ij)``, shape ``(..., n_pairs, m)``; inputs stay on the contiguous last axis,
so every reduction is vectorized over them and over any leading batch axes.

- Kendall tau-b: ``sum s^x s^y / sqrt(sum |s^x| * sum |s^y|)`` over the complete pairs.
- Spearman rho: Pearson r of average ranks. Over the ``k`` present values of a column,
  ``rank_i = (k + 1 + S_i) / 2`` with ``S_i = sum_j sign(v_i - v_j)`` (ties share the mean
  rank, as ``scipy.stats.rankdata(method="average")``), and the mean rank is ``(k + 1) / 2``,
  so the centred rank is ``S_i / 2``: ``S = B^T s`` with the pair incidence matrix ``B`` (+1
  at ``j``, -1 at ``i``). Sums of half-integers this small are exact in floating point in any
  order, so rho is bit-identical to the sort-based ranks of
  :mod:`geval_repro.stats.coefficients`.

Near-ties: :func:`~geval_repro.stats.coefficients.collapse_near_ties` changes nothing unless
two present values differ by more than 0 and less than ``rtol`` times the larger magnitude;
when no pair is within ``rtol`` times the largest magnitude of the whole array, the collapse
is skipped, otherwise it is applied first (along the columns).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from geval_repro.stats.coefficients import collapse_near_ties

PAIRWISE_MAX_LENGTH = 32  # longer rows use the sort/offset kernels (pairs grow as n**2)


@lru_cache(maxsize=8)
def pair_index(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(first, second, incidence)``: the pairs ``first < second`` of ``range(n)`` and the
    ``(n_pairs, n)`` incidence matrix (+1 at ``second``, -1 at ``first``)."""
    first, second = np.triu_indices(n, 1)
    incidence = np.zeros((first.size, n))
    incidence[np.arange(first.size), second] = 1.0
    incidence[np.arange(first.size), first] = -1.0
    for array in (first, second, incidence):
        array.setflags(write=False)
    return first, second, incidence


def pair_differences(values: np.ndarray) -> np.ndarray:
    """``v_j - v_i`` for every pair of rows ``i < j``: ``(..., n, m)`` -> ``(..., n_pairs, m)``."""
    first, second, _ = pair_index(values.shape[-2])
    return np.take(values, second, axis=-2) - np.take(values, first, axis=-2)


def pair_signs(values: np.ndarray, rtol: float) -> np.ndarray:
    """``sign(v_j - v_i)`` as int8 after collapsing near-ties within each column (0 when
    either value is missing): ``(..., n, m)`` -> ``(..., n_pairs, m)``.

    The collapse runs only when some pair differs by more than 0 and less than ``rtol``
    times the largest magnitude in ``values``; otherwise it would change nothing.
    """
    differences = pair_differences(values)
    above = differences > 0
    below = differences < 0
    largest = np.fmax.reduce(np.abs(values), axis=None)  # NaN only when nothing is present
    small = np.abs(differences) < rtol * largest
    if (small & (above | below)).any():
        collapsed = np.swapaxes(collapse_near_ties(np.swapaxes(values, -1, -2), rtol), -1, -2)
        differences = pair_differences(collapsed)
        above = differences > 0
        below = differences < 0
    return above.view(np.int8) - below.view(np.int8)


def complete_pairs(present: np.ndarray) -> np.ndarray:
    """Pairs ``(..., n_pairs, m)`` whose two rows are both present."""
    first, second, _ = pair_index(present.shape[-2])
    return np.take(present, first, axis=-2) & np.take(present, second, axis=-2)


def kendall_terms(
    signs_x: np.ndarray, signs_y: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(concordant - discordant, untied-in-x, untied-in-y) per column from the signs of the
    complete pairs (0 elsewhere); exact integer counts."""
    return (
        (signs_x * signs_y).sum(axis=-2, dtype=np.int16),  # |sums| <= 496 pairs (n <= 32)
        np.abs(signs_x).sum(axis=-2, dtype=np.int16),
        np.abs(signs_y).sum(axis=-2, dtype=np.int16),
    )


def centred_ranks(signs: np.ndarray) -> np.ndarray:
    """Average rank minus mean rank, ``S / 2``, per present row ``(..., n, m)`` from the
    signs of the complete pairs (0 for rows not present), in float32: half-integers below
    ``n``, exact."""
    n_pairs = signs.shape[-2]
    n = round((1 + np.sqrt(1 + 8 * n_pairs)) / 2)
    _, _, incidence = pair_index(n)
    return (incidence.T.astype(np.float32) @ signs.astype(np.float32)) * np.float32(0.5)


def spearman_from_signs(signs_x: np.ndarray, signs_y: np.ndarray) -> np.ndarray:
    """Spearman rho per column from complete pair signs (NaN where either is constant).

    The sums of products of centred ranks are multiples of 1/4 below ``n**3``, exact in
    float32 for ``n <= 32``; the square roots and the division are in float64.
    """
    xc = centred_ranks(signs_x)
    yc = centred_ranks(signs_y)
    sxy = (xc * yc).sum(axis=-2, dtype=np.float64)
    sxx = (xc * xc).sum(axis=-2, dtype=np.float64)
    syy = (yc * yc).sum(axis=-2, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / (np.sqrt(sxx) * np.sqrt(syy))
    return np.clip(r, -1.0, 1.0)
