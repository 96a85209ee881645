"""Judge vs judge: a paired permutation test for every pair of metrics on a benchmark and
dimension, judges and baselines alike, with Holm's correction, and the metrics' ranking
with its significance clusters (issue 17, point 5).

Metrics (:class:`Scored`), every (metric, variant) with per-item scores on the benchmark:

- the model-free baselines recomputed here (ROUGE, BLEU, METEOR of
  ``data/processed/baselines/<file>.parquet``), by :func:`baseline_metrics`: on SummEval
  the reference variant of the paper's protocol (11 references, mean: the variant that
  reproduces Table 1; the single-reference and max variants are a sensitivity analysis of
  the baselines, not rows a reader compares judges with), elsewhere every metric;
- UniEval's released predictions (columns ``unieval_<dimension>`` of the Topical-Chat and
  QAGS tidy tables), by :func:`column_metrics`;
- every judge run on the benchmark, by :func:`judge_metrics`, with the score variants a
  reader of the paper compares (:func:`compared_variant`): for a run with replies the mean
  of its replies (the paper's G-Eval score) and its first reply (the one-reply score facing
  the "-Probs" row), both under the released parser; for a run with rating probabilities
  the Eq. 1 weighted score and the most likely rating; for a run of per-item scores its
  scores. The modal reply and the tolerant parser are robustness checks of one run, tested
  against the mean in the run's own ``significance`` table and compared in ``parsers``.

Tests (:func:`pairwise_significance`), per dimension and coefficient: for every unordered
pair, :func:`geval_repro.stats.permutation.paired_permutation_test` of ``corr(a) - corr(b)``,
two-sided, at the benchmark's level with its default unit (SummEval: the two metrics'
scores of whole documents swapped; Topical-Chat, QAGS: single items), on the items both
metrics and the humans score, with ``n_resamples`` and ``seed`` from the config (the same
swaps for every pair of a table, so the test of a against b is that of b against a: the
p-value matrix is symmetric). ``value_a``/``value_b``: each metric's correlation on those
items; ``difference``: the test's statistic (``value_a - value_b`` up to rounding, on the
standardized scores). Coefficients: those the paper prints for the benchmark
(:func:`geval_repro.registry.paper.printed_coefficients`: SummEval Spearman and Kendall,
Topical-Chat Pearson and Spearman, QAGS all three), the comparisons a reader of Tables 1-3
makes. ``pvalue_holm``: Holm's adjustment (:func:`geval_repro.stats.multiplicity.holm`)
over the pairs of one (benchmark, dimension, coefficient) table with a p-value.

Ranking and clusters: the metrics of a table ranked by their correlation on the items every
metric of the table scores (ties: by name), best first; significance clusters by
:func:`geval_repro.stats.clusters.significance_clusters`, where metric b is significantly
worse than metric a ranked above it when the pair's ``pvalue_holm <= ALPHA`` (0.05) and its
difference favours a. A metric without a value on those items is listed last, unclustered.

Resolution: with ``n`` resamples a Monte Carlo p-value is at least ``1 / (n + 1)``, so a
Holm-adjusted one at least ``m / (n + 1)`` for ``m`` tested pairs (``holm_floor`` in the
ranking rows). When that exceeds ``ALPHA`` no pair of the table can be declared different
and its single cluster says nothing: the rows' note says so, with the resamples that would
do (``permutation.n_resamples`` in the config), and the log warns.

``status``: ``fixture`` when either metric comes from a fixture run (synthetic test data),
else ``recomputed``.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.scoring.pairing import matrix_axes, pooled
from geval_repro.scoring.parse import PARSERS
from geval_repro.stats.clusters import significance_clusters
from geval_repro.stats.levels import correlate
from geval_repro.stats.matrix import to_matrix
from geval_repro.stats.multiplicity import holm
from geval_repro.stats.permutation import DEFAULT_UNIT, paired_permutation_test
from geval_repro.tables.judge_rows import (
    ONE_REPLY_SCORES,
    UNSCORABLE,
    score_variants,
    status_of,
)
from geval_repro.tables.significance import BASELINE_SCORES, baseline_item_scores

log = logging.getLogger(__name__)

ALPHA = 0.05
PAIR_COLUMNS = [
    "benchmark",
    "dimension",
    "coefficient",
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


@dataclass(frozen=True)
class Scored:
    """One metric's per-item scores on a benchmark: its name and variant as in the
    correlation rows, ``kind`` (``baseline``, ``unieval``, ``judge``), ``status``
    (``recomputed`` or ``fixture``) and, per dimension it scores, a table of the
    benchmark's item keys and ``score``."""

    metric: str
    variant: str
    kind: str
    status: str
    scores: Mapping[str, pd.DataFrame]


