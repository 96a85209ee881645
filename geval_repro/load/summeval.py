"""SummEval as released with G-Eval (nlpyang/geval ``data/summeval.json``).

The file is a JSON list of 1,600 items (100 CNN/DailyMail test documents x 16 systems), each
``{doc_id, system_id, source, reference, system_output, scores}``. ``scores`` holds the mean
of the three expert annotations per dimension (coherence, consistency, fluency, relevance;
each 1-5, so multiples of 1/3) and ``overall``, the mean of those four.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.schemas import (
    SUMMEVAL,
    UPSTREAM_FIX,
    read_json,
    require_numbers,
    require_records,
    validate_table,
)
from geval_repro.registry.benchmarks import get_benchmark

#: The fields every record of the upstream file holds.
RECORD_FIELDS = ("doc_id", "system_id", "source", "reference", "system_output", "scores")
SCORE_KEYS = tuple(get_benchmark("summeval").human_scales)  # the dimensions, then overall
OVERALL_TOLERANCE = 1e-9


def describe_item(item: dict, index: int) -> str:
    """``item <index> (doc_id=..., system_id=...)``: how error messages name a SummEval item."""
    return f"item {index} (doc_id={item.get('doc_id')!r}, system_id={item.get('system_id')!r})"


def load_summeval(path: str | Path) -> pd.DataFrame:
    """The SummEval table: one row per (doc_id, system_id), 1,600 rows, in file order.

    Columns: doc_id, system_id, source, reference, system_output (str); coherence,
    consistency, fluency, relevance (float, the file's expert means); overall (float, the
    file's value, checked to equal the mean of the four dimensions within 1e-9).
    """
    items = require_records(read_json(path), RECORD_FIELDS, path)
    scores = np.array(
        [
            require_numbers(
                item["scores"], SCORE_KEYS, path, f"{describe_item(item, index)} scores"
            )
            for index, item in enumerate(items)
        ],
        dtype=float,
    ).reshape(len(items), len(SCORE_KEYS))
    gap = np.abs(scores[:, -1] - scores[:, :-1].mean(axis=1))
    bad = np.flatnonzero(gap > OVERALL_TOLERANCE)
    if bad.size:
        index = int(bad[0])
        raise ValueError(
            f"{path}: {describe_item(items[index], index)} has overall {scores[index, -1]!r}, "
            f"not the mean of its four dimensions ({scores[index, :-1].mean()!r}); "
            f"{bad.size} item(s) differ. Fix: {UPSTREAM_FIX}."
        )
    table = pd.DataFrame(
        {key: [item[key] for item in items] for key in RECORD_FIELDS if key != "scores"}
    )
    table[list(SCORE_KEYS)] = scores
    return validate_table(table, SUMMEVAL, path, ["doc_id", "system_id"])
