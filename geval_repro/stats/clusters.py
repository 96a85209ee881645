"""Significance clusters of a ranking of metrics, as the WMT metrics tasks draw them
(mt-metrics-eval's ``AssignRanks``).

Metrics are ordered best first (by their correlation with the humans). Walking down the
order, a metric starts a new cluster when it is significantly worse than at least one
metric of the current cluster (the metrics from the cluster's first one down to the one
just above it); otherwise it joins the current cluster. Clusters are numbered 1, 2, ...
from the top, so metrics in one cluster are not separated by a significant difference from
the metrics ranked above them within it. What "significantly worse" means is the caller's
(here: a Holm-adjusted two-sided p-value of a paired permutation test at most 0.05, with
the difference in the better-ranked metric's favour; mt-metrics-eval uses uncorrected
one-sided p-values).
"""

from __future__ import annotations

import numpy as np


def significance_clusters(worse: np.ndarray) -> np.ndarray:
    """Cluster number (1 = top) of each of ``n`` metrics ordered best first.

    ``worse``: ``(n, n)`` booleans, ``worse[j, i]`` True when metric ``i`` is significantly
    worse than metric ``j``; only entries above the diagonal (``j < i``) are read.
    """
    worse = np.asarray(worse, dtype=bool)
    if worse.ndim != 2 or worse.shape[0] != worse.shape[1]:
        raise ValueError(f"worse must be a square matrix, got shape {worse.shape}")
    clusters = np.empty(worse.shape[0], dtype=int)
    current, start = 1, 0
    for i in range(worse.shape[0]):
        if worse[start:i, i].any():
            current, start = current + 1, i
        clusters[i] = current
    return clusters
