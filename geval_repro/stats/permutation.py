"""Paired permutation test for the difference of two metrics' correlations (Deutsch et al.,
2021; nlpstats' ``permutation_test``).

Null hypothesis: metrics A and B are exchangeable on the same items, so
``corr(A, human) - corr(B, human)`` is as likely as its negation. Each resample swaps the
A and B scores of randomly chosen units (each unit with probability 1/2), then recomputes the
difference at the same level with the same coefficient. Units (the level's default first):

- ``inputs`` (default for summary): swap whole columns (inputs/documents);
- ``systems`` (default for system): swap whole rows;
- ``items`` (default for global): swap single cells;
- ``both``: swap rows and columns independently; a cell ends up swapped when exactly one of
  its row and column is (nlpstats applies the two swaps in turn, which is the same).

Scale: A and B are first standardized, each by the mean and standard deviation of all its
present cells (as nlpstats does), so that a swapped cell is on the scale of the scores
around it. Correlations are invariant to this positive affine map, so the observed statistic
is unchanged (up to rounding); it is computed on the standardized scores, like the
permuted ones.

P-value: ``(1 + k) / (1 + n)`` where ``n`` counts permuted differences that are defined and
``k`` those at least as extreme as the observed one (|d| >= |observed| two-sided, d >=
observed for "greater", d <= observed for "less"; differences within 1e-12 count as
ties). The +1 makes the Monte Carlo p-value valid and never zero (Phipson & Smyth, 2010);
nlpstats reports ``k / n_resamples`` instead, which ``distribution`` lets you recompute.

Evaluation (same values as recomputing each swapped matrix with ``correlate_batch``: bit for
bit for Spearman and Kendall, within rounding for Pearson; tested):

- summary level, whole inputs swapped: a swap only exchanges which of an input's two
  correlations (A's or B's) enters each average, so each input's correlations are computed
  once (also for the observed statistic) and every resample averages the chosen ones;
- global level, and summary level with other units: from per-item terms, without building
  any swapped matrix (:mod:`geval_repro.stats.permutation_terms`: Pearson from swap-linear
  sums, Spearman from per-label counts, Kendall from a quadratic form of pair signs);
- system level: from the systems' means (whole systems swapped: the two metrics' means;
  Pearson with other units: swapped sums);
- otherwise (Kendall on groups of more than ``FORM_MAX_ITEMS`` items, the floating-point
  corner case :func:`~geval_repro.stats.swapped_ranks.tie_structure` rules out, rank
  coefficients at the system level with inputs or cells swapped): every swapped matrix is
  recomputed.
"""

from __future__ import annotations

import numpy as np

from geval_repro.stats.level import UNITS, Level
from geval_repro.stats.levels import correlate_batch, kept_mean, summary_terms
from geval_repro.stats.matrix import as_score_matrix, as_score_pair
from geval_repro.stats.permutation_terms import (
    CELLS_PER_BLOCK,
    swapped_differences,
    system_differences,
)
from geval_repro.stats.results import PermutationResult

ALTERNATIVES = ("two-sided", "greater", "less")
TIE_TOLERANCE = 1e-12


def _standardize(scores: np.ndarray, name: str) -> np.ndarray:
    """``(scores - mean) / sd`` over the present cells; a metric without present cells or
    constant over them raises."""
    if np.isnan(scores).all():
        raise ValueError(f"{name} has no present cell: nothing to compare")
    sd = np.nanstd(scores)
    if not sd > 0:
        raise ValueError(f"{name} is constant over its present cells: nothing to compare")
    return (scores - np.nanmean(scores)) / sd


def permuted_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: str,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray:
    """``corr(A', human) - corr(B', human)`` for each swap mask (no standardization).

    ``swap``: booleans broadcastable to ``(n_resamples, n_systems, n_inputs)``; where True,
    A' takes B's score and B' takes A's. Returns ``(n_resamples,)`` (NaN where undefined).
    """
    swap = np.asarray(swap, dtype=bool)
    fast = None
    if swap.ndim == 3 and Level(level).grouped and swap.shape[1] == 1:
        fast = _swapped_documents(metric_a, metric_b, human, coefficient, swap[:, 0, :])[1]
    elif swap.ndim == 3 and Level(level) is Level.SYSTEM:
        fast = system_differences(metric_a, metric_b, human, coefficient, swap)
    elif swap.ndim == 3:
        fast = swapped_differences(metric_a, metric_b, human, level, coefficient, swap)
    if fast is not None:
        return fast
    return _recomputed_differences(metric_a, metric_b, human, level, coefficient, swap)


def _swapped_documents(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    coefficient: str,
    swap: np.ndarray,
) -> tuple[float, np.ndarray]:
    """Summary level, whole inputs swapped: each input's correlations once, then means.

    Swapping input ``j`` only exchanges which of its two correlations (A's or B's) enters
    each average, together with its kept flag. ``swap``: ``(n_resamples, n_inputs)``.
    Returns the observed difference (nothing swapped; the floats of ``correlate_batch``) and
    the permuted ones.
    """
    corr_a, kept_a, _ = summary_terms(metric_a, human, coefficient)
    corr_b, kept_b, _ = summary_terms(metric_b, human, coefficient)
    swap = np.broadcast_to(swap, (swap.shape[0], metric_a.shape[1]))
    swap = np.concatenate([np.zeros((1, swap.shape[1]), dtype=bool), swap])  # observed first
    # what each input adds to the sum of its metric's kept correlations, and to their count
    added_a, added_b = np.where(kept_a, corr_a, 0.0), np.where(kept_b, corr_b, 0.0)
    moved = swap @ (kept_b.astype(np.int64) - kept_a)  # kept inputs B' gives A' (A' less B')

    differences = kept_mean(np.where(swap, added_b, added_a), kept_a.sum() + moved) - kept_mean(
        np.where(swap, added_a, added_b), kept_b.sum() - moved
    )
    return float(differences[0]), differences[1:]


