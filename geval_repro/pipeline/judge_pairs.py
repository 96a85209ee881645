"""Rule functions of judge vs judge: one job per benchmark (every pair of its metrics, and
their rankings with significance clusters; computed in :mod:`geval_repro.tables.judge_pairs`),
then the two tables of all benchmarks; and the reader of a benchmark's metrics
(:func:`read_metrics`), which the pairwise accuracy's item sets read too."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.atomic import write_text
from geval_repro.files.paths import PathLike
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.registry.judges import JudgeSpec
from geval_repro.report.cluster_figure import cluster_figure_of
from geval_repro.report.table_files import write_pair
from geval_repro.tables.judge_pairs import (
    CLUSTER_COLUMNS,
    PAIR_COLUMNS,
    pairwise_significance,
)
from geval_repro.tables.paired_tests import (
    Scored,
    baseline_metrics,
    judge_metrics,
    unieval_metrics,
)

log = logging.getLogger(__name__)


def read_metrics(
    benchmark: Benchmark,
    benchmark_table: PathLike,
    baseline_scores: Sequence[PathLike],
    specs: Mapping[str, JudgeSpec],
    processed: Mapping[str, Mapping[str, PathLike]],
    *,
    compared_only: bool,
) -> tuple[pd.DataFrame, list[Scored]]:
    """The benchmark's tidy table and its metrics: its baselines, UniEval's predictions and
    its judges' score variants; ``compared_only``: the baselines of the protocol variant
    and the variants a reader compares
    (:func:`~geval_repro.tables.paired_tests.compared_variant`), else every one.

    ``baseline_scores``: the per-item scores of the benchmark's baselines (none for a
    benchmark without baselines); ``specs``: the specs of the judges on the benchmark by
    name; ``processed``: each judge's processed tables by name.
    """
    tidy = pd.read_parquet(benchmark_table)
    protocol = benchmark.baselines.protocol_variant if benchmark.baselines else None
    variant = protocol if compared_only else None
    metrics = [
        m
        for path in baseline_scores
        for m in baseline_metrics(pd.read_parquet(path), benchmark, variant)
    ]
    metrics += unieval_metrics(tidy, benchmark)
    for judge, spec in specs.items():
        tables = {name: pd.read_parquet(path) for name, path in processed[judge].items()}
        metrics += judge_metrics(spec, tables, compared_only=compared_only)
    return tidy, metrics


def benchmark_pairs(
    benchmark: Benchmark,
    benchmark_table: PathLike,
    baseline_scores: Sequence[PathLike],
    specs: Mapping[str, JudgeSpec],
    processed: Mapping[str, Mapping[str, PathLike]],
    settings: Settings,
    pairs_out: PathLike,
    clusters_out: PathLike,
) -> None:
    """Every pair of metrics on ``benchmark`` and their rankings -> two CSVs (the inputs as
    in :func:`read_metrics`)."""
    tidy, metrics = read_metrics(
        benchmark, benchmark_table, baseline_scores, specs, processed, compared_only=True
    )
    log.info(
        "%s: %d metrics (%s), coefficients %s, %d resamples",
        benchmark.name,
        len(metrics),
        ", ".join(f"{m.metric} ({m.variant})" for m in metrics),
        ", ".join(benchmark.compared_coefficients),
        settings.permutation_resamples,
    )
    pairs, clusters = pairwise_significance(
        benchmark,
        tidy,
        metrics,
        n_resamples=settings.permutation_resamples,
        seed=settings.seed,
    )
    rankings = clusters.groupby(["dimension", "ranking"], sort=False)["n_items"].first()
    for (dimension, ranking), n_items in rankings.items():
        log.info("%s %s: ranking %s on %d items", benchmark.name, dimension, ranking, n_items)
    log.info("%s: %d tests, %d ranking rows", benchmark.name, len(pairs), len(clusters))
    write_text(pairs_out, pairs.to_csv(index=False, lineterminator="\n"))
    write_text(clusters_out, clusters.to_csv(index=False, lineterminator="\n"))


def _concatenated(parts: Sequence[PathLike], columns: list[str]) -> pd.DataFrame:
    tables = [pd.read_csv(path) for path in parts]
    table = pd.concat([t for t in tables if not t.empty] or [pd.DataFrame(columns=columns)])
    return table.reset_index(drop=True)


def combine_pairs(
    pairs: Sequence[PathLike],
    clusters: Sequence[PathLike],
    pairs_stem: PathLike,
    clusters_stem: PathLike,
) -> None:
    """Every benchmark's pairs and rankings -> ``<stem>.csv`` and ``<stem>.md`` of each."""
    counts = {"n_items": "Int64", "n_resamples": "Int64", "seed": "Int64"}
    write_pair(_concatenated(pairs, PAIR_COLUMNS).astype(counts), pairs_stem)
    ranks = {"position": "Int64", "cluster": "Int64", "n_items": "Int64"}
    write_pair(_concatenated(clusters, CLUSTER_COLUMNS).astype(ranks), clusters_stem)


def draw_cluster_figure(clusters: PathLike, benchmark: str, png: PathLike, svg: PathLike) -> None:
    """The figure of one benchmark's ranking with its significance clusters
    (:func:`geval_repro.report.cluster_figure.cluster_figure_of`)."""
    cluster_figure_of(clusters, benchmark, png, svg)
