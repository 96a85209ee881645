"""Correlation rows that need no judge: UniEval's released predictions, baselines, humans.

Protocols (the paper follows UniEval): Topical-Chat at the turn level (one correlation over
all 360 responses pooled: level ``global``, bootstrap over items); QAGS at the dataset level
(one correlation per subset over its summaries: ``global``); the QAGS Average is the mean of
the two subsets; SummEval at the summary level (per document over its 16 systems, constant
vectors skipped, averaged over the documents kept; bootstrap over documents).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

import pandas as pd

from geval_repro.config import Settings
from geval_repro.files.paths import PathLike
from geval_repro.registry.benchmarks import BENCHMARKS, UNIEVAL, UNIEVAL_VARIANT
from geval_repro.registry.paper import PRINTED_ROW_NOTES
from geval_repro.report.table_files import write_rows
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import table_rows

log = logging.getLogger(__name__)

NOTE = "UniEval's released predictions (maszhongming/UniEval reproduce/unieval_predict)"
SAME = (
    "Pearson, Spearman and Kendall equal UniEval's own reproduce/README.md table for "
    "these predictions to 6 decimals"
)


def unieval_rows(tables: Mapping[str, PathLike], settings: Settings, out: PathLike) -> None:
    """UniEval's released predictions against the human scores, at each benchmark's level
    -> a row file, with the AVG rows. ``tables``: the tidy table of each benchmark with
    UniEval's predictions (``unieval_predictions`` in the registry) by name."""
    parts = []
    for name in tables:
        benchmark = BENCHMARKS[name]
        table = pd.read_parquet(tables[name])
        log.info("%s: %d items", name, len(table))
        printed = PRINTED_ROW_NOTES.get((name, UNIEVAL), "")
        note = "; ".join(p for p in (NOTE, SAME, printed) if p)
        parts += [
            table_rows(
                table,
                benchmark=benchmark,
                dimension=dimension,
                metric=UNIEVAL,
                variant=UNIEVAL_VARIANT,
                metric_column=f"unieval_{dimension}",
                human_column=dimension,
                n_resamples=settings.bootstrap_resamples,
                seed=settings.seed,
                note=note,
            )
            for dimension in benchmark.dimension_names
        ]
    rows = pd.concat(parts, ignore_index=True)
    write_rows(pd.concat([rows, average_rows(rows)], ignore_index=True), out)