def baseline_metrics(
    scores: pd.DataFrame, benchmark: str, variant: str | None = None
) -> list[Scored]:
    """Every (metric, variant) of a per-item baseline scores table on ``benchmark``, or only
    those of ``variant`` (the same scores face every dimension)."""
    _, subset = BASELINE_SCORES[benchmark]
    rows = scores if subset is None else scores[scores["subset"] == subset]
    if variant is not None:
        rows = rows[rows["variant"] == variant]
    dimensions = get_benchmark(benchmark).dimension_names
    out = []
    for metric, name in rows[["metric", "variant"]].drop_duplicates().itertuples(index=False):
        items = baseline_item_scores(scores, benchmark, metric, name)
        items = items.rename(columns={"baseline": "score"})
        out.append(Scored(metric, name, "baseline", "recomputed", dict.fromkeys(dimensions, items)))
    return out


def column_metrics(
    tidy: pd.DataFrame, benchmark: str, prefix: str, metric: str, variant: str, kind: str
) -> list[Scored]:
    """The metric whose scores of each dimension are the column ``<prefix><dimension>`` of
    the benchmark's tidy table (UniEval's released predictions); none without such columns."""
    keys = list(get_benchmark(benchmark).item_keys)
    scores = {
        dimension: tidy[[*keys, f"{prefix}{dimension}"]]
        .rename(columns={f"{prefix}{dimension}": "score"})
        .dropna(subset=["score"])
        for dimension in get_benchmark(benchmark).dimension_names
        if f"{prefix}{dimension}" in tidy.columns
    }
    return [Scored(metric, variant, kind, "recomputed", scores)] if scores else []


def compared_variant(variant: str) -> bool:
    """Whether a judge run's score variant enters the comparisons (module docstring): the
    released parser's mean of the replies and first reply; every variant of a run without
    replies (their names have no ``/parser``)."""
    score, slash, parser = variant.rpartition("/")
    return not slash or (parser == PARSERS[0] and score != f"{ONE_REPLY_SCORES[1]}-reply")


def judge_metrics(
    judge: str, spec: Mapping[str, Any], processed: Mapping[str, pd.DataFrame]
) -> list[Scored]:
    """The compared score variants of one judge run (``processed``: its processed tables
    by name)."""
    benchmark = get_benchmark(spec["benchmark"])
    keys = list(benchmark.item_keys)
    out = []
    for variant, items, score in score_variants(spec, processed):
        if not compared_variant(variant):
            continue
        scores = {
            dimension: items.loc[items["dimension"] == dimension, [*keys, score]]
            .rename(columns={score: "score"})
            .dropna(subset=["score"])
            for dimension in benchmark.dimension_names
            if (items["dimension"] == dimension).any()
        }
        out.append(Scored(judge, variant, "judge", status_of(spec), scores))
    return out


