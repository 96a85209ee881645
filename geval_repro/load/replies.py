"""Judge replies in the released G-Eval format, in long form, joined to SummEval.

The format is that of nlpyang/geval ``results/gpt4_<dim>_detailed.json``: a JSON list of
summeval.json items (``doc_id``, ``system_id``, ``source``, ``reference``, ``system_output``,
``scores``), each plus ``prompt`` (the filled-in prompt) and ``all_responses`` (the judge's
raw reply strings; 20 sampled replies per item in the release). Only the keys, the human
scores and the replies are read; the texts and the prompt are not used.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.summeval import SCORE_KEYS, describe_item
from geval_repro.schemas import REPLIES, SUMMEVAL_DIMENSIONS, read_json, validate_table

BENCHMARK = "summeval"
SCORE_TOLERANCE = 1e-9
FORMAT_FIX = (
    "a replies file is a JSON list of summeval.json items, each with its doc_id, system_id and "
    "scores unchanged and 'all_responses' a non-empty list of reply strings (a released file "
    "must match its SHA-256 in geval_repro/data/sources.yaml)"
)


def _fail(path: str | Path, item: dict, index: int, problem: str, fix: str) -> ValueError:
    return ValueError(
        f"{path}: {describe_item(item, index)} {problem}. Fix: {fix}. Note: {FORMAT_FIX}."
    )


def _check_item(item: object, index: int, path: str | Path) -> np.ndarray:
    """The item's human scores in ``SCORE_KEYS`` order (``overall`` NaN when absent).

    Checks the keys, the score types and the replies of one item.
    """
    if not isinstance(item, dict):
        raise ValueError(
            f"{path}: item {index} is a {type(item).__name__}, not an object. Fix: {FORMAT_FIX}."
        )
    for key in ("doc_id", "system_id"):
        if not isinstance(item.get(key), str):
            raise _fail(
                path,
                item,
                index,
                f"has {key} {item.get(key)!r}, not a string",
                f"give the item its summeval.json {key}",
            )
    if "all_responses" not in item:
        raise _fail(path, item, index, "has no 'all_responses'", "add the item's replies")
    replies = item["all_responses"]
    if not isinstance(replies, list) or not replies:
        raise _fail(
            path,
            item,
            index,
            f"has 'all_responses' {replies!r:.80}, not a non-empty list",
            "give the item's replies as a list of strings",
        )
    for reply_index, reply in enumerate(replies):
        if not isinstance(reply, str):
            raise _fail(
                path,
                item,
                index,
                f"has reply {reply_index} = {reply!r:.80}, not a string",
                "store each raw reply text as a JSON string",
            )
    scores = item.get("scores")
    if not isinstance(scores, dict):
        raise _fail(
            path,
            item,
            index,
            f"has 'scores' {scores!r:.80}, not an object",
            "copy the item's scores from summeval.json",
        )
    values = np.full(len(SCORE_KEYS), np.nan)
    for position, key in enumerate(SCORE_KEYS):
        value = scores.get(key)
        if value is None and key == "overall":
            continue
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise _fail(
                path,
                item,
                index,
                f"has scores[{key!r}] = {value!r}, not a number",
                "copy the item's scores from summeval.json",
            )
        values[position] = value
    return values


def load_released_replies(
    path: str | Path, judge: str, dimension: str, summeval: pd.DataFrame
) -> pd.DataFrame:
    """A replies file in long form, every item checked against the SummEval table.

    Columns: judge (the caller's label), benchmark ("summeval"), dimension (the caller's,
    one of coherence, consistency, fluency, relevance), doc_id, system_id, reply_index
    (0-based, the file's order), reply (the raw string, unmodified). Rows follow the file's
    item order.

    Each item must join to exactly one row of ``summeval`` (the :func:`load_summeval` table)
    on (doc_id, system_id), and its human scores (the four dimensions, and ``overall`` when
    present) must equal that row's within 1e-9. Duplicate or unknown items, a score
    mismatch, a missing or empty ``all_responses`` and a non-string reply are errors naming
    the file, the item (list index, doc_id, system_id) and the fix. The file need not cover
    all 1,600 summaries; callers that need full coverage check it.
    """
    if dimension not in SUMMEVAL_DIMENSIONS:
        raise ValueError(
            f"unknown SummEval dimension {dimension!r}: use one of {list(SUMMEVAL_DIMENSIONS)}"
        )
    items = read_json(path, fix=FORMAT_FIX)
    if not isinstance(items, list) or not items:
        found = "an empty list" if isinstance(items, list) else type(items).__name__
        raise ValueError(
            f"{path}: expected a non-empty JSON list of items, found {found}. Fix: {FORMAT_FIX}."
        )
    scores = np.array([_check_item(item, i, path) for i, item in enumerate(items)])
    keys = pd.DataFrame(
        {
            "doc_id": [item["doc_id"] for item in items],
            "system_id": [item["system_id"] for item in items],
        }
    )

    duplicated = np.flatnonzero(keys.duplicated(keep="first").to_numpy())
    if duplicated.size:
        index = int(duplicated[0])
        first = int(np.flatnonzero((keys == keys.iloc[index]).all(axis=1).to_numpy())[0])
        raise _fail(
            path,
            items[index],
            index,
            f"repeats item {first} ({duplicated.size} duplicate(s) in the file)",
            "keep one entry per (doc_id, system_id)",
        )

    reference = summeval.set_index(["doc_id", "system_id"])[list(SCORE_KEYS)]
    position = reference.index.get_indexer(pd.MultiIndex.from_frame(keys))
    unknown = np.flatnonzero(position < 0)
    if unknown.size:
        index = int(unknown[0])
        raise _fail(
            path,
            items[index],
            index,
            f"is not a SummEval summary ({unknown.size} unknown item(s) in the file)",
            "remove it or correct its doc_id/system_id",
        )

    expected = reference.to_numpy(dtype=float)[position]
    mismatch = np.abs(scores - expected) > SCORE_TOLERANCE  # NaN (absent overall) compares False
    bad_items = np.flatnonzero(mismatch.any(axis=1))
    if bad_items.size:
        index = int(bad_items[0])
        column = int(np.flatnonzero(mismatch[index])[0])
        raise _fail(
            path,
            items[index],
            index,
            f"has scores[{SCORE_KEYS[column]!r}] = {float(scores[index, column])!r} but "
            f"summeval.json has {float(expected[index, column])!r} "
            f"({bad_items.size} item(s) differ)",
            "the item's human scores must be summeval.json's; check that the file belongs to "
            "this SummEval version and that the item is not misattributed",
        )

    lengths = np.array([len(item["all_responses"]) for item in items], dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    table = pd.DataFrame(
        {
            "judge": judge,
            "benchmark": BENCHMARK,
            "dimension": dimension,
            "doc_id": np.repeat(keys["doc_id"].to_numpy(), lengths),
            "system_id": np.repeat(keys["system_id"].to_numpy(), lengths),
            "reply_index": np.arange(lengths.sum(), dtype=np.int64) - starts,
            "reply": list(itertools.chain.from_iterable(item["all_responses"] for item in items)),
        }
    )
    return validate_table(
        table, REPLIES, path, ["doc_id", "system_id", "reply_index"], fix=FORMAT_FIX
    )
