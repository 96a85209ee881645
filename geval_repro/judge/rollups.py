"""Roll-ups of a judge run's item scores: normalized score, pass rate, error against gold.

For a dimension with scale (min, max):

- normalized score: ``(s - min) / (max - min)``, in [0, 1] for in-scale scores; it is not
  clipped, so an ``original``-parser mean can fall outside (its unread replies count as 0,
  below the scale, and it keeps out-of-scale numbers such as "7");
- pass rate: share of scored items whose normalized score is ``>= threshold``
  (default 0.75, i.e. 75 % of the scale: 4 on 1-5, 2.5 on 1-3);
- mean absolute error: mean over scored items of ``|s - gold|`` on the judge's rating scale,
  where gold is the human score of the item (SummEval: the mean of the three expert
  ratings) mapped linearly from the human scale ``gold_scale`` (SummEval: 1-5 for every
  dimension) onto the dimension's judge scale: ``min + (g - g_min) * (max - min) /
  (g_max - g_min)``. This is the identity where both scales agree; it matters for fluency,
  which SummEval's experts rated 1-5 and G-Eval's prompt asks for on 1-3 (the linear map is
  this toolkit's choice; the paper defines no such error).

Items without a score (NaN) are left out and counted in ``n_unscored``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.judge.item_scores import ITEM_KEYS
from geval_repro.judge.parse import SCALES, scale_of

RUN_KEYS: tuple[str, ...] = ("judge", "benchmark", "dimension", "parser")
SUMMEVAL_HUMAN_SCALE = (1.0, 5.0)


def _bounds(dimensions: pd.Series) -> tuple[pd.Series, pd.Series]:
    """Each row's (min, max) judge scale; an unknown dimension raises."""
    unknown = set(dimensions.unique()) - set(SCALES)
    if unknown:
        scale_of(sorted(unknown)[0])
    low = dimensions.map({d: s[0] for d, s in SCALES.items()}).astype(float)
    high = dimensions.map({d: s[1] for d, s in SCALES.items()}).astype(float)
    return low, high


def normalized(scores: pd.Series, dimensions: pd.Series) -> pd.Series:
    """``(s - min) / (max - min)`` with each row's dimension scale."""
    low, high = _bounds(dimensions)
    return (scores - low) / (high - low)


def gold_on_judge_scale(
    gold: pd.Series, dimensions: pd.Series, gold_scale: tuple[float, float]
) -> pd.Series:
    """Human scores mapped linearly from ``gold_scale`` onto each row's judge scale."""
    g_low, g_high = gold_scale
    if not g_high > g_low:
        raise ValueError(f"gold_scale {gold_scale!r} must be (min, max) with max > min")
    low, high = _bounds(dimensions)
    return low + (gold - g_low) * (high - low) / (g_high - g_low)


def rollup(
    items: pd.DataFrame,
    human: pd.DataFrame,
    score: str = "mean",
    threshold: float = 0.75,
    gold_scale: tuple[float, float] = SUMMEVAL_HUMAN_SCALE,
) -> pd.DataFrame:
    """One row per run (judge, benchmark, dimension, parser) of an item-scores table.

    ``items`` is :func:`geval_repro.judge.item_scores.item_scores` output (``score`` names
    the column to roll up: ``mean``, ``first`` or ``mode``); ``human`` is the wide human
    table (``doc_id``, ``system_id`` and one column per dimension) on ``gold_scale``.
    Columns: the run keys, ``score``, ``n_items``, ``n_unscored``, ``mean_normalized``,
    ``pass_rate``, ``threshold``, ``mae`` (on the judge's scale), ``n_gold`` (scored items
    with a gold score).
    """
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold {threshold!r} is on the normalized 0-1 scale")
    missing = {*ITEM_KEYS, "parser", score} - set(items.columns)
    if missing:
        raise ValueError(f"item-scores table lacks columns {sorted(missing)}")
    dims = sorted(items["dimension"].unique())
    absent = [d for d in dims if d not in human.columns]
    if absent:
        raise ValueError(f"human table has no column for dimensions {absent}")
    if human.duplicated(["doc_id", "system_id"]).any():
        raise ValueError("human table repeats a (doc_id, system_id): one row per item expected")

    gold_long = human.melt(
        id_vars=["doc_id", "system_id"], value_vars=dims, var_name="dimension", value_name="gold"
    )
    table = items.merge(gold_long, on=["doc_id", "system_id", "dimension"], how="left")
    s = table[score].astype(float)
    gold = gold_on_judge_scale(table["gold"], table["dimension"], gold_scale)
    table = table.assign(
        _scored=s.notna(),
        _norm=normalized(s, table["dimension"]),
        _abs_err=(s - gold).abs(),
    )
    table["_pass"] = np.where(table["_scored"], table["_norm"] >= threshold, np.nan)
    grouped = table.groupby(list(RUN_KEYS), sort=True, observed=True)
    out = grouped.agg(
        n_items=("_scored", "size"),
        n_scored=("_scored", "sum"),
        mean_normalized=("_norm", "mean"),
        pass_rate=("_pass", "mean"),
        mae=("_abs_err", "mean"),
        n_gold=("_abs_err", "count"),
    ).reset_index()
    out["n_unscored"] = out["n_items"] - out["n_scored"]
    out["score"] = score
    out["threshold"] = threshold
    columns = [
        *RUN_KEYS,
        "score",
        "n_items",
        "n_unscored",
        "mean_normalized",
        "pass_rate",
        "threshold",
        "mae",
        "n_gold",
    ]
    return out.loc[:, columns]
