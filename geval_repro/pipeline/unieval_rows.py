"""Correlation rows that need no judge run: UniEval's released predictions, baselines, humans.

Protocols (the paper follows UniEval): Topical-Chat at the turn level (one correlation over
all 360 responses pooled: level ``global``, bootstrap over items); QAGS at the dataset level
(one correlation per subset over its summaries: ``global``); the QAGS Average is the mean of
the two subsets; SummEval at the summary level (per document over its 16 systems, constant
vectors skipped, averaged over the documents kept; bootstrap over documents).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

import pandas as pd

from geval_repro.config import Settings
from geval_repro.registry.benchmarks import dimensions_of
from geval_repro.report.table_files import write_rows
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import table_rows

log = logging.getLogger(__name__)

PathLike = str | os.PathLike[str]
UNIEVAL = "UniEval"
UNIEVAL_VARIANT = "released predictions"


def unieval_rows(
    topical_chat: PathLike,
    qags: Mapping[str, PathLike],
    settings: Settings,
    out: PathLike,
) -> None:
    """UniEval's released predictions against the human scores (Tables 2 and 3 protocol)
    -> a row file, with the AVG rows."""
    note = "UniEval's released predictions (maszhongming/UniEval reproduce/unieval_predict)"
    same = (
        "Pearson, Spearman and Kendall equal UniEval's own reproduce/README.md table for "
        "these predictions to 6 decimals"
    )
    chat_note = (
        f"{note}; {same}; the paper's printed UniEval r and ρ match neither (the printed "
        "row does not come from these predictions with scipy's coefficients)"
    )
    chat = pd.read_parquet(topical_chat)
    log.info("topical_chat: %d responses", len(chat))
    parts = [
        table_rows(
            chat,
            benchmark="topical_chat",
            level="global",
            inputs="item_id",
            dimension=dimension,
            metric=UNIEVAL,
            variant=UNIEVAL_VARIANT,
            metric_column=f"unieval_{dimension}",
            human_column=dimension,
            n_resamples=settings.bootstrap_resamples,
            seed=settings.seed,
            note=chat_note,
        )
        for dimension in dimensions_of("topical_chat")
    ]
    for subset, path in qags.items():
        parts.append(
            table_rows(
                pd.read_parquet(path),
                benchmark=f"qags_{subset}",
                level="global",
                inputs="item_id",
                dimension="consistency",
                metric=UNIEVAL,
                variant=UNIEVAL_VARIANT,
                metric_column="unieval_consistency",
                human_column="consistency",
                n_resamples=settings.bootstrap_resamples,
                seed=settings.seed,
                note=f"{note}; {same}",
            )
        )
    rows = pd.concat(parts, ignore_index=True)
    write_rows(pd.concat([rows, average_rows(rows)], ignore_index=True), out)
