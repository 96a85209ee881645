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
grid).

Resampled over inputs (:func:`resampled_spa`, the paired bootstrap that the significance
clusters of a ranking by SPA rest on): each resample draws ``n_inputs`` inputs with
replacement and recomputes SPA on the drawn columns exactly as above (the same ``R`` sign
flips, applied to the drawn sequence of inputs), for the humans and every metric on the same
draws (:func:`input_draws`: from the first child of ``numpy.random.SeedSequence(seed)``, so
they are independent of the flips drawn from ``seed`` itself). Two metrics' SPA are compared by
:func:`geval_repro.stats.bootstrap.shifted_pvalue` of their resampled differences. Matrix
in, number out; imports nothing of the package.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

#: The fewest systems SPA is computed for (one pair is no ranking).
MIN_SYSTEMS = 3
#: The fewest inputs a permutation test is made over.
MIN_INPUTS = 3
#: Sign flips compared per block in :func:`upper_pvalues` (a block's pair differences stay
#: in cache: 3x faster than all 1,000 at once for SummEval's 120 pairs, same counts).
FLIP_BLOCK = 500


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


def upper_pvalues(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """``(K, n_pairs)``: for each of ``K`` score matrices ``scores[k]`` (``(n_systems,
    n_inputs)``, complete) the one-sided p-value that system ``i`` beats system ``j`` for
    every pair ``i < j`` (``numpy.triu_indices`` order; module docstring), all from the same
    ``flips`` (:func:`sign_flips`). One matrix product gives every matrix's signed sums; the
    pairs' comparisons are made one matrix at a time, so that each stays in cache."""
    scores = np.asarray(scores, dtype=float)
    n_matrices, n_systems, n_inputs = scores.shape
    signed = (scores.reshape(-1, n_inputs) @ flips.T).reshape(n_matrices, n_systems, -1)
    sums = scores.sum(axis=2)
    # differences are sums of the same terms: compare with a tolerance of rounding
    tolerance = 1e-9 * np.maximum(1.0, np.abs(scores).sum(axis=(1, 2)))
    first, second = np.triu_indices(n_systems, k=1)
    observed = sums[:, first] - sums[:, second] - tolerance[:, None]
    hits = np.zeros((n_matrices, first.size), dtype=np.int64)
    for k in range(n_matrices):
        for start in range(0, flips.shape[0], FLIP_BLOCK):
            block = signed[k, :, start : start + FLIP_BLOCK]
            null = block[first] - block[second]  # (n_pairs, block)
            hits[k] += np.count_nonzero(null >= observed[k, :, None], axis=1)
    return hits / flips.shape[0]


def pairwise_pvalues(scores: np.ndarray, flips: np.ndarray) -> np.ndarray:
    """``(n_systems, n_systems)``: above the diagonal the one-sided p-value that system ``i``
    beats system ``j`` (:func:`upper_pvalues`), NaN elsewhere. ``scores``: ``(n_systems,
    n_inputs)``, complete; ``flips``: the signs of :func:`sign_flips`."""
    scores = np.asarray(scores, dtype=float)
    out = np.full((scores.shape[0],) * 2, np.nan)
    out[np.triu_indices(scores.shape[0], k=1)] = upper_pvalues(scores[None], flips)[0]
    return out


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
    p_human, p_metric = upper_pvalues(
        np.stack([human, metric]), sign_flips(n_resamples, n_inputs, seed)
    )
    return SoftPairwiseAccuracy(
        value=float(1.0 - np.abs(p_human - p_metric).mean()),
        n_systems=n_systems,
        n_inputs=n_inputs,
        n_pairs=int(p_human.size),
        n_resamples=n_resamples,
        seed=seed,
    )


@dataclass(frozen=True)
class ResampledSpa:
    """SPA recomputed on each resample of the inputs: ``metrics`` ``(n_resamples,
    n_metrics)``, and ``constant`` ``(n_resamples,)``, a constant metric's SPA (the humans'
    mean p-value) on the same resamples."""

    metrics: np.ndarray
    constant: np.ndarray


def resampled_spa(
    metrics: np.ndarray, human: np.ndarray, n_resamples: int, seed: int, draws: np.ndarray
) -> ResampledSpa:
    """SPA of each of ``metrics`` (``(n_metrics, n_systems, n_inputs)``) against ``human``
    (``(n_systems, n_inputs)``), all complete, recomputed on each row of ``draws``
    (``(n_draws, n_inputs)`` input indices): row ``b`` of the result is
    ``soft_pairwise_accuracy(metric[:, draws[b]], human[:, draws[b]], n_resamples,
    seed)`` for every metric (``n_resamples``, ``seed``: the permutation test's)."""
    metrics = np.asarray(metrics, dtype=float)
    human = np.asarray(human, dtype=float)
    if metrics.ndim != 3 or metrics.shape[1:] != human.shape:
        raise ValueError(
            f"metrics must be (metrics, systems, inputs) of the humans' shape {human.shape}, "
            f"got {metrics.shape}"
        )
    flips = sign_flips(n_resamples, human.shape[1], seed)
    stacked = np.concatenate([human[None], metrics])
    values = np.empty((len(draws), len(metrics)))
    constant = np.empty(len(draws))
    # each draw's product is small: BLAS threads would wait on each other more than they
    # compute (7x the CPU on a loaded 2-core machine: docs/performance.md)
    with threadpool_limits(limits=1, user_api="blas"):
        for b, drawn in enumerate(np.asarray(draws)):
            pvalues = upper_pvalues(stacked[:, :, drawn], flips)
            values[b] = 1.0 - np.abs(pvalues[1:] - pvalues[0]).mean(axis=1)
            # a constant metric's p-values are all 1 (every delta 0 ties the null)
            constant[b] = 1.0 - np.abs(pvalues[0] - 1.0).mean()
    return ResampledSpa(metrics=values, constant=constant)


def input_draws(n_inputs: int, n_draws: int, seed: int) -> np.ndarray:
    """``(n_draws, n_inputs)`` input indices drawn with replacement, from the first child of
    ``numpy.random.SeedSequence(seed)`` (module docstring)."""
    rng = np.random.default_rng(np.random.SeedSequence(seed).spawn(1)[0])
    return rng.integers(0, n_inputs, size=(n_draws, n_inputs))