def _matrices(
    tidy: pd.DataFrame, benchmark: str, dimension: str, metrics: Sequence[Scored]
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The human matrix of ``dimension`` and each metric's score matrix over the same items
    (NaN where a metric does not score an item), at the benchmark's level."""
    info = get_benchmark(benchmark)
    keys = list(info.item_keys)
    systems, inputs = matrix_axes(info)
    base = pooled(tidy, info)
    columns = list(dict.fromkeys([*keys, systems, inputs]))
    human = to_matrix(base, dimension, systems=systems, inputs=inputs)[0]
    items = base[columns]
    scored = [
        to_matrix(
            items.merge(m.scores[dimension], on=keys, how="left", validate="one_to_one"),
            "score",
            systems=systems,
            inputs=inputs,
        )[0]
        for m in metrics
    ]
    return human, scored


def _ranking(
    metrics: Sequence[Scored],
    scores: Sequence[np.ndarray],
    human: np.ndarray,
    level: str,
    coefficient: str,
) -> tuple[list[int], np.ndarray, int]:
    """Metric indices best first by their correlation on the items every metric scores
    (undefined values last; ties by name and variant), those values, and that item count."""
    common = ~np.isnan(human)
    for matrix in scores:
        common &= ~np.isnan(matrix)
    values = np.array(
        [correlate(np.where(common, m, np.nan), human, level, coefficient).value for m in scores]
    )
    order = sorted(
        range(len(metrics)),
        key=lambda i: (
            bool(np.isnan(values[i])),
            0.0 if np.isnan(values[i]) else -values[i],
            metrics[i].metric,
            metrics[i].variant,
        ),
    )
    return order, values, int(common.sum())


def _table(
    benchmark: str,
    dimension: str,
    coefficient: str,
    metrics: Sequence[Scored],
    scores: Sequence[np.ndarray],
    human: np.ndarray,
    *,
    n_resamples: int,
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pair rows and the ranking rows of one (benchmark, dimension, coefficient)."""
    level = get_benchmark(benchmark).level
    unit = DEFAULT_UNIT[level]
    order, ranked_values, n_common = _ranking(metrics, scores, human, level, coefficient)
    records = []
    for x, a in enumerate(order):
        for y in range(x + 1, len(order)):
            b = order[y]
            both = ~(np.isnan(scores[a]) | np.isnan(scores[b]) | np.isnan(human))
            matrix_a, matrix_b, gold = (
                np.where(both, m, np.nan) for m in (scores[a], scores[b], human)
            )
            record = {
                "benchmark": benchmark,
                "dimension": dimension,
                "coefficient": coefficient,
                "metric_a": metrics[a].metric,
                "variant_a": metrics[a].variant,
                "metric_b": metrics[b].metric,
                "variant_b": metrics[b].variant,
                "value_a": correlate(matrix_a, gold, level, coefficient).value,
                "value_b": correlate(matrix_b, gold, level, coefficient).value,
                "difference": math.nan,
                "pvalue": math.nan,
                "n_items": int(both.sum()),
                "unit": unit,
                "n_resamples": n_resamples,
                "seed": seed,
                "status": "fixture"
                if "fixture" in (metrics[a].status, metrics[b].status)
                else "recomputed",
                "note": "",
                "_pair": (x, y),
            }
            try:
                result = paired_permutation_test(
                    matrix_a, matrix_b, gold, level, coefficient, n_resamples=n_resamples, seed=seed
                )
                record.update(difference=result.statistic, pvalue=result.pvalue)
            except ValueError as error:
                record["note"] = f"{UNSCORABLE}: {error}"
                log.warning(
                    "%s %s %s: no test of %s (%s) against %s (%s): %s",
                    benchmark,
                    dimension,
                    coefficient,
                    metrics[a].metric,
                    metrics[a].variant,
                    metrics[b].metric,
                    metrics[b].variant,
                    error,
                )
            records.append(record)
    pairs = pd.DataFrame.from_records(records, columns=[*PAIR_COLUMNS, "_pair"])
    pairs["pvalue_holm"] = holm(pairs["pvalue"].to_numpy(dtype=float))
    tested = int(pairs["pvalue"].notna().sum())
    protocol = (
        f"two-sided paired permutation test of a minus b, {SWAPPED[unit]} swapped, Holm over "
        f"the {tested} tested pairs of this table"
    )
    pairs["note"] = pairs["note"].where(pairs["note"] != "", protocol)
    floor = tested / (n_resamples + 1) if tested else math.nan
    clustering = (
        f"ranked on the {n_common} items every metric of this table scores; a new cluster "
        f"starts at a metric significantly worse (Holm p <= {ALPHA}) than one of the "
        "current cluster"
    )
    if floor > ALPHA:
        clustering += (
            f"; UNRESOLVED: with {n_resamples} resamples no Holm-adjusted p-value of its "
            f"{tested} pairs can fall below {floor:.3f}, so no pair can be declared different; "
            f"set permutation.n_resamples to at least {math.ceil(tested / ALPHA) - 1}"
        )
        log.warning(
            "%s %s %s: %d resamples cannot resolve %d pairs after Holm (floor %.3f > %s)",
            benchmark,
            dimension,
            coefficient,
            n_resamples,
            tested,
            floor,
            ALPHA,
        )

    # Clusters: b is significantly worse than a (ranked above it) after Holm.
    worse = np.zeros((len(order), len(order)), dtype=bool)
    for (x, y), adjusted, difference in zip(
        pairs["_pair"], pairs["pvalue_holm"], pairs["difference"], strict=True
    ):
        worse[x, y] = adjusted <= ALPHA and difference > 0
    defined = [not np.isnan(ranked_values[i]) for i in order]
    n_defined = sum(defined)
    clusters = significance_clusters(worse[:n_defined, :n_defined])
    ranking = pd.DataFrame.from_records(
        [
            {
                "benchmark": benchmark,
                "dimension": dimension,
                "coefficient": coefficient,
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
                else "no value on the items every metric scores: not ranked",
            }
            for position, i in enumerate(order)
        ],
        columns=CLUSTER_COLUMNS,
    )
    return pairs[PAIR_COLUMNS], ranking


def pairwise_significance(
    benchmark: str,
    tidy: pd.DataFrame,
    metrics: Sequence[Scored],
    coefficients: Sequence[str],
    *,
    n_resamples: int,
    seed: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The pair table (:data:`PAIR_COLUMNS`) and the ranking table
    (:data:`CLUSTER_COLUMNS`) of every dimension and coefficient of ``benchmark`` (module
    docstring). ``tidy``: the benchmark's tidy table (item keys and human scores)."""
    pair_parts, ranking_parts = [], []
    for dimension in get_benchmark(benchmark).dimension_names:
        present = [m for m in metrics if dimension in m.scores]
        if len(present) < 2:
            continue
        human, scores = _matrices(tidy, benchmark, dimension, present)
        for coefficient in coefficients:
            pairs, ranking = _table(
                benchmark,
                dimension,
                coefficient,
                present,
                scores,
                human,
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
