"""Judge runs of format ``scores``: a CSV with one row per summary and a score per dimension.

The config names the columns: ``doc_id`` and ``system_id`` (the item keys) and one column per
SummEval dimension. Each row must be a SummEval summary (joined on doc_id, system_id); rows
of other summaries are an error, or are dropped and counted when the judge sets
``extra_items: drop`` (MetricEval's tables carry an extra system, ``M23_dynamicmix``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd

from geval_repro.schemas import ITEM_SCORES, SUMMEVAL_DIMENSIONS, read_csv, validate_table

logger = logging.getLogger(__name__)


def load_item_scores(
    path: str | Path,
    judge: str,
    columns: Mapping[str, str],
    summeval: pd.DataFrame,
    extra_items: str = "error",
) -> pd.DataFrame:
    """Per-item judge scores in long form: judge, benchmark, dimension, doc_id, system_id, score.

    ``columns`` maps ``doc_id``, ``system_id`` and each scored dimension to a CSV column.
    Scores are taken as they are in the file (MetricEval's are z-scored over its rows: an
    increasing affine map per dimension, which leaves per-document correlations unchanged).
    """
    keys = {"doc_id", "system_id"}
    dimensions = [d for d in SUMMEVAL_DIMENSIONS if d in columns]
    unknown_keys = sorted(set(columns) - keys - set(SUMMEVAL_DIMENSIONS))
    if not keys <= set(columns) or not dimensions or unknown_keys:
        raise ValueError(
            f"judge {judge!r}: columns must map doc_id, system_id and at least one of "
            f"{list(SUMMEVAL_DIMENSIONS)} to CSV columns (got {dict(columns)})"
        )
    frame = read_csv(path, fix="give the judge's scores as a UTF-8 CSV with a header row")
    missing = [name for name in columns.values() if name not in frame.columns]
    if missing:
        raise ValueError(
            f"{path}: judge {judge!r} names column(s) {missing}, which the file lacks "
            f"(it has {list(frame.columns)[:8]}...). Fix: correct `columns` in the judge config."
        )
    frame = frame.rename(columns={v: k for k, v in columns.items()})
    frame[["doc_id", "system_id"]] = frame[["doc_id", "system_id"]].astype(str)
    known = pd.MultiIndex.from_frame(summeval[["doc_id", "system_id"]])
    found = pd.MultiIndex.from_frame(frame[["doc_id", "system_id"]])
    extra = ~found.isin(known)
    if extra.any():
        first = frame.loc[extra].iloc[0]
        if extra_items != "drop":
            raise ValueError(
                f"{path}: {int(extra.sum())} row(s) are not SummEval summaries, first "
                f"doc_id={first['doc_id']!r}, system_id={first['system_id']!r}. Fix: remove "
                "them, or set `extra_items: drop` in the judge config to drop them."
            )
        dropped = sorted(frame.loc[extra, "system_id"].unique())
        logger.info("%s: dropped %d rows not in SummEval (systems %s)", path, extra.sum(), dropped)
        frame = frame.loc[~extra]
    long = frame.melt(
        id_vars=["doc_id", "system_id"],
        value_vars=dimensions,
        var_name="dimension",
        value_name="score",
    )
    long.insert(0, "benchmark", "summeval")
    long.insert(0, "judge", judge)
    long = long[["judge", "benchmark", "dimension", "doc_id", "system_id", "score"]]
    long["score"] = pd.to_numeric(long["score"], errors="coerce").astype(float)  # text -> NaN
    if not np.isfinite(long["score"]).all():
        bad = long.loc[~np.isfinite(long["score"])].iloc[0]
        raise ValueError(
            f"{path}: judge {judge!r} has a missing, non-numeric or non-finite "
            f"{bad['dimension']} score for doc_id={bad['doc_id']!r}, "
            f"system_id={bad['system_id']!r}. Fix: score every item."
        )
    fix = "the file must hold one row per SummEval summary; remove duplicates"
    return validate_table(long, ITEM_SCORES, path, ["dimension", "doc_id", "system_id"], fix)
