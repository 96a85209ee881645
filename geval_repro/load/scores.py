"""Judge runs of format ``scores``: a CSV with one row per item and a score per dimension.

The config names the columns: the benchmark's item keys (``doc_id`` and ``system_id`` for
SummEval, ``item_id`` for Topical-Chat and QAGS) and one column per scored dimension of the
benchmark. Each row must be an item of the benchmark's tidy table (joined on the item
keys); rows of other items are an error, or are dropped and counted when the judge sets
``extra_items: drop`` (MetricEval's tables carry an extra system, ``M23_dynamicmix``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.load.schemas import item_scores_schema, read_csv, validate_table
from geval_repro.registry.benchmarks import get_benchmark

logger = logging.getLogger(__name__)


def load_item_scores(
    path: str | Path,
    judge: str,
    columns: Mapping[str, str],
    human: pd.DataFrame,
    extra_items: str = "error",
    *,
    benchmark: str,
) -> pd.DataFrame:
    """Per-item judge scores in long form: judge, benchmark, dimension, item keys, score.

    ``columns`` maps each item key and each scored dimension to a CSV column; ``human`` is
    the benchmark's tidy table. Scores are taken as they are in the file.
    """
    entry = get_benchmark(benchmark)
    keys = list(entry.item_keys)
    dimensions = [d for d in entry.dimension_names if d in columns]
    unknown_keys = sorted(set(columns) - set(keys) - set(entry.dimension_names))
    if not set(keys) <= set(columns) or not dimensions or unknown_keys:
        raise ValueError(
            f"judge {judge!r}: columns must map {', '.join(keys)} and at least one of "
            f"{list(entry.dimension_names)} ({entry.title}) to CSV columns (got {dict(columns)})"
        )
    frame = read_csv(path, fix="give the judge's scores as a UTF-8 CSV with a header row")
    missing = [name for name in columns.values() if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: judge {judge!r} names column(s) {missing}, which the file lacks "
            f"(it has {list(frame.columns)[:8]}...). Fix: correct `columns` in the judge config."
        )
    frame = frame.rename(columns={v: k for k, v in columns.items()})
    frame[keys] = frame[keys].astype(human[keys].dtypes.to_dict())
    known = pd.MultiIndex.from_frame(human[keys])
    found = pd.MultiIndex.from_frame(frame[keys])
    extra = ~found.isin(known)
    if extra.any():
        first = frame.loc[extra].iloc[0]
        named = ", ".join(f"{key}={first[key]!r}" for key in keys)
        if extra_items != "drop":
            raise ValueError(
                f"{path}: {int(extra.sum())} row(s) are not {entry.title} items, first "
                f"{named}. Fix: remove them, or set `extra_items: drop` in the judge config "
                "to drop them."
            )
        logger.info("%s: dropped %d rows not in %s", path, extra.sum(), entry.title)
        frame = frame.loc[~extra]
    long = frame.melt(id_vars=keys, value_vars=dimensions, var_name="dimension", value_name="score")
    long.insert(0, "benchmark", benchmark)
    long.insert(0, "judge", judge)
    long = long[["judge", "benchmark", "dimension", *keys, "score"]]
    long["score"] = pd.to_numeric(long["score"], errors="coerce").astype(float)  # text -> NaN
    if not np.isfinite(long["score"]).all():
        bad = long.loc[~np.isfinite(long["score"])].iloc[0]
        named = ", ".join(f"{key}={bad[key]!r}" for key in keys)
        raise ValueError(
            f"{path}: judge {judge!r} has a missing, non-numeric or non-finite "
            f"{bad['dimension']} score for {named}. Fix: score every item."
        )
    fix = f"the file must hold one row per {entry.title} item; remove duplicates"
    return validate_table(long, item_scores_schema(benchmark), path, ["dimension", *keys], fix)
