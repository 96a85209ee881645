"""The correlation coefficients' functions, row-wise over the last axis of batched arrays:
Pearson's r, Spearman's rho and Kendall's tau-b, and the fast forms of the rank coefficients
the registry (:mod:`geval_repro.stats.registry`) names for its paths.

Row functions (``*_rows``) take two arrays ``x`` and ``y`` of the same shape ``(..., n)``
and return one coefficient per row, shape ``(...)``; any leading batch shape works. A row
uses only its complete pairs (both values present; NaN = missing), as ``scipy.stats`` does
on the filtered vectors; ``+-inf`` is rejected. They compare values as they are: the levels
(:mod:`geval_repro.stats.levels`) merge ties by the tie rule first for the rank
coefficients, and apply the constant-vector rule. A row is NaN when it has fewer than two
complete pairs or a vector constant over them (scipy too).

Formulas, over the complete pairs of a row:

- Pearson: ``r = sum(xc * yc) / sqrt(sum(xc**2) * sum(yc**2))`` with ``xc = x - mean(x)``.
- Spearman: Pearson's r of the average ranks (tied values share the mean of their ranks).
- Kendall's tau-b: ``(C - D) / sqrt(untied_x * untied_y)`` from the pair counts of
  :mod:`geval_repro.stats.pairs` (:func:`~geval_repro.stats.pairs.tau_b_rows`).

All three equal ``scipy.stats.pearsonr`` / ``spearmanr`` / ``kendalltau`` (tau-b) on the
same values to 1e-12 (tests/test_stats_coefficients.py).

Fast forms (registry paths): ``*_from_signs`` read the offsets' pair counts and rank sums
of short columns (the summary level); ``*_from_codes`` read integer codes of the values'
tie groups (the global level: counts per code instead of sorting).
"""

from __future__ import annotations

import numpy as np

from geval_repro.stats.pairs import SignSums, table_counts, tables_cheaper, tau_b_rows
from geval_repro.stats.ranks import average_ranks, average_ranks_of_codes


def paired(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def _exactly_constant(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Rows whose present values are all equal (exact equality, as scipy tests it)."""
    high = np.where(present, values, -np.inf).max(axis=-1)
    low = np.where(present, values, np.inf).min(axis=-1)
    return high == low


def pearson_masked(x: np.ndarray, y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Pearson's r per row over the ``present`` positions (no validation)."""
    n = present.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_x = np.where(present, x, 0.0).sum(axis=-1, keepdims=True) / n[..., None]
        mean_y = np.where(present, y, 0.0).sum(axis=-1, keepdims=True) / n[..., None]
        xc = np.where(present, x - mean_x, 0.0)
        yc = np.where(present, y - mean_y, 0.0)
        r = (xc * yc).sum(axis=-1) / (
            np.sqrt((xc * xc).sum(axis=-1)) * np.sqrt((yc * yc).sum(axis=-1))
        )
    undefined = (n < 2) | _exactly_constant(x, present) | _exactly_constant(y, present)
    return np.where(undefined, np.nan, np.clip(r, -1.0, 1.0))


def pearson_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson's r of ``x`` and ``y`` per row (last axis); see the module docstring."""
    x, y, present = paired(x, y)
    return pearson_masked(x, y, present)


def spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho (Pearson's r of average ranks) per row (last axis)."""
    x, y, present = paired(x, y)
    return pearson_masked(average_ranks(x, present), average_ranks(y, present), present)


def kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b per row (last axis), from the pair counts
    (:func:`geval_repro.stats.pairs.tau_b_rows`: offsets, or contingency tables where they
    cost less; both exact)."""
    x, y, present = paired(x, y)
    return tau_b_rows(x, y, present)


def kendall_from_signs(sums: SignSums) -> np.ndarray:
    """Kendall's tau-b per column from the offsets' sums."""
    return sums.tau_b()


def spearman_from_signs(sums: SignSums) -> np.ndarray:
    """Spearman's rho per column from the offsets' rank sums ``S`` (NaN where either vector
    is constant).

    Over the ``k`` present values of a column, ``rank_i = (k + 1 + S_i) / 2`` (ties share
    the mean rank, as ``scipy.stats.rankdata(method="average")``) and the mean rank is ``(k +
    1) / 2``, so the centred rank is ``S_i / 2``: half-integers below ``n``, exact in
    float32, whose products' sums are multiples of 1/4 below ``n**3``, exact in float32 for
    ``n <= 32`` (float64 above); the square roots and the division are in float64. Sums of
    such exact terms do not depend on their order, so rho is bit-identical to the Pearson r
    of the sort-based average ranks.
    """
    exact = np.float32 if sums.rank_x.shape[-2] <= 32 else np.float64
    xc = sums.rank_x.astype(exact) * exact(0.5)
    yc = sums.rank_y.astype(exact) * exact(0.5)
    sxy = (xc * yc).sum(axis=-2, dtype=np.float64)
    sxx = (xc * xc).sum(axis=-2, dtype=np.float64)
    syy = (yc * yc).sum(axis=-2, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = sxy / (np.sqrt(sxx) * np.sqrt(syy))
    return np.clip(r, -1.0, 1.0)


def kendall_from_codes(code_x: np.ndarray, code_y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Kendall's tau-b per row of ``(rows, n)`` integer codes (non-negative, ordering and
    tying like the values) over the ``present`` positions: contingency tables of the codes
    where they cost less than the offsets (:func:`~geval_repro.stats.pairs.tables_cheaper`),
    else the offsets on the codes."""
    n = code_x.shape[-1]
    cells = (int(code_x.max(initial=0)) + 1) * (int(code_y.max(initial=0)) + 1)
    if tables_cheaper(n, cells):
        return table_counts(code_x, code_y, present).tau_b()
    return tau_b_rows(code_x, code_y, present)


def spearman_from_codes(code_x: np.ndarray, code_y: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Spearman's rho per row of ``(rows, n)`` integer codes: average ranks from each row's
    count per code (:func:`~geval_repro.stats.ranks.average_ranks_of_codes`, the floats of
    the sort-based ranks), then Pearson's r."""
    return pearson_masked(
        average_ranks_of_codes(code_x, present), average_ranks_of_codes(code_y, present), present
    )
