"""Each system's expert ratings averaged, against a table that prints them (SummEval's Table 3).

A system's mean on a dimension is the mean over its summaries of the mean of the experts'
ratings (every summary has every expert's rating, so this is also the mean of all its
ratings). Compared with a printed table of the same means to two decimals: a cell
reproduces when our mean rounds to the printed value (half a unit of the second decimal:
``|ours - printed| <= 0.005``).
"""

from __future__ import annotations

import pandas as pd

#: Half a unit of a printed mean's second decimal.
PRINTED_TOLERANCE = 0.005


def system_means(experts: pd.DataFrame) -> pd.DataFrame:
    """Per (system_id, dimension): ``mean`` (the system's mean expert rating) and
    ``n_summaries``. ``experts``: long table (doc_id, system_id, expert, dimension, score)."""
    per_summary = experts.groupby(["system_id", "dimension", "doc_id"], sort=True)["score"].mean()
    grouped = per_summary.groupby(["system_id", "dimension"], sort=True)
    return pd.DataFrame({"mean": grouped.mean(), "n_summaries": grouped.size()}).reset_index()


def compare_with_printed(means: pd.DataFrame, printed: pd.DataFrame) -> pd.DataFrame:
    """:func:`system_means` beside ``printed`` (system_id, system, dimension, value), one row
    per printed cell in its order: ``ours``, ``printed``, ``difference`` (ours - printed)
    and ``reproduces`` (ours rounds to the printed value); a printed system without
    ratings raises."""
    merged = printed.merge(means, on=["system_id", "dimension"], how="left", validate="1:1")
    missing = merged[merged["mean"].isna()]
    if not missing.empty:
        raise ValueError(f"no expert ratings of printed system(s) {sorted(set(missing.system_id))}")
    difference = merged["mean"] - merged["value"]
    return pd.DataFrame(
        {
            "system_id": merged["system_id"],
            "system": merged["system"],
            "dimension": merged["dimension"],
            "ours": merged["mean"],
            "printed": merged["value"],
            "difference": difference,
            "reproduces": difference.abs() <= PRINTED_TOLERANCE + 1e-12,
            "n_summaries": merged["n_summaries"].astype("int64"),
        }
    )
