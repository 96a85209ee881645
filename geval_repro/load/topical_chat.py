"""Topical-Chat as converted by UniEval, joined with UniEval's released predictions.

``reproduce/data/dialogue/topical_chat.json`` (maszhongming/UniEval) is a JSON list of 360
items, 60 dialogue contexts x 6 response systems (Mehri and Eskenazi, 2020, USR), each
``{source, system_id, system_output, context, scores}``: ``source`` is the dialogue history,
``context`` the knowledge fact the response should use, ``system_output`` the response and
``scores`` the mean of three annotators on understandability (0-1), naturalness, coherence,
engagingness (1-3), groundedness (0-1) and overall (1-5), rounded to 10 decimals in the file.

``reproduce/unieval_predict/dialogue/topical_chat_result.json`` repeats every item in the
same order and adds ``predict_scores``, UniEval's score for each of the six dimensions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.schemas import (
    TOPICAL_CHAT,
    TOPICAL_CHAT_DIMENSIONS,
    require_numbers,
    validate_table,
)
from geval_repro.load.unieval_pairs import read_with_predictions

#: The fields every record of the upstream file holds.
RECORD_FIELDS = ("source", "system_id", "system_output", "context", "scores")
COLUMNS = {"source": "history", "context": "fact", "system_output": "response"}


def load_topical_chat(data_path: str | Path, predictions_path: str | Path) -> pd.DataFrame:
    """The Topical-Chat table: 360 rows in file order, human scores and UniEval's predictions.

    Columns: item_id (0..359, file order), context_id (0..59, numbering the distinct
    (history, fact) pairs in order of first appearance; each has exactly the 6 systems),
    system_id, history, fact, response, the six human dimensions, and ``unieval_<dim>`` for
    each. The two files must hold the same items in the same order with identical text,
    system and human scores; any difference is an error naming the item.
    """
    items, predicted = read_with_predictions(data_path, predictions_path, RECORD_FIELDS)
    human = np.array(
        [
            require_numbers(item["scores"], TOPICAL_CHAT_DIMENSIONS, data_path, f"item {i} scores")
            for i, item in enumerate(items)
        ],
        dtype=float,
    ).reshape(len(items), len(TOPICAL_CHAT_DIMENSIONS))
    unieval = np.array(
        [
            require_numbers(
                item["predict_scores"],
                TOPICAL_CHAT_DIMENSIONS,
                predictions_path,
                f"item {i} predict_scores",
            )
            for i, item in enumerate(predicted)
        ],
        dtype=float,
    ).reshape(len(items), len(TOPICAL_CHAT_DIMENSIONS))
    table = pd.DataFrame(
        {
            "item_id": np.arange(len(items), dtype=np.int64),
            "system_id": [item["system_id"] for item in items],
            **{column: [item[key] for item in items] for key, column in COLUMNS.items()},
        }
    )
    contexts = table.groupby(["history", "fact"], sort=False).ngroup()
    table.insert(1, "context_id", contexts.to_numpy(dtype=np.int64))
    table[list(TOPICAL_CHAT_DIMENSIONS)] = human
    table[[f"unieval_{dim}" for dim in TOPICAL_CHAT_DIMENSIONS]] = unieval
    return validate_table(table, TOPICAL_CHAT, data_path, ["item_id", "context_id", "system_id"])
