"""Rule functions of the model-free baselines: a benchmark's per-item scores by its protocol
(:data:`geval_repro.registry.baselines.BASELINES`, named by the benchmark's registry entry),
then the correlation rows of every benchmark's baselines against its human scores."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from geval_repro.baselines import PRINTED_AS
from geval_repro.config import Settings
from geval_repro.files.atomic import write_parquet
from geval_repro.files.paths import PathLike
from geval_repro.registry.baselines import get_protocol
from geval_repro.registry.benchmarks import Benchmark
from geval_repro.report.table_files import write_rows
from geval_repro.tables.averages import average_rows
from geval_repro.tables.rows import table_rows

log = logging.getLogger(__name__)


def baseline_scores(
    benchmark: Benchmark, tables: Mapping[str, PathLike], cache: PathLike, out: PathLike
) -> None:
    """The per-item scores of ``benchmark``'s baselines by its protocol -> a parquet.
    ``tables``: its tidy table and its further tables by name; ``cache``: the run's cache
    folder."""
    baselines = benchmark.baselines
    if baselines is None:
        raise ValueError(f"{benchmark.title} has no baselines: nothing to score")
    protocol = get_protocol(baselines.protocol)
    log.info("%s: %s", benchmark.name, protocol.source)
    references = (
        None if baselines.references is None else pd.read_parquet(tables[baselines.references])
    )
    scores = protocol.score(
        pd.read_parquet(tables[benchmark.name]), references, Path(cache), baselines.protocol_variant
    )
    write_parquet(scores, out)


def baseline_rows(
    benchmarks: Mapping[str, Benchmark],
    tables: Mapping[str, PathLike],
    scores: Mapping[str, PathLike],
    settings: Settings,
    out: PathLike,
) -> None:
    """Correlation rows of every baseline variant of ``benchmarks``, with AVG rows, next to
    the paper -> a row file. ``tables``, ``scores``: each benchmark's tidy table and
    per-item baseline scores by name."""
    parts = []
    for name, benchmark in tqdm(benchmarks.items(), desc="baseline rows"):
        baselines = benchmark.baselines
        assert baselines is not None
        human = pd.read_parquet(tables[name])
        mine = pd.read_parquet(scores[name])
        keys = list(benchmark.item_keys)
        log.info("%s: %d human rows, %d baseline scores", name, len(human), len(mine))
        several = mine["variant"].nunique() > 1
        notes = {
            **(
                {baselines.protocol_variant: "the variant of the paper's protocol"}
                if several
                else {}
            ),
            **get_protocol(baselines.protocol).notes,
        }
        for (metric, variant), group in mine.groupby(["metric", "variant"], sort=True):
            table = human.merge(group[[*keys, "score"]], on=keys)
            for dimension in benchmark.dimension_names:
                parts.append(
                    table_rows(
                        table,
                        benchmark=benchmark,
                        dimension=dimension,
                        metric=metric,
                        variant=variant,
                        metric_column="score",
                        human_column=dimension,
                        n_resamples=settings.bootstrap_resamples,
                        seed=settings.seed,
                        note=notes.get(variant, notes.get(metric, "")),
                        paper_metric=PRINTED_AS.get(metric),
                    )
                )
    rows = pd.concat(parts, ignore_index=True)
    write_rows(pd.concat([rows, average_rows(rows, PRINTED_AS)], ignore_index=True), out)
