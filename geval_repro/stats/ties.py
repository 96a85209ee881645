"""Tie rates: the share of tied pairs among the pairs a coefficient compares.

Two scores tie by the one tie rule (:mod:`geval_repro.stats.tie_rule`), the rule every
coefficient and accuracy reads, within each group of present scores: the tied pairs are
those of one vector of :class:`~geval_repro.stats.pairs.PairCounts` (``tied_x +
tied_both``), counted on its merged values (:func:`~geval_repro.stats.pairs.tied_pairs`).
Groups, on a (n_systems, n_inputs) matrix with NaN = missing:

- ``summary``: the present scores within each input (column), over all inputs (for
  SummEval, 100 documents x C(16, 2) = 12,000 pairs);
- ``system``: the system means (a system with no present score is left out);
- ``global``: all present cells pooled.

Pass the matrix NaN outside the cells a row compares (its complete pairs) to get the tie
rate of those.
"""

from __future__ import annotations

import numpy as np

from geval_repro.stats.level import Level
from geval_repro.stats.matrix import as_score_matrix
from geval_repro.stats.pairs import tied_pairs
from geval_repro.stats.results import TieRate
from geval_repro.stats.tie_rule import collapse_near_ties


def tie_rate(scores: np.ndarray, level: Level | str) -> TieRate:
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
    tied, pairs = tied_pairs(collapse_near_ties(groups), ~np.isnan(groups))
    n_tied, n_pairs = int(tied.sum()), int(pairs.sum())
    rate = n_tied / n_pairs if n_pairs else float("nan")
    return TieRate(rate=rate, n_tied_pairs=n_tied, n_pairs=n_pairs)