def _recomputed_differences(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: str,
    coefficient: str,
    swap: np.ndarray,
) -> np.ndarray:
    """The permuted differences recomputed on the swapped matrices."""
    n_resamples = swap.shape[0]
    n_cells = metric_a.size
    block = max(1, CELLS_PER_BLOCK // n_cells)
    differences = np.empty(n_resamples)
    for start in range(0, n_resamples, block):
        mask = swap[start : start + block]
        a = np.where(mask, metric_b, metric_a)
        b = np.where(mask, metric_a, metric_b)
        # one human matrix for the whole block (correlate_batch ranks it once where it can)
        differences[start : start + block] = (
            correlate_batch(a, human, level, coefficient).value
            - correlate_batch(b, human, level, coefficient).value
        )
    return differences


def permutation_pvalue(permuted: np.ndarray, observed: float, alternative: str) -> float:
    """``(1 + k) / (1 + n)``: ``n`` the defined (not NaN) ``permuted`` statistics, ``k``
    those at least as extreme as ``observed`` under ``alternative`` (module docstring)."""
    defined = permuted[~np.isnan(permuted)]
    if alternative == "two-sided":
        extreme = np.abs(defined) >= abs(observed) - TIE_TOLERANCE
    elif alternative == "greater":
        extreme = defined >= observed - TIE_TOLERANCE
    else:
        extreme = defined <= observed + TIE_TOLERANCE
    return (1 + int(extreme.sum())) / (1 + defined.size)


def _swap_masks(
    rng: np.random.Generator, unit: str, n_resamples: int, n_systems: int, n_inputs: int
) -> np.ndarray:
    """The swap masks, broadcastable to ``(n_resamples, n_systems, n_inputs)``: items
    ``rng.random((n_resamples, n_systems, n_inputs)) < 0.5``; systems (rows) drawn first,
    then inputs (columns), a cell swapped when exactly one of its row and column is."""
    if unit == "items":
        return rng.random((n_resamples, n_systems, n_inputs)) < 0.5
    swap = np.zeros((n_resamples, 1, 1), dtype=bool)
    if unit in ("systems", "both"):
        swap = swap ^ (rng.random((n_resamples, n_systems, 1)) < 0.5)
    if unit in ("inputs", "both"):
        swap = swap ^ (rng.random((n_resamples, 1, n_inputs)) < 0.5)
    return swap


def paired_permutation_test(
    metric_a: np.ndarray,
    metric_b: np.ndarray,
    human: np.ndarray,
    level: str,
    coefficient: str,
    *,
    n_resamples: int = 1000,
    seed: int,
    alternative: str = "two-sided",
    unit: str | None = None,
) -> PermutationResult:
    """Test ``corr(metric_a) - corr(metric_b)`` against human scores (module docstring).

    ``metric_a``, ``metric_b`` and ``human`` are (n_systems, n_inputs) matrices over the same
    items; A and B must have the same missing cells. Swap masks come from
    ``numpy.random.default_rng(seed).random(...) < 0.5``.
    """
    metric_a, human = as_score_pair(metric_a, human)
    metric_b = as_score_matrix(metric_b, "metric_b")
    if metric_b.shape != metric_a.shape:
        raise ValueError(f"metric_a {metric_a.shape} and metric_b {metric_b.shape} differ")
    if not np.array_equal(np.isnan(metric_a), np.isnan(metric_b)):
        raise ValueError(
            "metric_a and metric_b must score the same items: their missing cells differ"
        )
    level = Level(level)
    unit = level.permutation_unit if unit is None else unit
    if unit not in UNITS:
        raise ValueError(f"unknown permutation unit {unit!r}: use one of {UNITS}")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}: use one of {ALTERNATIVES}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")

    a = _standardize(metric_a, "metric_a")
    b = _standardize(metric_b, "metric_b")
    swap = _swap_masks(np.random.default_rng(seed), unit, n_resamples, *a.shape)
    differences = None
    if level.grouped and unit == "inputs":  # the inputs' correlations serve both
        observed, differences = _swapped_documents(a, b, human, coefficient, swap[:, 0, :])
    else:
        observed = float(
            correlate_batch(a, human, level, coefficient).value
            - correlate_batch(b, human, level, coefficient).value
        )
    if np.isnan(observed):
        raise ValueError(f"the {level}-level {coefficient} correlation of A or B is undefined")
    if differences is None:
        differences = permuted_differences(a, b, human, level, coefficient, swap)
    differences.setflags(write=False)
    return PermutationResult(
        statistic=observed,
        pvalue=permutation_pvalue(differences, observed, alternative),
        distribution=differences,
        unit=unit,
        alternative=alternative,
        n_resamples=n_resamples,
    )
