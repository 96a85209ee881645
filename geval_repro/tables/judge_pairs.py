"""Judge vs judge: a paired permutation test for every pair of metrics on a benchmark and
dimension, judges and baselines alike, with Holm's correction, and the metrics' ranking
with its significance clusters (issue 17, point 5).

Metrics (:class:`~geval_repro.tables.paired_tests.Scored`): the model-free baselines (on
SummEval the reference variant of the paper's protocol, 11 references, mean: the variant
that reproduces Table 1; the single-reference and max variants are a sensitivity analysis of
the baselines, not rows a reader compares judges with; elsewhere every metric), UniEval's
released predictions, and every judge run on the benchmark with the score variants a reader
of the paper compares (:func:`~geval_repro.tables.paired_tests.compared_variant`).

Rankings (``ranking``): per dimension, the metrics are compared within the item sets of
:func:`geval_repro.tables.item_sets.rankings`: the ``full`` ranking, every metric that
covers the benchmark's full items (those its baseline protocol scores: SummEval's 1,600
summaries, every QAGS summary, Topical-Chat's 300 responses that are not a context's
original ground truth), on all of them; and one ranking per partial run and item set
(``partial: <run>, <n> items``), that run's variants with the covering metrics restricted
to the run's items. So a partial run never shrinks the full ranking, and its own numbers
rest on its items only.

Tests (:func:`pairwise_significance`), per dimension, coefficient and ranking: every
unordered pair of its metrics, made by
:func:`geval_repro.tables.paired_tests.paired_tests` (two-sided paired permutation test of
``corr(a) - corr(b)`` on the ranking's items, which every metric of it scores; the same
seed for every pair, so the test of a against b is that of b against a). Coefficients:
those the paper prints for the benchmark
(:attr:`~geval_repro.registry.benchmarks.Benchmark.compared_coefficients`: SummEval Spearman
and Kendall, Topical-Chat Pearson and Spearman, QAGS all three), the comparisons a reader
of Tables 1-3 makes; for a benchmark the paper does not print, its registry's
``other_coefficients`` (DialSummEval: SummEval's two). ``pvalue_holm``: Holm's adjustment
(:func:`geval_repro.stats.multiplicity.holm`) over the pairs of one (benchmark, dimension,
coefficient, ranking) table with a p-value.

Ranking and clusters: the metrics of a table ranked by their correlation on the ranking's
items (ties: by name), best first; significance clusters by
:func:`geval_repro.stats.clusters.significance_clusters`, where metric b is significantly
worse than metric a ranked above it when the pair's ``pvalue_holm <= ALPHA`` (0.05) and its
difference favours a. A metric without a value on those items (a constant score) is listed
last, unclustered.

Resolution: with ``n`` resamples a Monte Carlo p-value is at least ``1 / (n + 1)``, so a
Holm-adjusted one at least ``m / (n + 1)`` for ``m`` tested pairs (``holm_floor`` in the
ranking rows). When that exceeds ``ALPHA`` no pair of the table can be declared different
and its single cluster says nothing: the rows' note says so, with the resamples that would
do (``permutation.n_resamples`` in the config), and the log warns.

``status``: the pair's (:func:`~geval_repro.tables.paired_tests.pair_status`: fixture,
else toolkit-run, else recomputed); in the ranking, each metric's own.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.stats.clusters import significance_clusters
from geval_repro.stats.multiplicity import holm
from geval_repro.tables.item_sets import ItemSet, rankings
from geval_repro.tables.paired_tests import (
    Comparison,
    Scored,
    ScoreGrid,
    paired_tests,
    supported_value,
)

log = logging.getLogger(__name__)

ALPHA = 0.05
PAIR_COLUMNS = [
    "benchmark",
    "dimension",
    "coefficient",
    "ranking",
    "metric_a",
    "variant_a",
    "metric_b",
    "variant_b",
    "value_a",
    "value_b",
    "difference",
    "pvalue",
    "pvalue_holm",
    "n_items",
    "unit",
    "n_resamples",
    "seed",
    "status",
    "note",
]
CLUSTER_COLUMNS = [
    "benchmark",
    "dimension",
    "coefficient",
    "ranking",
    "position",
    "cluster",
    "metric",
    "variant",
    "kind",
    "value",
    "n_items",
    "holm_floor",
    "status",
    "note",
]
COUNTS = {"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"}
SWAPPED = {"inputs": "whole documents", "items": "single items"}


def _order(
    grid: ScoreGrid,
    dimension: str,
    metrics: Sequence[Scored],
    coefficient: str,
) -> tuple[list[int], np.ndarray, int]:
    """Metric indices best first by their correlation on the items every metric scores
    (undefined values, and values on fewer than 3 units of the level, last; ties by name and
    variant), those values, and that item count."""
    scores, gold = grid.common(dimension, metrics)
    values = np.array([supported_value(m, gold, grid.benchmark, coefficient).value for m in scores])
    order = sorted(
        range(len(metrics)),
        key=lambda i: (
            bool(np.isnan(values[i])),
            0.0 if np.isnan(values[i]) else -values[i],
            metrics[i].metric,
            metrics[i].variant,
        ),
    )
    return order, values, int((~np.isnan(gold)).sum())


def _table(
    grid: ScoreGrid,
    dimension: str,
    coefficient: str,
    ranked: ItemSet,
    *,
    n_resamples: int,
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pair rows and the ranking rows of one (benchmark, dimension, coefficient,
    ranking) on the benchmark's ``grid``."""
    benchmark = grid.benchmark
    unit = benchmark.level.permutation_unit
    metrics = ranked.metrics
    order, ranked_values, n_common = _order(grid, dimension, metrics, coefficient)
    positions = [(x, y) for x in range(len(order)) for y in range(x + 1, len(order))]
    comparisons = [
        Comparison(metrics[order[x]], metrics[order[y]], dimension, coefficient)
        for x, y in positions
    ]
    tests = paired_tests(grid, comparisons, n_resamples=n_resamples, seed=seed)
    pairs = tests.drop(columns="level").reindex(columns=PAIR_COLUMNS)
    pairs["ranking"] = ranked.name
    pairs["pvalue_holm"] = holm(pairs["pvalue"].to_numpy(dtype=float))
    tested = int(pairs["pvalue"].notna().sum())
    protocol = (
        f"{ranked.basis}; two-sided paired permutation test of a minus b on those "
        f"{n_common} items, {SWAPPED[unit]} swapped, Holm over the {tested} tested pairs of "
        "this ranking"
    )
    pairs["note"] = pairs["note"].where(pairs["note"] == "", "; " + pairs["note"])
    pairs["note"] = protocol + pairs["note"]
    floor = tested / (n_resamples + 1) if tested else math.nan
    clustering = (
        f"{ranked.basis}; correlations on those {n_common} items; a new cluster starts at a "
        f"metric significantly worse (Holm p <= {ALPHA}) than one of the current cluster"
    )
    if floor > ALPHA:
        clustering += (
            f"; UNRESOLVED: with {n_resamples} resamples no Holm-adjusted p-value of its "
            f"{tested} pairs can fall below {floor:.3f}, so no pair can be declared different; "
            f"set permutation.n_resamples to at least {math.ceil(tested / ALPHA) - 1}"
        )
        log.warning(
            "%s %s %s %s: %d resamples cannot resolve %d pairs after Holm (floor %.3f > %s)",
            benchmark.name,
            dimension,
            coefficient,
            ranked.name,
            n_resamples,
            tested,
            floor,
            ALPHA,
        )

    # Clusters: b is significantly worse than a (ranked above it) after Holm.
    worse = np.zeros((len(order), len(order)), dtype=bool)
    for (x, y), adjusted, difference in zip(
        positions, pairs["pvalue_holm"], pairs["difference"], strict=True
    ):
        worse[x, y] = adjusted <= ALPHA and difference > 0
    defined = [not np.isnan(ranked_values[i]) for i in order]
    n_defined = sum(defined)
    clusters = significance_clusters(worse[:n_defined, :n_defined])
    ranking = pd.DataFrame.from_records(
        [
            {
                "benchmark": benchmark.name,
                "dimension": dimension,
                "coefficient": coefficient,
                "ranking": ranked.name,
                "position": position + 1,
                "cluster": clusters[position] if position < n_defined else pd.NA,
                "metric": metrics[i].metric,
                "variant": metrics[i].variant,
                "kind": metrics[i].kind,
                "value": ranked_values[i],
                "n_items": n_common,
                "holm_floor": floor,
                "status": metrics[i].status,
                "note": clustering
                if position < n_defined
                else f"{ranked.basis}; no value on those {n_common} items: not ranked",
            }
            for position, i in enumerate(order)
        ],
        columns=CLUSTER_COLUMNS,
    )
    return pairs, ranking


