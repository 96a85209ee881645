"""Reply diagnostics of a judge run, per dimension and parser.

For each (judge, benchmark, dimension, parser):

- ``n_replies`` / ``n_items``;
- ``n_unread``: replies the parser did not read. For ``original`` these are the replies its
  regex ``^ ?([\\d\\.]+)`` or ``float()`` failed on, which it scores 0 and still counts; for
  ``tolerant`` the replies it leaves out (no in-scale number after the optional label);
- ``share_unread`` = ``n_unread / n_replies``;
- ``share_items_varying``: among items with at least one counted value, the share whose
  counted values are not all identical (under ``original`` an unread reply counts as 0, so
  one unread reply among 19 fours makes the item vary);
- ``n_items_no_parsed``: items none of whose replies the parser read (under ``original``
  such an item still gets the score 0; under ``tolerant`` it has no score);
- ``n_items_unscored``: items with no score (NaN mean): always 0 under ``original``.
"""

from __future__ import annotations

from collections.abc import Iterable

import pandas as pd

from geval_repro.scoring.item_scores import check_replies_table, item_columns, reply_columns
from geval_repro.scoring.parse import PARSERS, Parser, parse_table

RUN_KEYS: tuple[str, ...] = ("judge", "benchmark", "dimension", "parser")


def reply_diagnostics(replies: pd.DataFrame, parsers: Iterable[Parser] = PARSERS) -> pd.DataFrame:
    """One row per run and parser; columns documented in the module docstring."""
    check_replies_table(replies)
    keys = item_columns(replies)
    frames = []
    for parser in parsers:
        parsed = parse_table(replies.loc[:, reply_columns(replies)], parser)
        per_item = parsed.groupby(keys, sort=True, observed=True).agg(
            n_replies=("reply", "size"),
            n_unread=("unread", "sum"),
            n_counted=("score", "count"),
            n_distinct=("score", "nunique"),
        )
        per_item["scored"] = per_item["n_counted"] > 0
        per_item["varying"] = per_item["n_distinct"] > 1
        per_item["no_parsed"] = per_item["n_unread"] == per_item["n_replies"]
        run = per_item.groupby(["judge", "benchmark", "dimension"], sort=True, observed=True)
        out = run.agg(
            n_items=("n_replies", "size"),
            n_replies=("n_replies", "sum"),
            n_unread=("n_unread", "sum"),
            n_scored=("scored", "sum"),
            n_varying=("varying", "sum"),
            n_items_no_parsed=("no_parsed", "sum"),
        ).reset_index()
        out["parser"] = parser
        frames.append(out)
    out = pd.concat(frames, ignore_index=True)
    out["share_unread"] = out["n_unread"] / out["n_replies"]
    out["share_items_varying"] = out["n_varying"] / out["n_scored"].where(out["n_scored"] > 0)
    out["n_items_unscored"] = out["n_items"] - out["n_scored"]
    columns = [
        *RUN_KEYS,
        "n_items",
        "n_replies",
        "n_unread",
        "share_unread",
        "share_items_varying",
        "n_items_no_parsed",
        "n_items_unscored",
    ]
    return out.loc[:, columns].sort_values(list(RUN_KEYS), ignore_index=True)
