"""UniEval's converted benchmarks and its released predictions, read as matching pairs.

UniEval releases each benchmark (``reproduce/data/...``) and its predictions for it
(``reproduce/unieval_predict/..._result.json``) as two JSON lists: the second repeats every
item of the first, in the same order, and adds ``predict_scores``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from geval_repro.load.schemas import UPSTREAM_FIX, read_json, require_records


def read_with_predictions(
    data_path: str | Path, predictions_path: str | Path, item_keys: Sequence[str]
) -> tuple[list[dict], list[dict]]:
    """The two lists, checked to hold the same items (equal ``item_keys``) in the same order."""
    items = require_records(read_json(data_path), item_keys, data_path)
    predicted = require_records(
        read_json(predictions_path), (*item_keys, "predict_scores"), predictions_path
    )
    if len(items) != len(predicted):
        raise ValueError(
            f"{predictions_path}: {len(predicted)} items, but {data_path} has {len(items)}. "
            f"Fix: {UPSTREAM_FIX}."
        )
    for index, (item, prediction) in enumerate(zip(items, predicted, strict=True)):
        differing = [key for key in item_keys if item[key] != prediction[key]]
        if differing:
            raise ValueError(
                f"{predictions_path}: item {index} differs from item {index} of {data_path} in "
                f"{differing}; the predictions do not belong to these items. Fix: {UPSTREAM_FIX}."
            )
    return items, predicted
