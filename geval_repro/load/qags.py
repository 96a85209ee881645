"""QAGS (Wang et al., 2020): UniEval's conversion with its predictions, and the MTurk originals.

UniEval's ``reproduce/data/fact/qags_{cnndm,xsum}.json`` are JSON lists (CNN/DM 235 items,
XSum 239), each ``{doc_id, system_id, source, reference, system_output, scores}`` with
``scores = {"consistency": c}``; ``doc_id`` is the item's position and ``system_id`` is 0
throughout, and ``reference`` repeats the source article. The matching
``reproduce/unieval_predict/fact/qags_<subset>_result.json`` repeats every item in order and
adds ``predict_scores = {"consistency": UniEval's score}``.

The originals, W4ngatang/qags ``data/mturk_<subset>.jsonl``, hold one summary per line
(``{article, summary_sentences: [{sentence, responses: [{worker_id, response}]}]}``) in the
same order as UniEval's items; three workers answered "yes"/"no" per summary sentence
(is the sentence supported by the article?). UniEval's ``consistency`` equals the fraction
of a summary's sentences that a majority of its workers answered "yes".
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.schemas import (
    QAGS,
    QAGS_MTURK,
    QAGS_N_ITEMS,
    UPSTREAM_FIX,
    require_numbers,
    validate_table,
)
from geval_repro.load.unieval_pairs import read_with_predictions

#: The fields every record of the upstream file holds.
RECORD_FIELDS = ("doc_id", "system_id", "source", "reference", "system_output", "scores")


def _check_subset(subset: str) -> None:
    if subset not in QAGS_N_ITEMS:
        raise ValueError(f"unknown QAGS subset {subset!r}: use one of {sorted(QAGS_N_ITEMS)}")


def load_qags(data_path: str | Path, predictions_path: str | Path, subset: str) -> pd.DataFrame:
    """One QAGS subset ("cnndm": 235 rows, "xsum": 239) with UniEval's predictions, file order.

    Columns: subset, item_id (file position), doc_id, system_id (the file's ints), source,
    reference, summary (the file's ``system_output``), consistency (human, 0-1),
    unieval_consistency. The two files must hold identical items in the same order.
    """
    _check_subset(subset)
    items, predicted = read_with_predictions(data_path, predictions_path, RECORD_FIELDS)
    human = [
        require_numbers(item["scores"], ["consistency"], data_path, f"item {i} scores")[0]
        for i, item in enumerate(items)
    ]
    unieval = [
        require_numbers(
            item["predict_scores"], ["consistency"], predictions_path, f"item {i} predict_scores"
        )[0]
        for i, item in enumerate(predicted)
    ]
    table = pd.DataFrame(
        {
            "subset": subset,
            "item_id": np.arange(len(items), dtype=np.int64),
            "doc_id": [item["doc_id"] for item in items],
            "system_id": [item["system_id"] for item in items],
            "source": [item["source"] for item in items],
            "reference": [item["reference"] for item in items],
            "summary": [item["system_output"] for item in items],
            "consistency": np.array(human, dtype=float),
            "unieval_consistency": np.array(unieval, dtype=float),
        }
    )
    return validate_table(table, QAGS, data_path, ["subset", "item_id", "doc_id"])


def _mturk_rows(record: object, line: int, path: str | Path) -> list[tuple]:
    """``(summary_index, sentence_index, sentence, worker_id, response)`` for one line."""
    where = f"{path}: line {line + 1}"
    if not isinstance(record, dict) or not isinstance(record.get("summary_sentences"), list):
        raise ValueError(f"{where} has no 'summary_sentences' list. Fix: {UPSTREAM_FIX}.")
    rows = []
    for sentence_index, sentence in enumerate(record["summary_sentences"]):
        if not isinstance(sentence, dict) or not isinstance(sentence.get("responses"), list):
            raise ValueError(
                f"{where}, sentence {sentence_index} has no 'responses' list. Fix: {UPSTREAM_FIX}."
            )
        for answer in sentence["responses"]:
            if not isinstance(answer, dict) or not {"worker_id", "response"} <= set(answer):
                raise ValueError(
                    f"{where}, sentence {sentence_index}: a response lacks worker_id or response "
                    f"({answer!r}). Fix: {UPSTREAM_FIX}."
                )
            rows.append(
                (
                    line,
                    sentence_index,
                    sentence.get("sentence"),
                    answer["worker_id"],
                    answer["response"],
                )
            )
    return rows


def load_qags_mturk(path: str | Path, subset: str) -> pd.DataFrame:
    """The MTurk answers of one QAGS subset in long form, one row per (sentence, worker).

    Columns: subset, summary_index (0-based line number = UniEval's doc_id and item_id),
    sentence_index (0-based within the summary), sentence, worker_id, response ("yes" or
    "no"). CNN/DM: 235 summaries, 714 sentences, 2,142 answers; XSum: 239 one-sentence
    summaries, 717 answers. The article text is left out (UniEval's ``source`` holds it,
    re-tokenized).
    """
    _check_subset(subset)
    rows: list[tuple] = []
    with open(path, "rb") as handle:
        for line, data in enumerate(handle):
            try:
                record = json.loads(data.decode("utf-8"))
            except (json.JSONDecodeError, UnicodeDecodeError) as error:
                raise ValueError(
                    f"{path}: line {line + 1} is not valid JSON ({error}). Fix: {UPSTREAM_FIX}."
                ) from None
            rows.extend(_mturk_rows(record, line, path))
    table = pd.DataFrame(
        rows, columns=["summary_index", "sentence_index", "sentence", "worker_id", "response"]
    ).astype({"summary_index": "int64", "sentence_index": "int64"})
    table.insert(0, "subset", subset)
    return validate_table(table, QAGS_MTURK, path, ["summary_index", "sentence_index", "worker_id"])
