"""Roll-ups of a judge run's item scores: normalized score, pass rate, error against gold.

Scales come from :mod:`geval_repro.registry.benchmarks`: each (benchmark, dimension) has a judge
scale (min, max) (the integer levels a G-Eval prompt asks for) and a human scale (that of
the benchmark's tidy table).

- normalized score: ``(s - min) / (max - min)`` on the judge scale, in [0, 1] for in-scale
  scores; it is not clipped, so an ``original``-parser mean can fall outside (its unread
  replies count as 0, below the scale, and it keeps out-of-scale numbers such as "7");
- pass rate: share of scored items whose normalized score is ``>= threshold``
  (default 0.75, i.e. 75 % of the scale: 4 on 1-5, 2.5 on 1-3);
- mean absolute error: mean over scored items of ``|s - gold|`` on the judge's rating scale,
  where gold is the human score of the item (SummEval: the mean of the three expert
  ratings) mapped linearly from its human scale ``(g_min, g_max)`` onto the judge scale:
  ``min + (g - g_min) * (max - min) / (g_max - g_min)``. This is the identity where both
  scales agree (Topical-Chat); it matters for SummEval fluency (experts 1-5, prompt 1-3) and
  QAGS consistency (human 0-1, prompt 1-5). The linear map is this toolkit's choice; the
  paper defines no such error.

Items without a score (NaN) are left out and counted in ``n_unscored``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark, human_scale, judge_scale
from geval_repro.scoring.item_scores import item_columns

RUN_KEYS: tuple[str, ...] = ("judge", "benchmark", "dimension", "parser")


def _bounds(runs: pd.DataFrame, scale=judge_scale) -> tuple[pd.Series, pd.Series]:
    """Each row's (min, max) on ``scale`` of its (benchmark, dimension); unknown pairs raise."""
    pairs = pd.MultiIndex.from_frame(runs[["benchmark", "dimension"]].astype(str))
    codes, unique = pd.factorize(pairs)
    bounds = np.array([scale(b, d) for b, d in unique], dtype=float).reshape(-1, 2)
    return (
        pd.Series(bounds[codes, 0], index=runs.index),
        pd.Series(bounds[codes, 1], index=runs.index),
    )


def normalized(scores: pd.Series, runs: pd.DataFrame) -> pd.Series:
    """``(s - min) / (max - min)`` with the judge scale of each row's (benchmark, dimension)
    (``runs`` holds the columns benchmark and dimension, aligned with ``scores``)."""
    low, high = _bounds(runs)
    return (scores - low) / (high - low)


def gold_on_judge_scale(gold: pd.Series, runs: pd.DataFrame) -> pd.Series:
    """Human scores mapped linearly from each row's human scale onto its judge scale."""
    g_low, g_high = _bounds(runs, human_scale)
    low, high = _bounds(runs)
    return low + (gold - g_low) * (high - low) / (g_high - g_low)


def rollup(
    items: pd.DataFrame,
    human: pd.DataFrame,
    score: str = "mean",
    threshold: float = 0.75,
) -> pd.DataFrame:
    """One row per run (judge, benchmark, dimension, parser) of an item-scores table.

    ``items`` is :func:`geval_repro.scoring.item_scores.item_scores` output (``score`` names
    the column to roll up: ``mean``, ``first`` or ``mode``); ``human`` is the benchmark's
    tidy table (its item keys and one column per dimension, on the registry's human scale).
    Columns: the run keys, ``score``, ``n_items``, ``n_unscored``, ``mean_normalized``,
    ``pass_rate``, ``threshold``, ``mae`` (on the judge's scale), ``n_gold`` (scored items
    with a gold score).
    """
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold {threshold!r} is on the normalized 0-1 scale")
    missing = {*item_columns(items), "parser", score} - set(items.columns)
    if missing:
        raise ValueError(f"item-scores table lacks columns {sorted(missing)}")
    keys = list(get_benchmark(str(items["benchmark"].iloc[0])).item_keys)
    dims = sorted(items["dimension"].unique())
    absent = [d for d in dims if d not in human.columns]
    if absent:
        raise ValueError(f"human table has no column for dimensions {absent}")
    if human.duplicated(keys).any():
        raise ValueError(f"human table repeats a {tuple(keys)}: one row per item expected")

    gold_long = human.melt(id_vars=keys, value_vars=dims, var_name="dimension", value_name="gold")
    table = items.merge(gold_long, on=[*keys, "dimension"], how="left")
    s = table[score].astype(float)
    gold = gold_on_judge_scale(table["gold"], table)
    table = table.assign(
        _scored=s.notna(),
        _norm=normalized(s, table),
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
