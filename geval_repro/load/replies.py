"""Judge replies in the released G-Eval format, in long form, joined to their benchmark.

The format is that of nlpyang/geval ``results/gpt4_<dim>_detailed.json``: a JSON list of
items, each with the benchmark's item keys (:mod:`geval_repro.registry.benchmarks`),
``all_responses``
(the judge's raw reply strings; 20 sampled replies per item in the release) and, for
SummEval, the summeval.json fields (``source``, ``reference``, ``system_output``, ``scores``)
plus ``prompt``. Only the keys, the human scores and the replies are read.

- SummEval: ``doc_id`` and ``system_id`` (strings) and ``scores`` (the four dimensions and,
  when present, ``overall``), which must equal summeval.json's, as in the release;
- Topical-Chat, QAGS: ``item_id`` (the tidy table's integer id); ``scores`` is optional and,
  when given, its values for the benchmark's dimensions must equal the tidy table's;
- writer vs GPT-3.5: ``item_id`` (the tidy table's 12 hex digits); it has no per-item human
  score, so ``scores`` is not read.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load import judge_items
from geval_repro.load.schemas import read_json, replies_schema, validate_table
from geval_repro.registry.benchmarks import get_benchmark

FORMAT_FIX = (
    "a replies file is a JSON list of items, each with the benchmark's item keys (SummEval: "
    "doc_id, system_id and scores unchanged from summeval.json; other benchmarks: item_id) "
    "and 'all_responses' a non-empty list of reply strings (a released file must match its "
    "SHA-256 in geval_repro/data/sources.yaml)"
)


def load_released_replies(
    path: str | Path,
    judge: str,
    dimension: str,
    human: pd.DataFrame,
    *,
    benchmark: str,
) -> pd.DataFrame:
    """A replies file in long form, every item checked against the benchmark's table.

    Columns: judge (the caller's label), benchmark, dimension (one of the benchmark's),
    the benchmark's item keys, reply_index (0-based, the file's order), reply (the raw
    string, unmodified). Rows follow the file's item order.

    ``human`` is the benchmark's tidy table. Each item must join to exactly one of its rows
    on the item keys, and the human scores it carries must equal that row's within 1e-9
    (SummEval: required, ``overall`` optional; elsewhere optional). Duplicate or unknown
    items, a score mismatch or a non-finite score, a missing or empty ``all_responses`` and a
    non-string reply are errors naming the file, the item (list index and keys) and the fix.
    The file need not cover every item; callers that need full coverage check it.
    """
    entry = get_benchmark(benchmark)
    if dimension not in entry.dimension_names:
        raise ValueError(
            f"unknown {entry.title} dimension {dimension!r}: use one of "
            f"{list(entry.dimension_names)}"
        )
    items = read_json(path, fix=FORMAT_FIX)
    if not isinstance(items, list) or not items:
        found = "an empty list" if isinstance(items, list) else type(items).__name__
        raise ValueError(
            f"{path}: expected a non-empty JSON list of items, found {found}. Fix: {FORMAT_FIX}."
        )

    def fail(index: int, problem: str, fix: str) -> ValueError:
        where = judge_items.describe(items[index], f"item {index}", entry.item_keys)
        return ValueError(f"{path}: {where} {problem}. Fix: {fix}. Note: {FORMAT_FIX}.")

    # The released files (SummEval's) repeat each item's human scores; elsewhere optional.
    carried_by_release = entry.released_replies
    score_names = tuple(entry.human_scales) if carried_by_release else entry.human_dimensions
    keys, replies, carried = [], [], []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise ValueError(
                f"{path}: item {index} is a {type(item).__name__}, not an object. "
                f"Fix: {FORMAT_FIX}."
            )
        keys.append(judge_items.item_key(item, entry, fail, index))
        if "all_responses" not in item:
            raise fail(index, "has no 'all_responses'", "add the item's replies")
        replies.append(
            judge_items.check_reply_list(item["all_responses"], fail, index, "all_responses")
        )
        if carried_by_release or "scores" in item:
            optional = tuple(entry.other_human_scores) if carried_by_release else score_names
            carried.append(judge_items.carried_scores(item, score_names, optional, fail, index))
        else:
            carried.append(np.full(len(score_names), np.nan))
    key_frame = judge_items.joined_keys(keys, carried, human, entry, score_names, fail)

    table = judge_items.replies_frame(judge, entry, dimension, key_frame, replies)
    return validate_table(
        table,
        replies_schema(benchmark),
        path,
        [*entry.item_keys, "reply_index"],
        fix=FORMAT_FIX,
    )
