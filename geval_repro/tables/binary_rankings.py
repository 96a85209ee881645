"""Metric vs metric on a benchmark of binary human labels (SummEdits): for each binary-label
statistic, the metrics ranked by their mean over domains, every pair tested, and the
ranking's significance clusters, as the correlation rankings have them
(:mod:`geval_repro.tables.judge_pairs`).

Item sets (``ranking``): ``full``, the metrics that score every item; and one ranking per
set of items a partial run scores (``partial: <run>, <n> items``): the metrics scoring
exactly those items (the run's score variants), with every full metric restricted to them.
A partial run never shrinks the full ranking, and its own numbers rest on its items only.

Values and tests: a metric's value is its mean over domains
(:func:`~geval_repro.tables.binary_labels.domain_means`: each domain's statistic on its
``test`` split, the threshold fitted on its ``evaluation`` split), with its resamples of
the test split's documents; metrics on the same items get the same draws (one generator
from the config's seed, domain after domain), so each pair's resampled differences are a
paired bootstrap. The pair's p-value: two-sided, the difference's bootstrap distribution
shifted to 0 (:func:`geval_repro.stats.bootstrap.shifted_pvalue`); Holm over the pairs of a
(benchmark, statistic, ranking); clusters by
:func:`geval_repro.stats.clusters.significance_clusters` (a new cluster at a metric
significantly worse, Holm p <= 0.05, than one of the current cluster). A metric without a
mean (a domain without a value) is listed last, unclustered. With ``B`` resamples a
Holm-adjusted p-value of ``m`` pairs is at least ``m / (B + 1)``: where that exceeds 0.05
the rows say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import pandas as pd

from geval_repro.registry.benchmarks import Benchmark
from geval_repro.stats.bootstrap import shifted_pvalue
from geval_repro.stats.clusters import significance_clusters
from geval_repro.stats.multiplicity import holm
from geval_repro.stats.registry import BINARY_STATISTICS
from geval_repro.tables.binary_labels import domain_means

#: Significance level of the clusters (Holm-adjusted).
ALPHA = 0.05
#: One row per metric of a ranking.
RANKING_COLUMNS = [
    "benchmark",
    "dimension",
    "statistic",
    "ranking",
    "position",
    "cluster",
    "metric",
    "variant",
    "value",
    "n_items",
    "holm_floor",
    "status",
    "note",
]
#: One row per pair of metrics of a ranking.
PAIR_COLUMNS = [
    "benchmark",
    "dimension",
    "statistic",
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
    "n_resamples",
    "seed",
]


class Labelled(NamedTuple):
    """A metric's per-item ``scores``, aligned with the benchmark's tidy table (NaN: an item
    it does not score)."""

    metric: str
    variant: str
    status: str
    scores: np.ndarray


class BinaryRankings(NamedTuple):
    """The ranking rows (:data:`RANKING_COLUMNS`) and the pair tests (:data:`PAIR_COLUMNS`)."""

    rankings: pd.DataFrame
    pairs: pd.DataFrame


def item_sets(metrics: Sequence[Labelled]) -> list[tuple[str, np.ndarray, list[Labelled]]]:
    """The rankings of the module docstring: ``(name, scored items, metrics restricted to
    them)``, the full ranking first."""
    full = [m for m in metrics if np.isfinite(m.scores).all()]
    sets = []
    if full:
        sets.append(("full", np.ones(len(full[0].scores), dtype=bool), full))
    masks: dict[bytes, tuple[np.ndarray, list[Labelled]]] = {}
    for m in metrics:
        mask = np.isfinite(m.scores)
        if not mask.all():
            masks.setdefault(mask.tobytes(), (mask, []))[1].append(m)
    for mask, members in masks.values():
        restricted = [m._replace(scores=np.where(mask, m.scores, np.nan)) for m in full]
        runs = ", ".join(dict.fromkeys(m.metric for m in members))
        sets.append((f"partial: {runs}, {int(mask.sum())} items", mask, members + restricted))
    return sets


def binary_rankings(
    table: pd.DataFrame,
    benchmark: Benchmark,
    dimension: str,
    metrics: Sequence[Labelled],
    n_resamples: int,
    seed: int,
) -> BinaryRankings:
    """The rankings and pair tests of the module docstring for ``metrics`` on ``table`` (the
    benchmark's tidy table)."""
    ranking_parts, pair_parts = [], []
    for name, mask, members in item_sets(metrics):
        means = [domain_means(table, benchmark, m.scores, n_resamples, seed) for m in members]
        for statistic in BINARY_STATISTICS:
            values = np.array([mean[statistic][0] for mean in means])
            draws = [mean[statistic][1] for mean in means]
            order = sorted(
                range(len(members)),
                key=lambda i: (np.isnan(values[i]), -np.nan_to_num(values[i]), members[i].metric),
            )
            defined = [i for i in order if not np.isnan(values[i])]
            base = {
                "benchmark": benchmark.name,
                "dimension": dimension,
                "statistic": statistic,
                "ranking": name,
                "n_items": int(mask.sum()),
            }
            pairs = pd.DataFrame.from_records(
                [
                    {
                        **base,
                        "metric_a": members[a].metric,
                        "variant_a": members[a].variant,
                        "metric_b": members[b].metric,
                        "variant_b": members[b].variant,
                        "value_a": values[a],
                        "value_b": values[b],
                        "difference": values[a] - values[b],
                        "pvalue": shifted_pvalue(draws[a] - draws[b], values[a] - values[b]),
                        "n_resamples": n_resamples,
                        "seed": seed,
                    }
                    for x, a in enumerate(defined)
                    for b in defined[x + 1 :]
                ],
                columns=PAIR_COLUMNS,
            )
            pairs["pvalue_holm"] = holm(pairs["pvalue"].to_numpy(dtype=float))
            worse = np.zeros((len(defined), len(defined)), dtype=bool)
            positions = [(x, y) for x in range(len(defined)) for y in range(x + 1, len(defined))]
            for (x, y), adjusted, difference in zip(
                positions, pairs["pvalue_holm"], pairs["difference"], strict=True
            ):
                worse[x, y] = adjusted <= ALPHA and difference > 0
            clusters = significance_clusters(worse)
            floor = len(pairs) / (n_resamples + 1) if len(pairs) else np.nan
            note = (
                f"mean over domains, on {int(mask.sum())} items (each domain's test split; "
                "thresholds fitted on its evaluation split); a new cluster starts at a metric "
                "significantly worse (two-sided paired bootstrap over documents, Holm over "
                f"{_pairs(len(pairs))}, p <= {ALPHA}) than one of the current cluster"
            )
            if floor > ALPHA:
                note += (
                    f"; UNRESOLVED: with {n_resamples} resamples no Holm-adjusted p-value "
                    f"can fall below {floor:.3f}"
                )
            ranking_parts.append(
                pd.DataFrame.from_records(
                    [
                        {
                            **base,
                            "position": position + 1,
                            "cluster": clusters[position] if position < len(defined) else pd.NA,
                            "metric": members[i].metric,
                            "variant": members[i].variant,
                            "value": values[i],
                            "holm_floor": floor,
                            "status": members[i].status,
                            "note": note
                            if position < len(defined)
                            else "no mean over domains on these items: not ranked",
                        }
                        for position, i in enumerate(order)
                    ],
                    columns=RANKING_COLUMNS,
                )
            )
            pair_parts.append(pairs)
    rankings = _concat(ranking_parts, RANKING_COLUMNS)
    pairs = _concat(pair_parts, PAIR_COLUMNS)
    return BinaryRankings(
        rankings=rankings.astype({"position": "Int64", "cluster": "Int64", "n_items": "Int64"}),
        pairs=pairs.astype({"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"}),
    )


def _concat(parts: Sequence[pd.DataFrame], columns: Sequence[str]) -> pd.DataFrame:
    parts = [p for p in parts if len(p)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=list(columns))


def _pairs(n: int) -> str:
    return "the 1 pair" if n == 1 else f"the {n} pairs"
