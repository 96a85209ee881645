"""Rule functions that build the tidy tables of data/processed from the raw files.

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

from geval_repro import load
from geval_repro.config import pinned_files
from geval_repro.files.atomic import write_parquet
from geval_repro.files.fetch import check_pinned
from geval_repro.load import schemas
from geval_repro.load.benchmarks import BENCHMARK_LOADERS, load_benchmark
from geval_repro.load.judge_runs import CONTENT_SCHEMAS, RUN_LOADERS
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.formats import CONTENT_TABLES

PathLike = str | os.PathLike[str]
log = logging.getLogger(__name__)
WRITE_FIX = "delete the file and rerun the pipeline"


def save(df: pd.DataFrame, path: PathLike, schema: pa.DataFrameSchema, keys: Sequence[str]) -> None:
    """Write ``df`` to ``path`` as parquet, verified by re-reading it against ``schema``."""
    log.info("read and validated %d rows for %s", len(df), os.fspath(path))
    write_parquet(
        df, path, verify=lambda back: schemas.validate_table(back, schema, path, keys, WRITE_FIX)
    )


def benchmark(name: str, sources: Sequence[PathLike], out: PathLike) -> None:
    """A benchmark's upstream files (in its registry order) -> ``<name>.parquet``."""
    benchmark = get_benchmark(name)
    table = load_benchmark(name, list(sources))
    save(table, out, BENCHMARK_LOADERS[name].schema, list(benchmark.item_keys))


def summeval_references(raw: PathLike, out: PathLike) -> None:
    """BARTScore's data.pkl -> summeval_references.parquet (11 references per document)."""
    save(load.load_multiref(raw), out, schemas.MULTIREF, ["doc_id", "ref_index"])


def summeval_experts(raw: PathLike, out: PathLike) -> None:
    """MetricEval's table -> summeval_experts.parquet (3 experts x 4 dimensions per item)."""
    keys = ["doc_id", "system_id", "expert", "dimension"]
    save(load.load_metriceval_experts(raw), out, schemas.METRICEVAL_EXPERTS, keys)


def qags_mturk(raw: PathLike, subset: str, out: PathLike) -> None:
    """QAGS MTurk answers -> qags_mturk_<subset>.parquet (one row per sentence x worker)."""
    keys = ["summary_index", "sentence_index", "worker_id"]
    save(load.load_qags_mturk(raw, subset), out, schemas.QAGS_MTURK, keys)


def judge_run(
    judge: str,
    spec: Mapping[str, Any],
    files: Mapping[str, PathLike],
    benchmark_table: PathLike,
    outs: Mapping[str, PathLike],
) -> None:
    """One judge run's files -> its processed tables (``outs``: table name -> parquet path).

    The run's format gives what it yields (:mod:`geval_repro.registry.formats`) and its
    loader (:data:`geval_repro.load.judge_runs.RUN_LOADERS`); each table is validated by
    its content's schema for the run's benchmark before and after writing. Local files
    pinned by SHA-256 (``{path, sha256}``) are verified first.
    """
    for path, sha256 in pinned_files(spec).items():
        check_pinned(path, sha256, f"judge {judge}")
    benchmark = get_benchmark(spec["benchmark"])
    loader = RUN_LOADERS[spec["format"]]
    tables = loader(judge, spec, files, pd.read_parquet(benchmark_table))
    for content, table in tables.items():
        keys = ["dimension", *benchmark.item_keys] + [
            c for c in ("reply_index", "rating") if c in table.columns
        ]
        schema = CONTENT_SCHEMAS[content](benchmark.name)
        save(table, outs[CONTENT_TABLES[content]], schema, keys)
