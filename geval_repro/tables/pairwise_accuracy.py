"""The pairwise-accuracy table: per benchmark and dimension, every metric's ``acc_eq`` and
tie-calibrated ``acc*_eq`` with its interval and fitted threshold, and the share of pairs
the humans tie (Deutsch, Foster & Freitag 2023; :mod:`geval_repro.stats.accuracy`), beside
two reference rows computed from the human scores alone.

Made from the correlation rows (coefficients ``acc_eq`` and ``acc_eq_calibrated``, at each
benchmark's level: pairs within a SummEval document, all pairs of Topical-Chat and QAGS
items), so every metric's number here is also a row of ``correlations.csv``. The paper
prints no pairwise accuracy; Tables 1-3 stay as the paper printed them.

Each row rests on the items its metric scores, so rows are compared only within a
``ranking``: the rows on the same items (:func:`geval_repro.tables.item_sets.blocks`:
``full`` on the benchmark's full items, ``full, <n> items`` on those and more, ``partial:
<run>, <n> items`` on a partial run's items), best ``acc*_eq`` first. A partial run's rows
on a few dozen items are never ranked among rows on 1,600. Every ranking has two reference
rows on its items (:func:`accuracy_blocks`, by
:func:`~geval_repro.stats.accuracy.reference_accuracies`, weighted as the accuracies): a
constant metric, which ties every pair (``acc_eq`` = ``acc*_eq`` = the weighted share of
human-tied pairs; no metric's ``acc*_eq`` can fall below it, since a threshold above its
every difference ties every pair), and a random order of the items without ties (expected
``acc_eq``: half the weighted share of untied pairs; its ``acc*_eq`` depends on the spread
of its differences and is left empty). They are exact functions of the human scores: no
interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import NAMES, Benchmark, dimensions_of, level_of
from geval_repro.stats.accuracy import reference_accuracies
from geval_repro.stats.registry import PAIRWISE_ACCURACIES
from geval_repro.stats.ties import tie_rate
from geval_repro.tables import item_sets
from geval_repro.tables.paired_tests import Scored, ScoreGrid
from geval_repro.tables.rows import VALUE_STATUSES

#: The two accuracies the table sets side by side: acc_eq and the tie-calibrated acc*_eq.
PLAIN, CALIBRATED = (a.name for a in sorted(PAIRWISE_ACCURACIES, key=lambda a: a.calibrated))
COLUMNS = [
    "benchmark",
    "dimension",
    "ranking",
    "metric",
    "variant",
    "level",
    PLAIN,
    CALIBRATED,
    "ci_low",
    "ci_high",
    "epsilon",
    "tie_rate",
    "human_tie_rate",
    "n_items",
    "status",
]
#: The reference rows' metric and variant.
CONSTANT = ("reference: constant metric", "ties every pair")
RANDOM = ("reference: random order", "expected acc_eq, no ties")
#: What the reference rows mean (under the Markdown table, and in its caption).
REFERENCE_LEGEND = (
    "Reference rows, from the human scores of each ranking's items, weighted as the "
    "accuracies: a constant metric ties every pair, so its acc_eq and acc*_eq are the share "
    "of pairs the humans tie, and no metric's acc*_eq can fall below it (a threshold above "
    "every difference ties every pair); a random order without ties gets half of the untied "
    "pairs right on average (its acc*_eq depends on its differences: left empty). Rows are "
    "ranked only within their ranking, the rows on the same items: full (the benchmark's "
    "full items), full with more items, or a partial run's items."
)
#: The columns of a benchmark's blocks (:func:`accuracy_blocks`, a work file).
BLOCK_COLUMNS = [
    "benchmark",
    "dimension",
    "block",
    "ranking",
    "metric",
    "variant",
    "reference",
    PLAIN,
    CALIBRATED,
    "epsilon",
    "tie_rate",
    "human_tie_rate",
    "n_items",
]
KEY = ["benchmark", "dimension", "metric", "variant"]


def accuracy_blocks(
    benchmark: Benchmark, human: pd.DataFrame, metrics: Sequence[Scored]
) -> pd.DataFrame:
    """Per dimension of ``benchmark``, each metric's block (its ``ranking`` and the
    ``block``'s position, :func:`geval_repro.tables.item_sets.blocks`) and every block's two
    reference rows (``reference`` True; module docstring) with their values on the block's
    items at the benchmark's level. ``human``: the benchmark's tidy table; ``metrics``:
    every metric whose accuracy rows the table shows, all variants."""
    level = benchmark.level
    grid = ScoreGrid(benchmark, human)
    records = []
    for dimension in benchmark.dimension_names:
        present = [m for m in metrics if dimension in m.scores]
        if not present:
            continue
        for position, block in enumerate(item_sets.blocks(benchmark, human, dimension, present)):
            head = {
                "benchmark": benchmark.name,
                "dimension": dimension,
                "block": position,
                "ranking": block.name,
            }
            records += [
                {**head, "metric": m.metric, "variant": m.variant, "reference": False}
                for m in block.metrics
            ]
            _, gold = grid.common(dimension, block.metrics[:1])
            references = reference_accuracies(gold, level)
            paired = references.n_pairs > 0
            shared = {
                **head,
                "reference": True,
                "human_tie_rate": tie_rate(gold, level).rate,
                "n_items": level.paired_cells(~np.isnan(gold)),
            }
            records += [
                {
                    **shared,
                    "metric": CONSTANT[0],
                    "variant": CONSTANT[1],
                    PLAIN: references.constant,
                    CALIBRATED: references.constant,
                    "epsilon": 0.0 if paired else math.nan,
                    "tie_rate": 1.0 if paired else math.nan,
                },
                {
                    **shared,
                    "metric": RANDOM[0],
                    "variant": RANDOM[1],
                    PLAIN: references.random,
                    "tie_rate": 0.0 if paired else math.nan,
                },
            ]
    table = pd.DataFrame.from_records(records, columns=BLOCK_COLUMNS)
    return table.astype({"block": "int64", "reference": "bool", "n_items": "Int64"})


def pairwise_accuracy_table(rows: pd.DataFrame, blocks: pd.DataFrame) -> pd.DataFrame:
    """One row per (benchmark, dimension, metric, variant) with both accuracies, and the
    reference rows of each ranking (module docstring).

    ``rows``: correlation rows; ``blocks``: the benchmarks' :func:`accuracy_blocks`, which
    place every metric of ``rows`` in its ranking (a metric without one is an error).
    ``ci_low``/``ci_high`` and ``epsilon`` are those of ``acc_eq_calibrated`` (the interval
    re-fits the threshold in every resample); ``tie_rate`` is the share of pairs the metric
    ties exactly (epsilon 0), ``human_tie_rate`` the share the humans tie (unweighted).
    Rows are in the paper's benchmark and dimension order (no AVG rows), each ranking apart
    (full first), the best ``acc*_eq`` first within it (the random order's reference at its
    ``acc_eq``, a lower bound of its ``acc*_eq``).
    """
    chosen = rows[
        rows["coefficient"].isin([PLAIN, CALIBRATED])
        & rows["status"].isin(VALUE_STATUSES)
        & rows["benchmark"].isin(NAMES)
        & (rows["level"] == rows["benchmark"].map(level_of))
    ]
    key = ["benchmark", "dimension", "metric", "variant", "level"]
    plain = chosen[chosen["coefficient"] == PLAIN].set_index(key)
    fitted = chosen[chosen["coefficient"] == CALIBRATED].set_index(key)
    table = fitted[["ci_low", "ci_high", "epsilon", "human_tie_rate", "n_items", "status"]]
    table = table.assign(
        **{PLAIN: plain["value"].reindex(table.index), CALIBRATED: fitted["value"]},
        tie_rate=plain["tie_rate"].reindex(table.index),
    ).reset_index()
    position = {(b, d): i for b in NAMES for i, d in enumerate(dimensions_of(b))}
    cell = pd.Series(list(zip(table["benchmark"], table["dimension"], strict=True)))
    table = table.assign(_d=cell.map(position).to_numpy()).dropna(subset=["_d"])  # no AVG
    members = blocks.loc[~blocks["reference"], [*KEY, "block", "ranking"]]
    table = table.merge(members, on=KEY, how="left", validate="one_to_one")
    unplaced = table[table["block"].isna()]
    if len(unplaced):
        first = unplaced.iloc[0]
        raise ValueError(
            f"pairwise accuracy: {len(unplaced)} row(s) have no ranking, e.g. "
            f"{first['benchmark']} {first['dimension']} {first['metric']} ({first['variant']}): "
            "the item sets (accuracy_blocks) must be made from the same judge runs and "
            "baselines as the correlation rows; rerun the pipeline's pairwise_accuracy rule"
        )
    references = blocks[blocks["reference"]].assign(
        level=lambda t: t["benchmark"].map(lambda name: level_of(name).value),
        ci_low=math.nan,
        ci_high=math.nan,
        status="recomputed",
    )
    references = references[references["benchmark"].isin(set(table["benchmark"]))]
    cell = pd.Series(list(zip(references["benchmark"], references["dimension"], strict=True)))
    references = references.assign(_d=cell.map(position).to_numpy())
    table = pd.concat([table, references.drop(columns="reference")], ignore_index=True)
    table = table.assign(
        _b=table["benchmark"].map({name: i for i, name in enumerate(NAMES)}),
        _value=table[CALIBRATED].fillna(table[PLAIN]),
    ).sort_values(
        ["_b", "_d", "block", "_value", "metric", "variant"],
        ascending=[True, True, True, False, True, True],
        kind="stable",
    )
    return table.loc[:, COLUMNS].reset_index(drop=True).astype({"n_items": "Int64"})
