"""The pairwise-accuracy table: per benchmark and dimension, every metric's ``acc_eq`` and
tie-calibrated ``acc*_eq`` with its interval and fitted threshold, and the share of pairs
the humans tie (Deutsch, Foster & Freitag 2023; :mod:`geval_repro.stats.accuracy`).

Made from the correlation rows (coefficients ``acc_eq`` and ``acc_eq_calibrated``, at each
benchmark's level: pairs within a SummEval document, all pairs of Topical-Chat and QAGS
items), so every number here is also a row of ``correlations.csv``. The paper prints no
pairwise accuracy; Tables 1-3 stay as the paper printed them.
"""

from __future__ import annotations

import pandas as pd

from geval_repro.registry.benchmarks import NAMES, dimensions_of, level_of
from geval_repro.tables.rows import VALUE_STATUSES

COLUMNS = [
    "benchmark",
    "dimension",
    "metric",
    "variant",
    "level",
    "acc_eq",
    "acc_eq_calibrated",
    "ci_low",
    "ci_high",
    "epsilon",
    "tie_rate",
    "human_tie_rate",
    "n_items",
    "status",
]


def pairwise_accuracy_table(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, dimension, metric, variant) with both accuracies.

    ``ci_low``/``ci_high`` and ``epsilon`` are those of ``acc_eq_calibrated`` (the interval
    re-fits the threshold in every resample); ``tie_rate`` is the share of pairs the metric
    ties exactly (epsilon 0), ``human_tie_rate`` the share the humans tie. Rows are in the
    paper's benchmark and dimension order (no AVG rows), the best ``acc*_eq`` first.
    """
    chosen = rows[
        rows["coefficient"].isin(["acc_eq", "acc_eq_calibrated"])
        & rows["status"].isin(VALUE_STATUSES)
        & rows["benchmark"].isin(NAMES)
        & (rows["level"] == rows["benchmark"].map(level_of))
    ]
    key = ["benchmark", "dimension", "metric", "variant", "level"]
    plain = chosen[chosen["coefficient"] == "acc_eq"].set_index(key)
    fitted = chosen[chosen["coefficient"] == "acc_eq_calibrated"].set_index(key)
    table = fitted[["ci_low", "ci_high", "epsilon", "human_tie_rate", "n_items", "status"]]
    table = table.assign(
        acc_eq=plain["value"].reindex(table.index),
        acc_eq_calibrated=fitted["value"],
        tie_rate=plain["tie_rate"].reindex(table.index),
    ).reset_index()
    position = {(b, d): i for b in NAMES for i, d in enumerate(dimensions_of(b))}
    cell = pd.Series(list(zip(table["benchmark"], table["dimension"], strict=True)))
    table = table.assign(
        _b=table["benchmark"].map({name: i for i, name in enumerate(NAMES)}),
        _d=cell.map(position).to_numpy(),
    ).dropna(subset=["_d"])  # the dimensions only: no AVG rows
    table = table.sort_values(
        ["_b", "_d", "acc_eq_calibrated", "metric", "variant"],
        ascending=[True, True, False, True, True],
        kind="stable",
    )
    return table.loc[:, COLUMNS].reset_index(drop=True).astype({"n_items": "Int64"})
