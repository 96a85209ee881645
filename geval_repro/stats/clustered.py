"""Resampling clustered observations: a percentile bootstrap over clusters and a paired
sign-flip permutation test over clusters.

Observations (e.g. human judgements) belong to clusters (e.g. the articles they judge) and
are not independent within one (the same texts, judged several times). Both procedures
therefore resample or permute whole clusters:

- **Bootstrap over clusters.** A resample draws ``n_clusters`` clusters with replacement
  (``numpy.random.default_rng(seed).integers(0, n_clusters, (n_resamples, n_clusters))``,
  the draws of :func:`~geval_repro.stats.bootstrap.bootstrap_ci` with inputs as the unit)
  and keeps every observation of each drawn cluster, as often as the cluster is drawn. A
  ratio of sums over observations, ``sum(x) / sum(w)`` (a mean over a subset: ``x`` the
  values on the subset and 0 elsewhere, ``w`` its indicator), is then ``sum_c k_c X_c /
  sum_c k_c W_c`` with ``k_c`` the draws of cluster ``c`` and ``X_c``, ``W_c`` its sums: a
  product of the draw counts with the clusters' sums, for every resample at once
  (:func:`resampled_ratios`; NaN where no drawn cluster has ``w``). :func:`member_indices`
  lists a resample's observations, for statistics that take indices
  (:func:`geval_repro.stats.accuracy.resampled_accuracies`).
- **Paired sign-flip test over clusters.** For paired observations ``(a_j, b_j)`` (e.g.
  whether a judge and whether the humans prefer a text) the statistic is the mean
  difference ``sum_j (a_j - b_j) / n``. Under the null hypothesis that ``a`` and ``b`` are
  exchangeable within each cluster, swapping them in a cluster negates the cluster's sum of
  differences; each resample swaps every cluster with probability 1/2 (masks
  ``default_rng(seed).random((n_resamples, n_clusters)) < 0.5``, as
  :func:`~geval_repro.stats.permutation.paired_permutation_test` swaps its units) and the
  p-value is ``(1 + k) / (1 + n_resamples)`` with ``k`` the permuted means at least as
  extreme as the observed one (differences within 1e-12 count as ties), as there.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from geval_repro.stats.permutation import ALTERNATIVES, permutation_pvalue
from geval_repro.stats.results import PermutationResult

UNIT = "clusters"


class Clusters(NamedTuple):
    """Which cluster each observation belongs to: ``index`` ``(n_obs,)`` in ``0 ..
    n_clusters - 1`` (clusters numbered in sorted order of their labels)."""

    index: np.ndarray
    n_clusters: int

    @classmethod
    def of(cls, labels: Sequence[object] | np.ndarray) -> Clusters:
        """The clusters of ``labels`` (one per observation; equal labels, one cluster)."""
        values = np.asarray(labels)
        if values.ndim != 1 or values.size == 0:
            raise ValueError(f"cluster labels must be a non-empty 1-D sequence, got {values.shape}")
        names, index = np.unique(values, return_inverse=True)
        return cls(index.astype(np.intp), int(names.size))

    @property
    def sizes(self) -> np.ndarray:
        """Observations per cluster, ``(n_clusters,)``."""
        return np.bincount(self.index, minlength=self.n_clusters)


def _check_resamples(n_resamples: int) -> None:
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be a positive integer, got {n_resamples}")


def cluster_draws(n_clusters: int, n_resamples: int, seed: int) -> np.ndarray:
    """How often each cluster is drawn in each resample, ``(n_resamples, n_clusters)``.

    The draws are ``default_rng(seed).integers(0, n_clusters, (n_resamples, n_clusters))``.
    """
    _check_resamples(n_resamples)
    if n_clusters < 1:
        raise ValueError(f"a bootstrap over clusters needs at least one cluster, got {n_clusters}")
    draws = np.random.default_rng(seed).integers(0, n_clusters, size=(n_resamples, n_clusters))
    flat = draws + n_clusters * np.arange(n_resamples)[:, None]
    return np.bincount(flat.ravel(), minlength=n_resamples * n_clusters).reshape(
        n_resamples, n_clusters
    )


def cluster_sums(values: np.ndarray, clusters: Clusters) -> np.ndarray:
    """Sums of ``values`` ``(n_obs, ...)`` per cluster, ``(n_clusters, ...)``."""
    values = np.asarray(values, dtype=float)
    if values.shape[0] != clusters.index.size:
        raise ValueError(
            f"{values.shape[0]} values for {clusters.index.size} clustered observations"
        )
    sums = np.zeros((clusters.n_clusters, *values.shape[1:]))
    np.add.at(sums, clusters.index, values)
    return sums


def resampled_ratios(
    numerators: np.ndarray, denominators: np.ndarray, clusters: Clusters, draws: np.ndarray
) -> np.ndarray:
    """``sum(numerators) / sum(denominators)`` over each resample's observations.

    ``numerators`` and ``denominators``: finite ``(n_obs, k)`` arrays (k statistics at
    once); ``draws``: :func:`cluster_draws`. Returns ``(n_resamples, k)``, NaN where the
    denominator is 0.
    """
    for name, array in (("numerators", numerators), ("denominators", denominators)):
        if not np.isfinite(array).all():
            raise ValueError(f"{name} must be finite (0 for an observation left out)")
    totals = draws @ cluster_sums(numerators, clusters)
    weights = draws @ cluster_sums(denominators, clusters)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(weights != 0, totals / weights, np.nan)


def member_indices(clusters: Clusters, draws: np.ndarray) -> np.ndarray:
    """Each resample's observations, ``(n_resamples, width)``: the members of every drawn
    cluster (in cluster order, each cluster as often as it is drawn), padded at the end
    with ``n_obs`` (an index one past the last observation) to the longest resample."""
    order = np.argsort(clusters.index, kind="stable")
    sizes = clusters.sizes
    starts = np.cumsum(sizes) - sizes
    n_resamples, n_clusters = draws.shape
    block_cluster = np.tile(np.arange(n_clusters), n_resamples)
    block_row = np.repeat(np.arange(n_resamples), n_clusters)
    copies = np.repeat(np.arange(draws.size), draws.ravel())  # one entry per drawn copy
    copy_cluster = block_cluster[copies]
    copy_sizes = sizes[copy_cluster]
    member_copy = np.repeat(np.arange(copies.size), copy_sizes)
    offset = np.arange(member_copy.size) - (np.cumsum(copy_sizes) - copy_sizes)[member_copy]
    members = order[starts[copy_cluster[member_copy]] + offset]
    rows = block_row[copies[member_copy]]
    lengths = np.bincount(rows, minlength=n_resamples)
    position = np.arange(members.size) - (np.cumsum(lengths) - lengths)[rows]
    indices = np.full((n_resamples, int(lengths.max(initial=0))), clusters.index.size)
    indices[rows, position] = members
    return indices


def flipped_means(differences: np.ndarray, clusters: Clusters, flips: np.ndarray) -> np.ndarray:
    """The mean of ``differences`` ``(n_obs,)`` with the clusters of each row of ``flips``
    ``(n_resamples, n_clusters)`` (booleans) negated, ``(n_resamples,)``."""
    totals = cluster_sums(differences, clusters)
    signs = np.where(np.asarray(flips, dtype=bool), -1.0, 1.0)
    return signs @ totals / clusters.index.size


def sign_flip_test(
    differences: np.ndarray,
    clusters: Clusters,
    *,
    n_resamples: int,
    seed: int,
    alternative: str = "two-sided",
) -> PermutationResult:
    """Paired sign-flip permutation test of ``mean(differences) = 0`` over clusters (module
    docstring); ``differences``: finite ``(n_obs,)``, e.g. ``a_j - b_j``."""
    differences = np.asarray(differences, dtype=float)
    if not np.isfinite(differences).all():
        raise ValueError("differences must be finite: leave unpaired observations out")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"unknown alternative {alternative!r}: use one of {ALTERNATIVES}")
    _check_resamples(n_resamples)
    observed = float(differences.sum() / differences.size)
    flips = np.random.default_rng(seed).random((n_resamples, clusters.n_clusters)) < 0.5
    permuted = flipped_means(differences, clusters, flips)
    permuted.setflags(write=False)
    return PermutationResult(
        statistic=observed,
        pvalue=permutation_pvalue(permuted, observed, alternative),
        distribution=permuted,
        unit=UNIT,
        alternative=alternative,
        n_resamples=n_resamples,
    )
