"""SFRES and SFHOT (Novikova et al., 2017), data-to-text, as UniEval converted them, with its
predictions.

UniEval's ``reproduce/data/data2text/{sfres,sfhot}.json`` are JSON lists (SFRES 1,181 items,
SFHOT 875), each ``{doc_id, source, reference, system_output, scores}``: ``source`` is the
dialogue act the utterance ``system_output`` was generated from (e.g.
``inform(name='x';food=thai)``), ``reference`` the human-written utterance for that act, and
``scores`` the crowd ratings of ``naturalness``, ``informativeness`` and ``overall`` quality,
1-6 (means of annotators, so halves occur). ``doc_id`` is the item's position. Every act has
two or more generated utterances (SFRES: 580 acts, SFHOT: 398), one reference each; the
matching ``reproduce/unieval_predict/data2text/<subset>_result.json`` repeats every item in
order and adds ``predict_scores``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from geval_repro.load.schemas import (
    DATA_TO_TEXT,
    DATA_TO_TEXT_COUNTS,
    DATA_TO_TEXT_DIMENSIONS,
    UPSTREAM_FIX,
    require_numbers,
    validate_table,
)
from geval_repro.load.unieval_pairs import read_with_predictions

#: The fields every record of the upstream file holds.
RECORD_FIELDS = ("doc_id", "source", "reference", "system_output", "scores")


def load_data_to_text(
    data_path: str | Path, predictions_path: str | Path, subset: str
) -> pd.DataFrame:
    """SFRES (``subset`` "sfres": 1,181 rows) or SFHOT ("sfhot": 875) with UniEval's
    predictions, in file order.

    Columns: subset, item_id (the file position), act_id (the dialogue act's number, in
    order of first appearance), dialogue_act (the file's ``source``), reference, utterance
    (``system_output``), naturalness, informativeness, overall (human, 1-6), and
    ``unieval_<dimension>`` for each. The two files must hold identical items in order.
    """
    if subset not in DATA_TO_TEXT_COUNTS:
        raise ValueError(
            f"unknown data-to-text set {subset!r}: use one of {list(DATA_TO_TEXT_COUNTS)}"
        )
    items, predicted = read_with_predictions(data_path, predictions_path, RECORD_FIELDS)
    for index, item in enumerate(items):
        if item["doc_id"] != index:
            raise ValueError(
                f"{data_path}: item {index} has doc_id {item['doc_id']!r}, not its position "
                f"{index}. Fix: {UPSTREAM_FIX}."
            )
    human = [
        require_numbers(item["scores"], DATA_TO_TEXT_DIMENSIONS, data_path, f"item {i} scores")
        for i, item in enumerate(items)
    ]
    unieval = [
        require_numbers(
            item["predict_scores"],
            DATA_TO_TEXT_DIMENSIONS,
            predictions_path,
            f"item {i} predict_scores",
        )
        for i, item in enumerate(predicted)
    ]
    acts = pd.Series([item["source"] for item in items])
    table = pd.DataFrame(
        {
            "subset": subset,
            "item_id": range(len(items)),
            "act_id": pd.factorize(acts)[0],
            "dialogue_act": acts,
            "reference": [item["reference"] for item in items],
            "utterance": [item["system_output"] for item in items],
        }
    )
    table[list(DATA_TO_TEXT_DIMENSIONS)] = human
    table[[f"unieval_{d}" for d in DATA_TO_TEXT_DIMENSIONS]] = unieval
    return validate_table(table, DATA_TO_TEXT, data_path, ["item_id", "dialogue_act"])