def pairwise_significance(
    benchmark: Benchmark,
    tidy: pd.DataFrame,
    metrics: Sequence[Scored],
    *,
    n_resamples: int,
    seed: int,
    coefficients: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pair table (:data:`PAIR_COLUMNS`) and the ranking table
    (:data:`CLUSTER_COLUMNS`) of every dimension of ``benchmark``, each of
    ``coefficients`` (default: those the paper prints for it) and each ranking of at least
    two metrics (module docstring). ``tidy``: the benchmark's tidy table (item keys and
    human scores)."""
    pair_parts, ranking_parts = [], []
    grid = ScoreGrid(benchmark, tidy)
    for dimension in benchmark.dimension_names:
        present = [m for m in metrics if dimension in m.scores]
        if len(present) < 2:
            continue
        ranked = [r for r in rankings(benchmark, tidy, dimension, present) if len(r.metrics) > 1]
        for coefficient in coefficients or benchmark.compared_coefficients:
            for items in ranked:
                pairs, ranking = _table(
                    grid,
                    dimension,
                    coefficient,
                    items,
                    n_resamples=n_resamples,
                    seed=seed,
                )
                pair_parts.append(pairs)
                ranking_parts.append(ranking)
    pairs = pd.concat(pair_parts or [pd.DataFrame(columns=PAIR_COLUMNS)], ignore_index=True)
    ranking = pd.concat(ranking_parts or [pd.DataFrame(columns=CLUSTER_COLUMNS)], ignore_index=True)
    return (
        pairs.astype(COUNTS),
        ranking.astype({"position": "Int64", "cluster": "Int64", "n_items": "Int64"}),
    )
