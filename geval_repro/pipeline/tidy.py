"""Rule functions that build the tidy tables of data/processed from the raw files.

Every table is validated by its pandera schema when loaded, written to parquet atomically,
and re-read and validated again before the rename, so a table on disk is always complete.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

import pandas as pd
import pandera.pandas as pa

from geval_repro.files.atomic import write_parquet
from geval_repro.files.fetch import check_pinned
from geval_repro.files.paths import PathLike
from geval_repro.load import schemas
from geval_repro.load.benchmarks import BENCHMARK_LOADERS, TABLE_LOADERS, load_benchmark
from geval_repro.load.judge_runs import CONTENT_SCHEMAS, FORMAT_LOADERS
from geval_repro.registry.benchmarks import get_benchmark
from geval_repro.registry.formats import CONTENT_TABLES
from geval_repro.registry.judges import JudgeSpec

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


def other_table(name: str, raw: PathLike, out: PathLike) -> None:
    """One further tidy table of a benchmark (its ``other_tables``: SummEval's references
    and expert ratings, QAGS's MTurk answers) from its upstream file -> ``<name>.parquet``
    (loader, schema and keys registered in :data:`geval_repro.load.benchmarks.TABLE_LOADERS`)."""
    loader = TABLE_LOADERS[name]
    save(loader.load(raw), out, loader.schema, loader.keys)


def judge_files(
    spec: JudgeSpec,
    files: Mapping[str, PathLike],
    benchmark_table: PathLike,
    outs: Mapping[str, PathLike],
) -> None:
    """One judge's files -> its processed tables (``outs``: table name -> parquet path).

    The run's format gives what it yields (:mod:`geval_repro.registry.formats`) and its
    loader (:data:`geval_repro.load.judge_runs.FORMAT_LOADERS`); each table is validated by
    its content's schema for the run's benchmark before and after writing. Local files
    pinned by SHA-256 (``{path, sha256}``) are verified first.
    """
    for path, sha256 in spec.pinned_files.items():
        check_pinned(path, sha256, f"judge {spec.name}")
    benchmark = spec.benchmark
    loader = FORMAT_LOADERS[spec.format.name]
    tables = loader(spec, files, pd.read_parquet(benchmark_table))
    for content, table in tables.items():
        keys = ["dimension", *benchmark.item_keys] + [
            c for c in ("reply_index", "rating") if c in table.columns
        ]
        schema = CONTENT_SCHEMAS[content](benchmark.name)
        save(table, outs[CONTENT_TABLES[content]], schema, keys)
