"""Binary comparisons: two texts set against each other, the humans prefer one or tie.

Comparison ``j`` sets text ``first[j]`` against ``second[j]``; a metric scores both, and the
humans' ``preference[j]`` is +1 (the second is better), -1 (the first is better) or 0 (a
tie, e.g. "Equally Good"). With ``d = second - first``:

- **Preference** of the metric: 0 when the tie rule ties its two scores
  (:mod:`geval_repro.stats.tie_rule`: ``|d| < 1e-9 max(|first|, |second|)``), else the sign
  of ``d``: the ties of ``acc_eq`` below (:func:`metric_preferences`).
- **Pairwise accuracy with ties** (Deutsch, Foster & Freitag 2023): a comparison is correct
  when both tie, or neither ties and they agree in sign; ``acc_eq`` with the metric tying
  when ``|d|`` is below the tolerance, ``acc*_eq`` with the tie threshold ``epsilon`` fitted
  (the largest accuracy over the thresholds, the smallest threshold reaching it). This IS
  :mod:`geval_repro.stats.accuracy`'s summary level on the ``(2, n)`` matrices of
  :func:`comparison_matrices` (systems: first and second; inputs: the comparisons), which
  this module calls: each input holds one pair, so its share of correct pairs is 0 or 1 and
  the mean over inputs is the share of correct comparisons; its metric grid (differences
  compared in units of 1e-9) and threshold search apply unchanged. Where the definitions
  differ: ``accuracy.py``'s summary-level bootstrap draws inputs, i.e. comparisons, one by
  one; comparisons of the same texts are not independent, so :func:`bootstrap_comparisons`
  draws clusters (e.g. articles) instead (:mod:`geval_repro.stats.clustered`) and passes
  each resample's comparisons to ``accuracy.py``'s resampled accuracies, re-fitting the
  threshold in every resample as there.
- **Ceiling** (:func:`accuracy_ceiling`): comparisons of the same two texts (several
  evaluators) share one ``d``, so no metric can agree with every evaluator where they
  disagree. Giving each pair of texts the difference that matches its most frequent human
  preference is the best any metric can do (an upper bound; reached when each text is in
  one pair of texts, as the writers' summaries of Zhang et al. are): the share of
  comparisons whose preference is their pair's most frequent one, at either threshold.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from geval_repro.stats.accuracy import (
    pairwise_accuracy,
    resampled_accuracies,
    tie_calibrated_accuracy,
)
from geval_repro.stats.bootstrap import percentile_interval
from geval_repro.stats.clustered import UNIT
from geval_repro.stats.results import BootstrapResult, PairwiseAccuracy
from geval_repro.stats.tie_rule import collapse_near_ties

PREFERENCE_VALUES = (-1, 0, 1)


def comparison_matrices(
    first: np.ndarray, second: np.ndarray, preference: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The ``(2, n)`` metric and human matrices of the comparisons: metric rows ``first``
    and ``second`` (NaN = unscored: the comparison is left out), human rows 0 and
    ``preference``."""
    first, second = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    preference = np.asarray(preference, dtype=float)
    if not (first.shape == second.shape == preference.shape and first.ndim == 1):
        raise ValueError(
            f"first {first.shape}, second {second.shape} and preference {preference.shape} "
            "must be 1-D arrays of one length (one entry per comparison)"
        )
    if not np.isin(preference, PREFERENCE_VALUES).all():
        raise ValueError(
            "preference must be +1 (second better), -1 (first better) or 0 (tie), got "
            f"{sorted(set(preference[~np.isin(preference, PREFERENCE_VALUES)].tolist()))[:5]}"
        )
    return np.vstack([first, second]), np.vstack([np.zeros_like(preference), preference])


def metric_preferences(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """+1 / -1 / 0 where the metric prefers the second / the first / ties them (the tie
    rule); NaN where a score is missing."""
    pair = collapse_near_ties(np.stack([first, second], axis=-1).astype(float))
    difference = pair[..., 1] - pair[..., 0]
    return np.where(np.isnan(difference), np.nan, np.sign(difference))


def comparison_accuracy(
    first: np.ndarray, second: np.ndarray, preference: np.ndarray, *, calibrate: bool
) -> PairwiseAccuracy:
    """``acc*_eq`` (``calibrate``) or ``acc_eq`` of the scored comparisons; ``n_pairs`` and
    ``n_groups`` both count them, ``human_tie_share`` is the share the humans tie."""
    metric, human = comparison_matrices(first, second, preference)
    if calibrate:
        return tie_calibrated_accuracy(metric, human, "summary")
    return pairwise_accuracy(metric, human, "summary")


def bootstrap_comparisons(
    first: np.ndarray,
    second: np.ndarray,
    preference: np.ndarray,
    members: np.ndarray,
    *,
    calibrate: bool,
    confidence: float = 0.95,
) -> BootstrapResult:
    """Percentile interval of :func:`comparison_accuracy` over resampled clusters.

    ``members``: each resample's comparisons, those of its drawn clusters repeated as drawn
    (:func:`~geval_repro.stats.clustered.member_indices` of the clusters and their
    :func:`~geval_repro.stats.clustered.cluster_draws`, made once for every statistic that
    shares the draws), padded with ``n`` (one past the last comparison). They are the inputs
    of :func:`~geval_repro.stats.accuracy.resampled_accuracies` at the summary level; the
    padding indexes an unscored comparison (a NaN column, which holds no pair and so counts
    nowhere).
    """
    metric, human = comparison_matrices(first, second, preference)
    if members.size and members.max() > metric.shape[1]:
        raise ValueError(
            f"members index comparison {members.max()}, but there are {metric.shape[1]}"
        )
    padding = np.full((2, 1), np.nan)
    values = resampled_accuracies(
        np.hstack([metric, padding]),
        np.hstack([human, padding]),
        "summary",
        members,
        calibrate=calibrate,
    )
    return percentile_interval(
        values,
        unit=UNIT,
        confidence=confidence,
        undefined=f"none of the {values.size} resamples holds a scored comparison",
    )


def accuracy_ceiling(pair_keys: Sequence[object] | np.ndarray, preference: np.ndarray) -> float:
    """The share of comparisons whose preference is the most frequent one among the
    comparisons with their ``pair_keys`` value (the same two texts): the best accuracy with
    ties any metric can reach (module docstring). NaN without comparisons."""
    keys = np.asarray(pair_keys)
    preference = np.asarray(preference)
    if keys.shape != preference.shape or keys.ndim != 1:
        raise ValueError("pair_keys and preference must be 1-D arrays of one length")
    if keys.size == 0:
        return float("nan")
    _, pair = np.unique(keys, return_inverse=True)
    _, label = np.unique(preference, return_inverse=True)
    counts = np.zeros((pair.max() + 1, label.max() + 1), dtype=np.int64)
    np.add.at(counts, (pair, label), 1)
    return float(counts.max(axis=1).sum() / keys.size)
