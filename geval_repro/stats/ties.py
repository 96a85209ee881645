"""Tie rates: the share of tied pairs among the pairs a coefficient compares.

Two scores tie when ``|a - b| < atol`` (default 1e-9, the same tolerance as the constant
-vector rule of :mod:`geval_repro.stats.levels`). Pairs, on a (n_systems, n_inputs) matrix
with NaN = missing:

- ``summary``: pairs of present scores within each input (column), over all inputs (for
  SummEval, 100 documents x C(16, 2) = 12,000 pairs);
- ``system``: pairs of system means (a system with no present score is left out);
- ``global``: all pairs of present cells pooled.

Counting sorts each group once and, for offsets ``k = 1, 2, ...``, counts sorted pairs
``(v[i], v[i + k])`` with ``v[i + k] - v[i] < atol``; it stops at the first offset with no
such pair (larger offsets span larger gaps). Vectorized over groups.
"""

from __future__ import annotations

import numpy as np

from geval_repro.stats.level import Level
from geval_repro.stats.matrix import as_score_matrix
from geval_repro.stats.results import TieRate

TIE_ATOL = 1e-9


def _tied_pairs(groups: np.ndarray, atol: float) -> tuple[int, int]:
    """(tied pairs, pairs) over the rows of ``groups`` (NaN = absent), pairs within rows."""
    ordered = np.sort(groups, axis=-1)  # NaN sorts last and never ties (NaN < atol is False)
    present = (~np.isnan(ordered)).sum(axis=-1)
    n_pairs = int((present * (present - 1) // 2).sum())
    n_tied = 0
    for k in range(1, ordered.shape[-1]):
        tied = int((ordered[..., k:] - ordered[..., :-k] < atol).sum())
        if tied == 0:
            break
        n_tied += tied
    return n_tied, n_pairs


def tie_rate(scores: np.ndarray, level: Level | str, atol: float = TIE_ATOL) -> TieRate:
    """Tie rate of one score matrix at ``level`` (see the module docstring for the pairs)."""
    matrix = as_score_matrix(scores, "scores")
    level = Level(level)
    if level.grouped:
        groups = matrix.T
    elif level is Level.SYSTEM:
        present = ~np.isnan(matrix)
        counts = present.sum(axis=1)
        means = np.where(present, matrix, 0.0).sum(axis=1)[counts > 0] / counts[counts > 0]
        groups = means[None, :]
    else:
        groups = matrix[~np.isnan(matrix)][None, :]
    n_tied, n_pairs = _tied_pairs(groups, atol)
    rate = n_tied / n_pairs if n_pairs else float("nan")
    return TieRate(rate=rate, n_tied_pairs=n_tied, n_pairs=n_pairs)
