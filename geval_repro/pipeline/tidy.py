"""Steps that build the tidy tables of data/processed from the raw files.

Every table is validated by its pandera schema when loaded, written to parquet atomically,
and re-read and validated again before the rename, so a table on disk is always complete.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd
import pandera.pandas as pa

from geval_repro import load, schemas
from geval_repro.atomic import write_parquet
from geval_repro.benchmarks import get_benchmark
from geval_repro.judge.formats import PROCESSED, get_format

PathLike = str | os.PathLike[str]
log = logging.getLogger(__name__)
WRITE_FIX = "delete the file and rerun the pipeline"


def save(df: pd.DataFrame, path: PathLike, schema: pa.DataFrameSchema, keys: Sequence[str]) -> None:
    """Write ``df`` to ``path`` as parquet, verified by re-reading it against ``schema``."""
    log.info("read and validated %d rows for %s", len(df), os.fspath(path))
    write_parquet(
        df, path, verify=lambda back: schemas.validate_table(back, schema, path, keys, WRITE_FIX)
    )


def summeval(raw: PathLike, out: PathLike) -> None:
    """data/summeval.json -> summeval.parquet (1,600 summaries, expert-mean scores)."""
    save(load.load_summeval(raw), out, schemas.SUMMEVAL, ["doc_id", "system_id"])


def summeval_references(raw: PathLike, out: PathLike) -> None:
    """BARTScore's data.pkl -> summeval_references.parquet (11 references per document)."""
    save(load.load_multiref(raw), out, schemas.MULTIREF, ["doc_id", "ref_index"])


def summeval_experts(raw: PathLike, out: PathLike) -> None:
    """MetricEval's table -> summeval_experts.parquet (3 experts x 4 dimensions per item)."""
    keys = ["doc_id", "system_id", "expert", "dimension"]
    save(load.load_metriceval_experts(raw), out, schemas.METRICEVAL_EXPERTS, keys)


def topical_chat(raw: PathLike, predictions: PathLike, out: PathLike) -> None:
    """UniEval's Topical-Chat + predictions -> topical_chat.parquet (360 responses)."""
    table = load.load_topical_chat(raw, predictions)
    save(table, out, schemas.TOPICAL_CHAT, ["item_id"])


def qags(raw: PathLike, predictions: PathLike, subset: str, out: PathLike) -> None:
    """UniEval's QAGS subset + predictions -> qags_<subset>.parquet."""
    save(load.load_qags(raw, predictions, subset), out, schemas.QAGS, ["item_id"])


def qags_mturk(raw: PathLike, subset: str, out: PathLike) -> None:
    """QAGS MTurk answers -> qags_mturk_<subset>.parquet (one row per sentence x worker)."""
    keys = ["summary_index", "sentence_index", "worker_id"]
    save(load.load_qags_mturk(raw, subset), out, schemas.QAGS_MTURK, keys)


def judge_tables(
    judge: str,
    spec: Mapping[str, Any],
    files: Mapping[str, PathLike],
    human_table: PathLike,
    outs: Mapping[str, PathLike],
) -> None:
    """One judge run -> its processed tables (``outs``: table name -> parquet path).

    The run's format (:mod:`geval_repro.judge.formats`) gives the loader and what it
    yields; each table is validated by its benchmark's schema before and after writing.
    """
    benchmark = get_benchmark(spec["benchmark"])
    tables = get_format(spec["format"]).load()(judge, spec, files, pd.read_parquet(human_table))
    for content, table in tables.items():
        name, schema = PROCESSED[content]
        keys = ["dimension", *benchmark.item_keys] + [
            c for c in ("reply_index", "level") if c in table.columns
        ]
        save(table, outs[name], getattr(schemas, schema)(benchmark.name), keys)
