"""Agreement of a benchmark's annotators: SummEval's three experts (per-expert scores from
MetricEval), DialSummEval's three annotators.

Krippendorff's alpha per dimension over the summaries (SummEval 1,600, DialSummEval 1,300),
the annotators as coders and each (doc_id, system_id) summary as a unit, computed with the
``krippendorff`` package:
``alpha = 1 - D_o / D_e`` (observed over expected disagreement). The ratings are 1-5 Likert
points, so the primary figure uses the ordinal distance (``alpha_ordinal``, the level of
measurement the scale supports); the interval distance (``alpha_interval``, squared
differences) is reported beside it because averaging the annotators, as SummEval, DialSummEval
and G-Eval do, treats the scale as interval.
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pandas as pd

#: The columns that key one rated summary (a system's summary of a document).
SUMMARY_UNIT = ["doc_id", "system_id"]


#: The column of a long ratings table naming who gave a rating.
ANNOTATOR = "annotator"
#: The words of :func:`twins_note` that readers of a row's note look for.
TWINS = "gave the same rating on every item"


def annotator_ratings(annotators: pd.DataFrame, dimension: str) -> pd.DataFrame:
    """Items x annotators table of one dimension (NaN = missing); duplicates raise."""
    part = annotators.loc[annotators["dimension"] == dimension]
    duplicated = part.duplicated([*SUMMARY_UNIT, ANNOTATOR], keep=False)
    if duplicated.any():
        row = part.loc[duplicated].iloc[0]
        raise ValueError(
            f"{dimension}: annotator {row[ANNOTATOR]} rates ({row['doc_id']!r}, "
            f"{row['system_id']!r}) more than once; keep one rating per annotator and summary"
        )
    return part.pivot(index=SUMMARY_UNIT, columns=ANNOTATOR, values="score").sort_index()


def twins_note(ratings: pd.DataFrame) -> str:
    """What a reader must know when two annotators of ``ratings`` (items x annotators, one
    dimension) gave the same rating on every item, else "": every number comparing annotators
    then rests on one annotator fewer than it counts (DialSummEval's coherence: annotators 2
    and 3, docs/protocol.md)."""
    names = list(ratings.columns)
    values = ratings.to_numpy(dtype=float)
    twins = [
        f"{names[a]} and {names[b]}"
        for a in range(len(names))
        for b in range(a + 1, len(names))
        if np.array_equal(values[:, a], values[:, b])
    ]
    if not twins:
        return ""
    return (
        f"annotators {', '.join(twins)} {TWINS} (as released): "
        "leaving one out leaves its twin among the others, so this rests on one annotator "
        "fewer than it counts"
    )


def annotator_mean_scores(annotators: pd.DataFrame) -> pd.DataFrame:
    """Mean of the annotators' ratings per summary, wide: doc_id, system_id, one column per
    dimension.

    ``annotators``: long form (doc_id, system_id, annotator, dimension, score), as from
    :func:`geval_repro.load.metriceval.load_metriceval_experts`.
    """
    means = annotators.groupby([*SUMMARY_UNIT, "dimension"])["score"].mean().unstack("dimension")
    means.columns.name = None
    return means.reset_index()


def annotator_alpha(annotators: pd.DataFrame) -> pd.DataFrame:
    """Krippendorff's alpha of the annotators per dimension (see the module docstring).

    Returns one row per dimension: dimension, n_items, n_annotators, alpha_ordinal,
    alpha_interval.
    """
    rows = []
    for dimension in sorted(annotators["dimension"].unique()):
        ratings = annotator_ratings(annotators, dimension)
        data = ratings.to_numpy(dtype=float).T  # coders x units
        domain = np.unique(data[~np.isnan(data)])
        rows.append(
            {
                "dimension": dimension,
                "n_items": data.shape[1],
                "n_annotators": data.shape[0],
                "alpha_ordinal": krippendorff.alpha(
                    reliability_data=data, value_domain=domain, level_of_measurement="ordinal"
                ),
                "alpha_interval": krippendorff.alpha(
                    reliability_data=data, level_of_measurement="interval"
                ),
            }
        )
    return pd.DataFrame(rows)
