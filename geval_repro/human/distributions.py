"""Human score distributions and tie rates, per benchmark and dimension.

:func:`score_counts` tabulates how often each score value occurs; :func:`tie_rates` gives
the share of tied pairs among the pairs a coefficient compares at a correlation level,
through :func:`geval_repro.stats.ties.tie_rate` (pairs within each input for the summary
level, all pairs pooled for the global level). Scores that are means of annotators
(SummEval: multiples of 1/3) are compared as given; values within 1e-9 count as equal.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from geval_repro.stats.level import Level
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.ties import tie_rate

DECIMALS = 9


def score_counts(table: pd.DataFrame, dimensions: Sequence[str]) -> pd.DataFrame:
    """Count of each distinct score per dimension (rounded to 9 decimals to merge float noise).

    Returns rows: dimension, score, count, share (count / non-missing scores of the
    dimension), sorted by dimension and score.
    """
    frames = []
    for dimension in dimensions:
        values = table[dimension].dropna().to_numpy(dtype=float).round(DECIMALS)
        scores, counts = np.unique(values, return_counts=True)
        frames.append(
            pd.DataFrame(
                {
                    "dimension": dimension,
                    "score": scores,
                    "count": counts,
                    "share": counts / counts.sum(),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def tie_rates(
    table: pd.DataFrame,
    dimensions: Sequence[str],
    level: Level | str,
    systems: str = "system_id",
    inputs: str = "doc_id",
) -> pd.DataFrame:
    """Tie rate of each dimension's human scores at ``level`` (summary, system or global).

    ``systems``/``inputs`` name the columns that index the (n_systems, n_inputs) matrix
    (Topical-Chat: system_id, context_id; QAGS: system_id, item_id). Returns rows:
    dimension, level, rate, n_tied_pairs, n_pairs.
    """
    rows = []
    for dimension in dimensions:
        matrix, _, _ = to_matrix(table, dimension, systems=systems, inputs=inputs)
        result = tie_rate(matrix, level)
        rows.append(
            {
                "dimension": dimension,
                "level": Level(level).value,
                "rate": result.rate,
                "n_tied_pairs": result.n_tied_pairs,
                "n_pairs": result.n_pairs,
            }
        )
    return pd.DataFrame(rows)
