"""Result records of the meta-evaluation statistics (frozen, scipy-style attribute access)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class LevelCorrelation:
    """One correlation at one level (see :func:`geval_repro.stats.levels.correlate`).

    ``value``: the correlation (NaN when it is undefined); ``n_groups``: inputs kept for the
    summary level, 1 for the system and global levels; ``n_items``: score cells (pairs of a
    metric and a human score, both present) that entered the correlation; ``per_group``: for
    the summary level, one value per input in column order, NaN where the input was skipped
    (``None`` for the other levels).
    """

    value: float
    n_groups: int
    n_items: int
    per_group: np.ndarray | None = None


@dataclass(frozen=True)
class TieRate:
    """Share of tied pairs among the pairs a coefficient compares (``rate`` = tied / pairs)."""

    rate: float
    n_tied_pairs: int
    n_pairs: int


@dataclass(frozen=True, eq=False)
class BootstrapResult:
    """Percentile bootstrap interval ``[low, high]`` and the resampled correlations.

    ``distribution`` holds the defined resampled values (resamples whose correlation is
    undefined, e.g. every input skipped, are dropped as nlpstats does); ``n_invalid`` counts
    the dropped ones.
    """

    low: float
    high: float
    distribution: np.ndarray
    unit: str
    confidence: float
    n_resamples: int
    n_invalid: int


@dataclass(frozen=True, eq=False)
class PermutationResult:
    """Paired permutation test of ``corr(a) - corr(b)``.

    ``statistic``: observed difference; ``pvalue``: (1 + #resamples at least as extreme) /
    (1 + n_resamples); ``distribution``: the permuted differences.
    """

    statistic: float
    pvalue: float
    distribution: np.ndarray
    unit: str
    alternative: str
    n_resamples: int


@dataclass(frozen=True)
class PairwiseAccuracy:
    """Pairwise accuracy with ties (see :mod:`geval_repro.stats.accuracy`).

    ``value``: the accuracy, a weighted share of correct pairs (NaN when no complete pair is
    compared); ``epsilon``: the metric tie threshold, given or fitted (tie calibration);
    ``n_pairs``: complete pairs compared; ``n_groups``: groups with at least one pair
    (inputs at the summary level, 1 at the system and global levels); ``human_tie_share``:
    the weighted share of human-tied pairs, weighted like ``value``, i.e. the accuracy of a
    judge that ties every pair (a constant judge).
    """

    value: float
    epsilon: float
    n_pairs: int
    n_groups: int
    human_tie_share: float


@dataclass(frozen=True)
class ReferenceAccuracies:
    """The pairwise accuracies of two reference metrics against one human matrix (see
    :func:`geval_repro.stats.accuracy.reference_accuracies`).

    ``constant``: a metric that ties every pair (its ``acc_eq`` and ``acc*_eq``: the
    weighted share of human-tied pairs); ``random``: the expected ``acc_eq`` of a random
    order without ties (half the weighted share of the untied pairs); ``n_pairs`` and
    ``n_groups`` as in :class:`PairwiseAccuracy`.
    """

    constant: float
    random: float
    n_pairs: int
    n_groups: int


@dataclass(frozen=True)
class FittedThreshold:
    """A binary-label threshold fitted on one split
    (:func:`geval_repro.stats.binary.fit_threshold`): the ``threshold`` (predicted positive:
    score >= it; +inf: nothing positive), the balanced accuracy it reaches there, and the
    split's ``n_items`` and ``n_positive``."""

    threshold: float
    balanced_accuracy: float
    n_items: int
    n_positive: int
