"""Agreement of SummEval's three expert annotators (per-expert scores from MetricEval).

Krippendorff's alpha per dimension over the 1,600 summaries, the experts as coders and each
(doc_id, system_id) summary as a unit, computed with the ``krippendorff`` package:
``alpha = 1 - D_o / D_e`` (observed over expected disagreement). The ratings are 1-5 Likert
points, so the primary figure uses the ordinal distance (``alpha_ordinal``, the level of
measurement the scale supports); the interval distance (``alpha_interval``, squared
differences) is reported beside it because averaging the experts, as SummEval and G-Eval
do, treats the scale as interval.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd

#: The columns that key one rated summary (a system's summary of a document).
SUMMARY_UNIT = ["doc_id", "system_id"]


def _ratings(experts: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Items x experts table of one dimension (NaN = missing); duplicates raise."""
    part = experts.loc[experts["dimension"] == dimension]
    duplicated = part.duplicated([*SUMMARY_UNIT, "expert"], keep=False)
    if duplicated.any():
        row = part.loc[duplicated].iloc[0]
        raise ValueError(
            f"{dimension}: expert {row['expert']} rates ({row['doc_id']!r}, "
            f"{row['system_id']!r}) more than once; keep one rating per expert and summary"
        )
    return part.pivot(index=SUMMARY_UNIT, columns="expert", values="score").sort_index()


def expert_mean_scores(experts: pd.DataFrame) -> pd.DataFrame:
    """Mean of the experts' ratings per summary, wide: doc_id, system_id, one column per dimension.

    ``experts``: :func:`geval_repro.load.metriceval.load_metriceval_experts` (long form).
    """
    means = experts.groupby([*SUMMARY_UNIT, "dimension"])["score"].mean().unstack("dimension")
    means.columns.name = None
    return means.reset_index()


def expert_alpha(experts: pd.DataFrame) -> pd.DataFrame:
    """Krippendorff's alpha of the experts per dimension (see the module docstring).

    Returns one row per dimension: dimension, n_items, n_experts, alpha_ordinal,
    alpha_interval.
    """
    rows = []
    for dimension in sorted(experts["dimension"].unique()):
        ratings = _ratings(experts, dimension)
        data = ratings.to_numpy(dtype=float).T  # coders x units
        domain = np.unique(data[~np.isnan(data)])
        rows.append(
            {
                "dimension": dimension,
                "n_items": data.shape[1],
                "n_experts": data.shape[0],
                "alpha_ordinal": krippendorff.alpha(
                    reliability_data=data, value_domain=domain, level_of_measurement="ordinal"
                ),
                "alpha_interval": krippendorff.alpha(
                    reliability_data=data, level_of_measurement="interval"
                ),
            }
        )
    return pd.DataFrame(rows)
