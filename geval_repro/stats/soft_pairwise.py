"""Soft pairwise accuracy at the system level (Thompson et al., 2024, WMT24's system-level
meta-metric; mt-metrics-eval's ``pce.py`` is the reference implementation).

Input: score matrices ``(n_systems, n_inputs)`` of a metric and of the humans, complete (every
system scored on every input, a document). For every pair of systems ``i < j``, the p-value
that ``i`` beats ``j`` from a one-sided paired permutation test over the inputs: the
statistic is the difference of the two systems' sums over the inputs, ``delta_ij``; each of
``R`` resamples flips the sign of every input's difference with probability 1/2 (one ``R x
n_inputs`` matrix of signs, drawn once from ``seed`` and shared by every pair, the metric and
the humans), and ``p_ij = #{resamples with null delta >= delta_ij} / R`` (pce.py's constant:
no ``+1``; a delta of 0, as a constant metric has, gives ``p = 1``). The humans' p-values
``p^h`` and the metric's ``p^m`` come from the same signs, so

    ``SPA = 1 - mean_{i<j} |p^h_ij - p^m_ij|``.

SPA is 1 when the metric's pairwise p-values are the humans' (the humans themselves score 1);
a constant metric scores ``mean p^h``. The p-values are used as computed (not snapped to a
grid). Matrix in, number out; imports nothing of the package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: The fewest systems SPA is computed for (one pair is no ranking).
MIN_SYSTEMS = 3
#: The fewest inputs a permutation test is made over.
MIN_INPUTS = 3


@dataclass(frozen=True)
class SoftPairwiseAccuracy:
    """SPA and what it rests on: ``n_systems``, ``n_inputs``, ``n_pairs`` (system pairs),
    ``n_resamples``, ``seed``."""

    value: float
    n_systems: int
    n_inputs: int
    n_pairs: int
    n_resamples: int
    seed: int


def sign_flips(n_resamples: int, n_inputs: int, seed: int) -> np.ndarray:
    """``(n_resamples, n_inputs)`` signs, each +1 or -1 with probability 1/2, from ``seed``."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, size=(n_resamples, n_inputs)).astype(float) * 2.0 - 1.0


def pairwise_pvalues(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """``(n_systems, n_systems)``: above the diagonal the one-sided p-value that system ``i``
    beats system ``j`` (module docstring), NaN elsewhere. ``scores``: ``(n_systems,
    n_inputs)``, complete; ``flips``: the signs of :func:`sign_flips`."""
    scores = np.asarray(scores, dtype=float)
    sums = scores.sum(axis=1)
    signed = flips @ scores.T  # (R, S): each system's signed sum under each resample
    null = signed[:, :, None] - signed[:, None, :]  # (R, S, S)
    observed = sums[:, None] - sums[None, :]
    # differences are sums of the same terms: compare with a tolerance of rounding
    tolerance = 1e-9 * max(1.0, float(np.abs(scores).sum()))
    pvalues = (null >= observed - tolerance).mean(axis=0)
    upper = np.triu(np.ones_like(pvalues, dtype=bool), k=1)
    return np.where(upper, pvalues, np.nan)


def soft_pairwise_accuracy(
    metric: np.ndarray, human: np.ndarray, n_resamples: int, seed: int
) -> SoftPairwiseAccuracy:
    """SPA of ``metric`` against ``human`` (both ``(n_systems, n_inputs)``, complete; module
    docstring). Raises on NaN, mismatched shapes, fewer than 3 systems or inputs."""
    metric = np.asarray(metric, dtype=float)
    human = np.asarray(human, dtype=float)
    if metric.shape != human.shape or metric.ndim != 2:
        raise ValueError(
            f"metric and human must be one (systems, inputs) shape: {metric.shape}, {human.shape}"
        )
    if np.isnan(metric).any() or np.isnan(human).any():
        raise ValueError("soft pairwise accuracy takes complete matrices (NaN given)")
    n_systems, n_inputs = metric.shape
    if n_systems < MIN_SYSTEMS or n_inputs < MIN_INPUTS:
        raise ValueError(
            f"soft pairwise accuracy needs >= {MIN_SYSTEMS} systems and >= {MIN_INPUTS} "
            f"inputs, got {n_systems} and {n_inputs}"
        )
    flips = sign_flips(n_resamples, n_inputs, seed)
    upper = np.triu_indices(n_systems, k=1)
    p_human = pairwise_pvalues(human, flips)[upper]
    p_metric = pairwise_pvalues(metric, flips)[upper]
    return SoftPairwiseAccuracy(
        value=float(1.0 - np.abs(p_human - p_metric).mean()),
        n_systems=n_systems,
        n_inputs=n_inputs,
        n_pairs=int(p_human.size),
        n_resamples=n_resamples,
        seed=seed,
    )
