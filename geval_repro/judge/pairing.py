"""The join of a judge's per-item scores with the human scores of the same items."""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.stats.matrix import to_matrix


def paired_items(
    items: pd.DataFrame, human: pd.DataFrame, dimension: str, score: str
) -> pd.DataFrame:
    """The judge's ``score`` of each item of ``dimension`` beside its human score.

    Columns: doc_id, system_id, judge, human.
    """
    rows = items.loc[items["dimension"] == dimension, ["doc_id", "system_id", score]]
    joined = rows.merge(human[["doc_id", "system_id", dimension]], on=["doc_id", "system_id"])
    return joined.rename(columns={score: "judge", dimension: "human"})


def paired_matrices(
    items: pd.DataFrame, human: pd.DataFrame, dimension: str, score: str
) -> tuple[np.ndarray, np.ndarray]:
    """(systems x documents) matrices of the judge's ``score`` and the human score, aligned."""
    joined = paired_items(items, human, dimension, score)
    judge, _, _ = to_matrix(joined, "judge")
    gold, _, _ = to_matrix(joined, "human")
    return judge, gold
