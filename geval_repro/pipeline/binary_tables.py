"""Rule function of the binary-label table: every metric of the benchmarks of binary human
labels (SummEdits) by the binary-label statistics (ROC AUC, balanced accuracy with its
threshold fitted on the evaluation split), per domain and averaged over domains
(:mod:`geval_repro.tables.binary_labels`)."""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.registry.baselines import get_protocol
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.report.table_files import write_pair
from geval_repro.tables.binary_labels import (
    REFERENCE_VARIANT,
    binary_label_rows,
    reference_scores,
)

log = logging.getLogger(__name__)

#: The legend under the Markdown table.
LEGEND = (
    "ROC AUC and balanced accuracy (BAcc) on each domain's `test` split; BAcc's threshold "
    "(predicted consistent: score >= it) is fitted on the domain's `evaluation` split "
    "(maximum BAcc, ties to the lowest; 4 documents per domain) and held fixed. Intervals: "
    "95 % percentile bootstrap over the test split's documents, 12-21 per domain (n_documents), "
    "the threshold's own uncertainty left out. The mean over domains weighs every domain "
    "equally. Reference rows: a constant and a uniform random score (expected 0.5 both); "
    "a value inside their intervals is not told apart from chance."
)


def binary_label_table(
    benchmarks: Mapping[str, Benchmark],
    tables: Mapping[str, PathLike],
    scores: Mapping[str, PathLike],
    settings: Settings,
    stem: PathLike,
) -> None:
    """The binary-label rows of every baseline and of the reference metrics of
    ``benchmarks`` -> ``<stem>.csv|.md``. ``tables``, ``scores``: each benchmark's tidy
    table and per-item baseline scores by name."""
    parts = []
    for name, benchmark in benchmarks.items():
        table = pd.read_parquet(tables[name])
        keys = list(benchmark.item_keys)
        (dimension,) = benchmark.dimension_names
        common = {
            "benchmark": benchmark,
            "dimension": dimension,
            "n_resamples": settings.bootstrap_resamples,
            "seed": settings.seed,
        }
        for metric, values in reference_scores(table, settings.seed).items():
            parts.append(
                binary_label_rows(
                    table,
                    metric=metric,
                    variant=REFERENCE_VARIANT,
                    scores=values,
                    status="reference",
                    **common,
                )
            )
        baselines = pd.read_parquet(scores[name])
        notes = get_protocol(benchmark.baselines.protocol).notes if benchmark.baselines else {}
        for (metric, variant), group in baselines.groupby(["metric", "variant"], sort=True):
            aligned = table[keys].merge(group[[*keys, "score"]], on=keys, how="left")
            if aligned["score"].isna().any():
                missing = aligned.loc[aligned["score"].isna(), keys].head(3).to_dict("records")
                raise ValueError(f"{scores[name]}: {metric} has no score for items {missing}")
            log.info("%s: %s (%s)", name, metric, variant)
            parts.append(
                binary_label_rows(
                    table,
                    metric=metric,
                    variant=variant,
                    scores=aligned["score"].to_numpy(),
                    note=notes.get(metric, ""),
                    **common,
                )
            )
    write_pair(pd.concat(parts, ignore_index=True), stem, LEGEND)
