"""Rule functions of judge vs judge: one job per benchmark (every pair of its metrics, and
their ranking with significance clusters; computed in :mod:`geval_repro.tables.judge_pairs`),
then the two tables of all benchmarks."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from geval_repro.baselines import PROTOCOL_VARIANTS
from geval_repro.config import Settings
from geval_repro.files.atomic import write_text
from geval_repro.pipeline.unieval_rows import UNIEVAL, UNIEVAL_VARIANT
from geval_repro.registry.paper import printed_coefficients
from geval_repro.report.table_files import write_pair
from geval_repro.tables.judge_pairs import (
    CLUSTER_COLUMNS,
    PAIR_COLUMNS,
    baseline_metrics,
    column_metrics,
    judge_metrics,
    pairwise_significance,
)

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]


def benchmark_pairs(
    benchmark: str,
    benchmark_table: PathLike,
    baseline_scores: PathLike,
    judges: Mapping[str, Mapping[str, Any]],
    processed: Mapping[str, Mapping[str, PathLike]],
    settings: Settings,
    pairs_out: PathLike,
    clusters_out: PathLike,
) -> None:
    """Every pair of metrics on ``benchmark`` and their ranking -> two CSVs.

    ``baseline_scores``: the benchmark's per-item baseline scores; ``judges``: the judge
    runs on the benchmark (name -> config entry); ``processed``: each run's processed tables
    by name.
    """
    tidy = pd.read_parquet(benchmark_table)
    metrics = baseline_metrics(
        pd.read_parquet(baseline_scores), benchmark, PROTOCOL_VARIANTS.get(benchmark)
    )
    metrics += column_metrics(tidy, benchmark, "unieval_", UNIEVAL, UNIEVAL_VARIANT, "unieval")
    for judge, spec in judges.items():
        tables = {name: pd.read_parquet(path) for name, path in processed[judge].items()}
        metrics += judge_metrics(judge, spec, tables)
    coefficients = printed_coefficients(benchmark)
    log.info(
        "%s: %d metrics (%s), coefficients %s, %d resamples",
        benchmark,
        len(metrics),
        ", ".join(f"{m.metric} ({m.variant})" for m in metrics),
        ", ".join(coefficients),
        settings.permutation_resamples,
    )
    pairs, clusters = pairwise_significance(
        benchmark,
        tidy,
        metrics,
        coefficients,
        n_resamples=settings.permutation_resamples,
        seed=settings.seed,
    )
    log.info("%s: %d tests, %d ranking rows", benchmark, len(pairs), len(clusters))
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
