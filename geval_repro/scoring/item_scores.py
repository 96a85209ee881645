"""Per-item scores of a judge run: mean, first reply, mode, and probability-weighted scores.

An item is one (judge, benchmark, dimension) plus the benchmark's item keys in
:mod:`geval_repro.registry.benchmarks` (``doc_id, system_id`` for SummEval, ``item_id`` otherwise).
Its replies are parsed by
:mod:`geval_repro.scoring.parse`; the *counted* values are every reply under ``original``
(0.0 for an unread one, as the released script does) and the parsed replies under
``tolerant``.

- ``mean``: mean of the counted values, the paper's sampling estimate of
  ``sum_s p(s) * s`` (Eq. 1). It is rounded to :data:`MEAN_DECIMALS` decimals so that two
  items with the same multiset of replies get bit-identical means whatever the summation
  order (replies carry at most a few decimals, so this merges only means that are equal).
- ``first``: the counted value of the first reply in released order (smallest
  ``reply_index``); NaN under ``tolerant`` when that reply is unparsed. It is the one-reply
  score a judge sampled once would give.
- ``mode``: the most frequent counted value; ties go to the smallest value.
- An item with no counted value has NaN ``mean``/``first``/``mode``; it is left out of its
  document's correlation.

The probability-weighted score of Eq. 1 from a rating distribution is in
:mod:`geval_repro.stats.weighted`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.scoring.parse import Parser, parse_table

RUN_KEYS: tuple[str, ...] = ("judge", "benchmark", "dimension")
MEAN_DECIMALS = 12


def item_columns(table: pd.DataFrame) -> list[str]:
    """The columns naming one item of a judge table: the run keys and the item keys of the
    table's benchmark (one benchmark per table; raise otherwise)."""
    if "benchmark" not in table.columns:
        raise ValueError(f"judge table lacks the column 'benchmark' (has {list(table.columns)})")
    benchmarks = pd.unique(table["benchmark"])
    if len(benchmarks) != 1:
        raise ValueError(
            f"a judge table holds one benchmark, this one holds {sorted(map(str, benchmarks))}: "
            "split it per benchmark"
        )
    return [*RUN_KEYS, *get_benchmark(str(benchmarks[0])).item_keys]


def reply_columns(replies: pd.DataFrame) -> list[str]:
    """The columns of a long replies table: :func:`item_columns`, reply_index and reply."""
    return [*item_columns(replies), "reply_index", "reply"]


def check_replies_table(replies: pd.DataFrame) -> None:
    """Raise when columns are missing or an item repeats a ``reply_index``."""
    columns = reply_columns(replies)
    missing = set(columns) - set(replies.columns)
    if missing:
        raise ValueError(
            f"replies table lacks columns {sorted(missing)}; expected {columns} "
            "(geval_repro.load.replies builds this table)"
        )
    keys = item_columns(replies)
    dup = replies.duplicated([*keys, "reply_index"], keep=False)
    if dup.any():
        examples = replies.loc[dup, [*keys, "reply_index"]].drop_duplicates().head(5)
        raise ValueError(
            f"{int(dup.sum())} replies repeat an item's reply_index, e.g.\n"
            f"{examples.to_string(index=False)}\nfix: each reply of an item needs its own index"
        )


def round_mean(mean: np.ndarray | pd.Series) -> np.ndarray | pd.Series:
    """Round item means to :data:`MEAN_DECIMALS` decimals (order-independent ties)."""
    return np.round(mean, MEAN_DECIMALS)


def item_scores(replies: pd.DataFrame, parser: Parser) -> pd.DataFrame:
    """Per-item scores of a long replies table under one parser.

    Returns one row per item with the columns of :func:`item_columns` and ``parser``, ``mean``,
    ``first``, ``mode``, ``n_replies`` (all replies), ``n_parsed`` (replies the parser read)
    and ``n_counted`` (values entering the mean: ``n_replies`` under ``original``,
    ``n_parsed`` under ``tolerant``). Rows are sorted by the item keys.
    """
    check_replies_table(replies)
    keys = item_columns(replies)
    parsed = parse_table(replies.loc[:, reply_columns(replies)], parser)
    parsed = parsed.sort_values([*keys, "reply_index"], kind="stable")
    parsed["read"] = ~parsed["unread"]

    grouped = parsed.groupby(keys, sort=True, observed=True)
    out = grouped.agg(
        total=("score", "sum"),
        n_counted=("score", "count"),
        n_replies=("reply", "size"),
        n_parsed=("read", "sum"),
    )
    out["mean"] = round_mean(out["total"] / out["n_counted"].where(out["n_counted"] > 0))
    out["first"] = parsed.drop_duplicates(keys, keep="first").set_index(keys)["score"]

    counted = parsed.loc[parsed["score"].notna()]
    freq = counted.groupby([*keys, "score"], sort=False, observed=True).size()
    freq = freq.rename("freq").reset_index()
    freq = freq.sort_values([*keys, "freq", "score"], ascending=[True] * len(keys) + [False, True])
    out["mode"] = freq.drop_duplicates(keys, keep="first").set_index(keys)["score"]

    out = out.reset_index().assign(parser=parser)
    columns = [*keys, "parser", "mean", "first", "mode", "n_replies", "n_parsed", "n_counted"]
    return out.loc[:, columns].astype({"n_replies": "int64", "n_parsed": "int64"})
