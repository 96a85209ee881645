"""Checks shared by the judge-file loaders: item keys, the join to the benchmark's human
table, human scores carried by an item, and reply lists.

An item of a judge file names one judged text by the item keys of its benchmark
(:mod:`geval_repro.registry.benchmarks`), of its ``item_key_type``: ``doc_id`` and
``system_id`` (strings) for SummEval, ``item_id`` (a non-negative integer, as in
``data/processed``) for Topical-Chat and QAGS, ``item_id`` (a string of 12 hex digits) for
writer vs GPT-3.5.
Every check raises a ``ValueError`` naming the file, the item (list index or line, and its
keys) and the fix.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark

SCORE_TOLERANCE = 1e-9
Fail = Callable[[int, str, str], ValueError]


def describe(item: object, where: str, keys: Sequence[str]) -> str:
    """``item 3 (doc_id='...', system_id='...')``: how errors name an item."""
    values = ", ".join(
        f"{key}={item.get(key)!r}" for key in keys if isinstance(item, dict) and key in item
    )
    return f"{where} ({values})" if values else where


def item_key(item: dict, benchmark: Benchmark, fail: Fail, index: int) -> tuple:
    """The item's keys, type-checked against the benchmark's ``item_key_type`` (strings, or
    integers >= 0)."""
    values = []
    for key in benchmark.item_keys:
        value = item.get(key)
        if benchmark.item_key_type is int:
            ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
            wanted = "a non-negative integer"
        else:
            ok = isinstance(value, str)
            wanted = "a string"
        if not ok:
            raise fail(
                index,
                f"has {key} {value!r}, not {wanted}",
                f"give the item its {benchmark.title} {key} (as in data/processed)",
            )
        values.append(value)
    return tuple(values)


def join_positions(
    keys: pd.DataFrame, human: pd.DataFrame, benchmark: Benchmark, fail: Fail
) -> np.ndarray:
    """Row of ``human`` of each item; raise on a duplicate or an unknown item."""
    columns = list(benchmark.item_keys)
    duplicated = np.flatnonzero(keys.duplicated(keep="first").to_numpy())
    if duplicated.size:
        index = int(duplicated[0])
        first = int(np.flatnonzero((keys == keys.iloc[index]).all(axis=1).to_numpy())[0])
        raise fail(
            index,
            f"repeats item {first} ({duplicated.size} duplicate(s) in the file)",
            f"keep one entry per {tuple(columns)}",
        )
    reference = pd.MultiIndex.from_frame(human[columns])
    position = reference.get_indexer(pd.MultiIndex.from_frame(keys))
    unknown = np.flatnonzero(position < 0)
    if unknown.size:
        raise fail(
            int(unknown[0]),
            f"is not a {benchmark.title} item ({unknown.size} unknown item(s) in the file)",
            f"remove it or correct its {'/'.join(columns)}",
        )
    return position


def carried_scores(
    item: dict, names: Sequence[str], optional: Sequence[str], fail: Fail, index: int
) -> np.ndarray:
    """The human scores an item carries under ``scores`` (NaN where an optional one is absent).

    A score that is not a finite number is an error: NaN would otherwise compare unequal to
    nothing and slip past the check against the benchmark's table.
    """
    scores = item.get("scores")
    if not isinstance(scores, dict):
        raise fail(
            index,
            f"has 'scores' {scores!r:.80}, not an object",
            "copy the item's scores from the benchmark's file",
        )
    values = np.full(len(names), np.nan)
    for position, key in enumerate(names):
        value = scores.get(key)
        if value is None and key in optional:
            continue
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise fail(
                index,
                f"has scores[{key!r}] = {value!r}, not a finite number",
                "copy the item's scores from the benchmark's file",
            )
        values[position] = value
    return values


def check_carried_scores(
    carried: np.ndarray, expected: np.ndarray, names: Sequence[str], fail: Fail
) -> None:
    """Raise when a carried human score differs from the benchmark's table by > 1e-9."""
    mismatch = np.abs(carried - expected) > SCORE_TOLERANCE  # NaN (absent) compares False
    bad = np.flatnonzero(mismatch.any(axis=1))
    if bad.size:
        index = int(bad[0])
        column = int(np.flatnonzero(mismatch[index])[0])
        raise fail(
            index,
            f"has scores[{names[column]!r}] = {float(carried[index, column])!r} but the "
            f"benchmark's table has {float(expected[index, column])!r} "
            f"({bad.size} item(s) differ)",
            "the item's human scores must be the benchmark's; check that the file belongs to "
            "this benchmark version and that the item is not misattributed",
        )


def joined_keys(
    keys: Sequence[tuple],
    carried: Sequence[np.ndarray],
    human: pd.DataFrame,
    benchmark: Benchmark,
    names: Sequence[str],
    fail: Fail,
) -> pd.DataFrame:
    """The items' keys as a table, each item found in ``human`` (:func:`join_positions`) and
    its carried human scores (columns ``names``) equal to the table's
    (:func:`check_carried_scores`)."""
    key_frame = pd.DataFrame(list(keys), columns=list(benchmark.item_keys))
    position = join_positions(key_frame, human, benchmark, fail)
    expected = human[list(names)].to_numpy(dtype=float)[position]
    check_carried_scores(np.array(carried), expected, names, fail)
    return key_frame


def check_reply_list(replies: object, fail: Fail, index: int, field: str) -> list[str]:
    """``replies`` checked to be a non-empty list of strings."""
    if not isinstance(replies, list) or not replies:
        raise fail(
            index,
            f"has {field!r} {replies!r:.80}, not a non-empty list",
            "give the item's replies as a list of strings",
        )
    for reply_index, reply in enumerate(replies):
        if not isinstance(reply, str):
            raise fail(
                index,
                f"has reply {reply_index} = {reply!r:.80}, not a string",
                "store each raw reply text as a JSON string",
            )
    return replies


def replies_frame(
    judge: str,
    benchmark: Benchmark,
    dimension: str,
    keys: pd.DataFrame,
    replies: Sequence[list[str]],
) -> pd.DataFrame:
    """The long replies table: run keys, item keys, reply_index (0-based), reply."""
    lengths = np.array([len(r) for r in replies], dtype=np.int64)
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    return pd.DataFrame(
        {
            "judge": judge,
            "benchmark": benchmark.name,
            "dimension": dimension,
            **{key: np.repeat(keys[key].to_numpy(), lengths) for key in benchmark.item_keys},
            "reply_index": np.arange(lengths.sum(), dtype=np.int64) - starts,
            "reply": list(itertools.chain.from_iterable(replies)),
        }
    )
